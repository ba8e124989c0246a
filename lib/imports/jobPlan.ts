/**
 * The decisions of a staged import's job, pure (job state and facts in, the next state out; no store, no
 * clock): the check of the whole set before anything is written, what the job does after each phase's work
 * (`planAfter`), whether a queue message may run its step, how much one step takes on, and when the resumer
 * hands a stopped job to the queue again. importJob.ts is the executor: it reads and writes, and asks here.
 */
import type { ManifestEntry } from './manifest';
import { deleteLimitExceeded, type ImportCounts } from './importer';
import { exceedsDeleteRatio } from './importPlan';
import type { RunFailure } from './runHistory';
import { CODE } from '../util/errorCodes';

/** How long a step holds its job without its heartbeat renewing it. */
export const STEP_LEASE_MS = 60_000;
/** How often a running step renews its hold (several renewals fit in STEP_LEASE_MS). */
export const STEP_HEARTBEAT_MS = 15_000;
/**
 * Identity writes (or deletions) one step makes at most, by default (IMPORT_STEP_MAX_WRITES): its manifest
 * segment stays near 1.5 MB, its time well inside the function's 10 minutes.
 */
export const WRITES_PER_STEP = 20_000;
/** A step stops taking further parts after this long (reading parts whose identities are mostly unchanged is quick). */
export const STEP_READ_BUDGET_MS = 20_000;
/** A step that failed this many times ends its run FAILED. */
export const MAX_STEP_ATTEMPTS = 6;
/**
 * The externalIds a step of the check or the deletions holds at most, by default (IMPORT_STEP_MAX_KEYS; of
 * the set and of the manifest each): a larger set is checked, and its deletions found, one hash range of its keys per step.
 */
export const RANGE_KEYS = 200_000;
/** A job whose current step was handed to the queue this long ago and is not running is handed to the queue again. */
export const RESUME_AFTER_MS = 60_000;
/** A job created by a completeImport that never recorded its completion is removed after this long. */
export const UNCOMMITTED_AFTER_MS = 30_000;

/** What the check of the whole set found: duplicates across parts, and what applying the set would change. */
export interface SetCheckResult {
  /** ExternalIds met more than once across the parts. */
  duplicates: number;
  /** Where the first repeated externalId was met again. */
  firstDuplicate?: { sequence: number; index: number };
  planned: ImportCounts;
  /** Identities the source holds now (the manifest's size). */
  held: number;
}

/** How many hash ranges a set of `identities` is checked in: each holds about `rangeKeys` of them. */
export function rangeCount(identities: number, rangeKeys = RANGE_KEYS): number {
  return Math.max(1, Math.ceil(identities / rangeKeys));
}

/** The hash range (0 to ranges - 1) of an externalId: FNV-1a of its UTF-16 code units, stable across processes. */
export function rangeOf(externalId: string, ranges: number): number {
  if (ranges <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < externalId.length; i++) h = Math.imul(h ^ externalId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % ranges;
}

/** Whether an externalId is in range `range` of `ranges` (every id is, when there is one range). */
export function inRange(range: number, ranges: number): ((externalId: string) => boolean) | undefined {
  return ranges <= 1 ? undefined : (externalId) => rangeOf(externalId, ranges) === range;
}

/** What the checks of two ranges found together. */
export function mergeFound(a: SetCheckResult, b: SetCheckResult): SetCheckResult {
  const [x, y] = [a.firstDuplicate, b.firstDuplicate];
  const first = !x ? y : !y ? x : x.sequence < y.sequence || (x.sequence === y.sequence && x.index < y.index) ? x : y;
  return {
    duplicates: a.duplicates + b.duplicates,
    ...(first ? { firstDuplicate: first } : {}),
    planned: addCounts(a.planned, b.planned),
    held: a.held + b.held,
  };
}

/**
 * Checks the set one part's keys at a time against the source's manifest: an externalId met twice is a
 * duplicate (within a part, addImportPart refused it already); the others count as created, updated or
 * unchanged, and what the set never meets is deleted. Beside the manifest it holds the externalIds new to
 * the source (and references to the manifest's own keys).
 */
export class SetCheck {
  private readonly unseen: Set<string>;
  private readonly fresh = new Set<string>();
  private duplicates = 0;
  private firstDuplicate: { sequence: number; index: number } | undefined;
  private readonly counts = { created: 0, updated: 0, unchanged: 0 };

  constructor(private readonly manifest: ReadonlyMap<string, ManifestEntry>) {
    this.unseen = new Set(manifest.keys());
  }

  /** Adds a part's keys (those `keep` accepts, when given: the range checked). */
  addPart(
    sequence: number,
    keys: ReadonlyArray<readonly [string, string]>,
    keep?: (externalId: string) => boolean,
  ): void {
    keys.forEach(([externalId, hash], index) => {
      if (keep && !keep(externalId)) return;
      const entry = this.manifest.get(externalId);
      const repeated = entry ? !this.unseen.delete(externalId) : this.fresh.has(externalId);
      if (repeated) {
        this.duplicates++;
        this.firstDuplicate ??= { sequence, index };
        return;
      }
      if (!entry) {
        this.fresh.add(externalId);
        this.counts.created++;
      } else if (entry.hash === hash) this.counts.unchanged++;
      else this.counts.updated++;
    });
  }

  result(): SetCheckResult {
    return {
      duplicates: this.duplicates,
      ...(this.firstDuplicate ? { firstDuplicate: this.firstDuplicate } : {}),
      planned: { ...this.counts, deleted: this.unseen.size },
      held: this.manifest.size,
    };
  }
}

/** The job's state as the decisions below read it (the stored job, stagedStore.ts's ImportJobDoc, extends it). */
export interface JobState {
  phase: string;
  /** Steps done: a queue message names the step it does, so a message delivered again after its step is ignored. */
  step: number;
  /** The step running now and until when it holds the job (renewed by its heartbeat). */
  holder?: string;
  heldUntil?: string;
  /** Tries of the current step; the job fails after MAX_STEP_ATTEMPTS. */
  attempts: number;
  /** When the current step was last handed to the queue. */
  enqueuedAt: string;
  createdAt: string;
}

const time = (iso: string | undefined) => (iso === undefined ? Number.NEGATIVE_INFINITY : Date.parse(iso));

/** Whether a step holds the job now. */
export function isHeld(job: JobState, now: number): boolean {
  return job.holder !== undefined && time(job.heldUntil) > now;
}

/**
 * What a queue message for step `step` does: run it; nothing, because the job ended or went past that step
 * (a message delivered again) or another step holds it now; or end the run, its step having failed too often.
 */
export function stepDecision(job: JobState, step: number, now: number): 'run' | 'stale' | 'held' | 'exhausted' {
  if (job.phase === 'done' || job.step !== step) return 'stale';
  if (isHeld(job, now)) return 'held';
  if (job.attempts >= MAX_STEP_ATTEMPTS) return 'exhausted';
  return 'run';
}

/**
 * What the resumer does with a job it finds listed: forget it (ended); remove it (created by a completeImport
 * that never recorded its completion, after UNCOMMITTED_AFTER_MS); end its run (its import's documents
 * expired: nothing left to apply); leave it (a step holds it, or its step was handed to the queue less than
 * RESUME_AFTER_MS ago and has not started); or hand its current step to the queue again. A hold that lapsed
 * means its step started and its process stopped: its message is gone with the process or hidden for the
 * queue's visibility timeout (10 minutes in Azure), so it is resumed at once.
 */
export function resumeDecision(
  job: JobState | undefined,
  session: 'committed' | 'uncommitted' | 'missing',
  now: number,
): 'ended' | 'uncommitted' | 'expired' | 'wait' | 'resume' {
  if (!job || job.phase === 'done') return 'ended';
  if (session === 'missing') return 'expired';
  if (session === 'uncommitted') return now - time(job.createdAt) > UNCOMMITTED_AFTER_MS ? 'uncommitted' : 'wait';
  if (isHeld(job, now)) return 'wait';
  if (job.holder === undefined && now - time(job.enqueuedAt) < RESUME_AFTER_MS) return 'wait';
  return 'resume';
}

/** Whether an apply step takes on another part: always a first one, then while its writes and reading time allow. */
export function takesAnotherPart(
  taken: { parts: number; writes: number; elapsedMs: number },
  maxWrites = WRITES_PER_STEP,
): boolean {
  return taken.parts === 0 || (taken.writes < maxWrites && taken.elapsedMs < STEP_READ_BUDGET_MS);
}

/** The job's phases: check the whole set, apply its parts, delete what it no longer holds; done when ended. */
export type JobPhase = 'check' | 'apply' | 'delete' | 'finish' | 'done';

/** What of the job the planner reads and changes. */
export interface JobProgress {
  phase: JobPhase;
  dryRun: boolean;
  maxDeletedRatio?: number;
  /** Index (in the session's parts) of the next part to apply. */
  nextPart: number;
  applied: number;
  total: number;
  counts: ImportCounts;
  /** What the set changes, found by the check. */
  planned?: ImportCounts;
  /** Request units the store charged for the job's writes so far (identities and their manifest entries). */
  writeRequestUnits?: number;
  /** The hash ranges of its keys the set is checked in, when more than one (see rangeCount). */
  ranges?: number;
  /** The range the check is at (from 0), and what the ranges before it found. */
  range?: number;
  checked?: SetCheckResult;
  /** The ranges where the check found identities to delete and the deletions have not finished, in order. */
  deleteRanges?: number[];
}

/** What a phase's work found: the facts the next state is made of. */
export type PhaseFacts =
  | {
      phase: 'check';
      found: SetCheckResult;
      /** The strictest delete ratio of the service's and the request's (undefined: no guard). */
      strictestRatio: number | undefined;
      parts: number;
      /** The range checked of how many (absent: the whole set at once). */
      range?: number;
      ranges?: number;
    }
  | {
      phase: 'apply';
      counts: ImportCounts;
      identities: number;
      nextPart: number;
      parts: number;
      /** What the step's writes cost. */
      requestUnits: number;
    }
  /** more: identities the set lacks are left in the range the step deleted in (or in the whole source). */
  | { phase: 'delete'; counts: ImportCounts; more: boolean; requestUnits: number };

/** The job's next state: go on with another step, or end its run. */
export type JobPlan<J extends JobProgress> =
  { next: J } | { end: 'completed'; job: J } | { end: 'rejected'; job: J; failure: RunFailure };

export const noCounts = (): ImportCounts => ({ created: 0, updated: 0, deleted: 0, unchanged: 0 });

export function addCounts(a: ImportCounts, b: ImportCounts): ImportCounts {
  return {
    created: a.created + b.created,
    updated: a.updated + b.updated,
    deleted: a.deleted + b.deleted,
    unchanged: a.unchanged + b.unchanged,
  };
}

/** After the parts are applied: deletions when the check found any, else the end. */
function afterParts<J extends JobProgress>(job: J): JobPlan<J> {
  return (job.planned?.deleted ?? 0) > 0 ? { next: { ...job, phase: 'delete' } } : { end: 'completed', job };
}

/**
 * The job after its phase's work: a set with an externalId in two parts, or more deletions than the guard
 * allows, is rejected before anything is written; a dry run ends after the check with what it would write;
 * a set with nothing to create or update skips its parts; the parts are applied in order, then deletions.
 */
export function planAfter<J extends JobProgress>(job: J, facts: PhaseFacts): JobPlan<J> {
  if (facts.phase === 'check') {
    const { range = 0, ranges = 1 } = facts;
    const { checked: before, range: _range, ...rest } = job;
    const found = before ? mergeFound(before, facts.found) : facts.found;
    const deleteRanges = facts.found.planned.deleted > 0 ? [...(job.deleteRanges ?? []), range] : job.deleteRanges;
    const withRanges = {
      ...rest,
      ...(ranges > 1 ? { ranges } : {}),
      ...(deleteRanges && ranges > 1 ? { deleteRanges } : {}),
    } as J;
    // Another range to check: nothing is decided before the whole set is.
    if (range + 1 < ranges) return { next: { ...withRanges, range: range + 1, checked: found } };
    job = withRanges;
    const { duplicates, firstDuplicate, planned, held } = found;
    if (duplicates > 0) {
      const first = firstDuplicate
        ? ` (the first: part ${firstDuplicate.sequence}, identities[${firstDuplicate.index}])`
        : '';
      return {
        end: 'rejected',
        job,
        failure: {
          code: CODE.BAD_USER_INPUT,
          message: `The import was rejected: ${duplicates} identit(ies) repeat the externalId of an identity in an earlier part${first}; nothing was changed`,
        },
      };
    }
    if (exceedsDeleteRatio(planned.deleted, held, facts.strictestRatio)) {
      const refusal = deleteLimitExceeded(planned.deleted, held, job.maxDeletedRatio !== undefined);
      return { end: 'rejected', job, failure: { code: refusal.code, message: refusal.message } };
    }
    if (job.dryRun) return { end: 'completed', job: { ...job, counts: planned, applied: job.total } };
    const checked = { ...job, planned };
    // Nothing to create or update: the parts need not be read again.
    if (planned.created + planned.updated === 0)
      return afterParts({
        ...checked,
        counts: { ...job.counts, unchanged: planned.unchanged },
        applied: job.total,
        nextPart: facts.parts,
      });
    return { next: { ...checked, phase: 'apply' } };
  }
  const writeRequestUnits = (job.writeRequestUnits ?? 0) + facts.requestUnits;
  if (facts.phase === 'apply') {
    const applied = {
      ...job,
      writeRequestUnits,
      counts: addCounts(job.counts, facts.counts),
      applied: job.applied + facts.identities,
      nextPart: facts.nextPart,
    };
    return facts.nextPart >= facts.parts ? afterParts(applied) : { next: applied };
  }
  const deleted = { ...job, writeRequestUnits, counts: addCounts(job.counts, facts.counts) };
  if (facts.more) return { next: deleted };
  // The range is done: the next range with deletions, if any.
  const left = job.deleteRanges?.slice(1) ?? [];
  return left.length > 0 ? { next: { ...deleted, deleteRanges: left } } : { end: 'completed', job: deleted };
}
