/**
 * The decisions of a staged import's job, pure: the check of the whole set before anything is written,
 * whether a queue message may run its step, how much one step takes on, and when the resumer hands a
 * stopped job to the queue again.
 */
import type { ManifestEntry } from './manifest';
import type { ImportCounts } from './importer';

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

  addPart(sequence: number, keys: ReadonlyArray<readonly [string, string]>): void {
    keys.forEach(([externalId, hash], index) => {
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

/** The job's state as the decisions below read it. */
export interface JobState {
  phase: string;
  step: number;
  holder?: string;
  heldUntil?: string;
  attempts: number;
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
