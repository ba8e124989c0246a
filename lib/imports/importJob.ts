/**
 * The job of a staged import, on the background queue: one message does one bounded step and enqueues the
 * next; what was done lives in the store (the job document: phase, next part, counts), so a step that
 * stopped (a crash, kill -9, the host's time limit) is done again from there, by the queue's own retry or
 * by the resumer, with no client sending anything.
 *
 * Phases:
 * - check (one step): every part's keys against the manifest, before anything is written: an externalId in
 *   two parts, or more deletions than the delete guard allows, ends the run REJECTED with nothing written;
 *   a dry run ends here with the counts it would write;
 * - apply: parts in order, each step up to WRITES_PER_STEP identity writes (the bodies of parts with
 *   nothing to write are never read), through the same writer as a set in one request (manifest intent,
 *   writes, manifest outcome), so a step done twice writes nothing twice;
 * - delete: identities of the source the set no longer holds, after every part is applied;
 * - finish: the run COMPLETED, the source's lease released, the parts deleted.
 * A step holds the job for STEP_LEASE_MS, renewed by its heartbeat. Steps of several jobs run at once in a
 * process, each in one of its units of background work (lib/background/fairUnits.ts), shared fairly among tenants.
 */
import { randomUUID } from 'node:crypto';
import type { Store, WithEtag } from '../store/store';
import type { WorkQueue } from '../background/workQueue';
import { atHighPriority } from '../store/priority';
import { measuringCharges } from '../store/metrics';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import type { ImportCounts, Importer } from './importer';
import { ImportManifest, type ManifestEntry } from './manifest';
import { planWrites, type PlannedWrite } from './importPlan';
import { releaseJobLease, renewJobLease } from './importLease';
import { describeFailure, type RunFailure, type RunHistory, type StagedRunChange } from './runHistory';
import {
  RANGE_KEYS,
  SetCheck,
  WRITES_PER_STEP,
  inRange,
  rangeCount,
  STEP_HEARTBEAT_MS,
  STEP_LEASE_MS,
  noCounts,
  planAfter,
  resumeDecision,
  stepDecision,
  takesAnotherPart,
  type JobPhase,
  type JobPlan,
  type PhaseFacts,
} from './jobPlan';
import { StagedStore, type ImportJobDoc, type StagedImportDoc } from './stagedStore';
import { CODE } from '../util/errorCodes';
import { closeImport } from './tenantImports';

export interface ImportJobDeps {
  store: Store;
  importer: Importer;
  runs: RunHistory;
  queue: WorkQueue;
  /** Identity writes (or deletions) one step makes at most (IMPORT_STEP_MAX_WRITES). */
  stepWrites?: number;
  /** The externalIds a step holds at most (IMPORT_STEP_MAX_KEYS). */
  rangeKeys?: number;
}

/** A queue message of a job: which import, in which source partition, and the step it does. */
export interface ImportStepWork {
  tenantId: string;
  partition: string;
  importId: string;
  step: number;
}

export interface ImportStepResult {
  /**
   * stepped: a step was done and the next one queued; ended: the run ended (completed, rejected or failed);
   * stale: the message's step was done already, or the job ended; held: another step holds the job now;
   * missing: no such job (or its completion was never recorded).
   */
  outcome: 'stepped' | 'ended' | 'stale' | 'held' | 'missing';
  /** How the run ended (outcome ended). */
  status?: 'completed' | 'rejected' | 'failed';
  phase?: JobPhase;
  applied?: number;
  total?: number;
}

/** One step of a job (called from the queue function, in a unit of the instance, at low priority for the job's tenant). */
export async function runImportStep(
  deps: ImportJobDeps,
  work: ImportStepWork,
  now: () => number = Date.now,
): Promise<{ result: ImportStepResult; continued: boolean }> {
  return new JobStep(deps, work, now).run();
}

function partsGone(): DomainError {
  return new DomainError(
    CODE.IMPORT_PARTS_EXPIRED,
    'A part of the import was no longer stored when its job came to it (its time to live had passed); stage the import again',
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The job without its step's hold. */
function released(job: ImportJobDoc): ImportJobDoc {
  const { holder: _holder, heldUntil: _heldUntil, ...rest } = job;
  return rest;
}

class JobStep {
  private readonly docs: StagedStore;
  private readonly holder = randomUUID();
  /** The job as this step works on it. */
  private job!: ImportJobDoc;
  /** The job as last stored (what the heartbeat renews). */
  private saved!: ImportJobDoc;
  private etag!: string;
  private writing: Promise<unknown> = Promise.resolve();
  /** Another writer changed the job (the resumer found this step's hold lapsed): this step stops. */
  private lost = false;
  private readonly stepWrites: number;
  private endedAs: ImportStepResult['status'];

  constructor(
    private readonly deps: ImportJobDeps,
    private readonly work: ImportStepWork,
    private readonly now: () => number,
  ) {
    this.docs = new StagedStore(deps.store);
    this.stepWrites = deps.stepWrites ?? WRITES_PER_STEP;
  }

  async run(): Promise<{ result: ImportStepResult; continued: boolean }> {
    const { partition: pk, importId, step } = this.work;
    const found = await this.docs.readJob(pk, importId);
    if (!found || found.tenantId !== this.work.tenantId) return this.answer('missing');
    const decision = stepDecision(found, step, this.now());
    if (decision === 'stale' || decision === 'held') return this.answer(decision, found);
    const session = await this.docs.readSessionIn(pk, importId);
    // Not committed (its completeImport stopped part-way): the next completeImport or the resumer removes it.
    if (!session || session.runId !== found.runId) return this.answer('missing');
    const { _etag, ...job } = found;
    this.job = this.saved = job;
    this.etag = _etag;
    if (decision === 'exhausted') {
      await this.end(session, 'failed', job.lastFailure ?? describeFailure(undefined).failure);
      return this.answer('ended', this.job);
    }
    const held = await this.save({
      ...job,
      holder: this.holder,
      heldUntil: iso(this.now() + STEP_LEASE_MS),
      attempts: job.attempts + 1,
    });
    if (!held) return this.answer('held', job);
    this.job = this.saved;
    if (!job.dryRun && !(await renewJobLease(this.deps.store, pk, job.runId, this.now()))) {
      // Another import took the source over (nothing worked on this job for JOB_LEASE_MS): the run reads abandoned.
      await this.end(session, undefined);
      return this.answer('ended', this.job);
    }
    const stopBeating = this.heartbeat();
    try {
      if (job.phase === 'check') await this.deps.runs.updateStaged(pk, job.runId, { status: 'running' });
      const ended = await this.advance(session);
      stopBeating();
      if (ended || this.lost) return this.answer(ended ? 'ended' : 'held', this.job);
      const next = { ...released(this.job), step: this.job.step + 1, attempts: 0, enqueuedAt: iso(this.now()) };
      delete next.lastFailure;
      if (!(await this.save(next))) return this.answer('held', this.job);
      this.job = next;
      await this.deps.runs.updateStaged(pk, next.runId, {
        status: 'running',
        importCounts: next.counts,
        ...(next.writeRequestUnits !== undefined ? { writeRequestUnits: Math.round(next.writeRequestUnits) } : {}),
        progress: { applied: next.applied, total: next.total },
      });
      await this.deps.queue.send({ kind: 'import', ...this.work, step: next.step });
      return { result: this.result('stepped', next), continued: true };
    } catch (err) {
      stopBeating();
      const { failure } = describeFailure(err);
      if (err instanceof DomainError && err.code === CODE.IMPORT_PARTS_EXPIRED) {
        await this.end(session, 'failed', failure);
        return this.answer('ended', this.job);
      }
      // Tried again by the queue (after its visibility timeout) or by the resumer, up to MAX_STEP_ATTEMPTS.
      await this.save({ ...released(this.saved), lastFailure: failure }).catch(() => undefined);
      throw err;
    } finally {
      stopBeating();
    }
  }

  private answer(outcome: ImportStepResult['outcome'], job?: ImportJobDoc) {
    return { result: this.result(outcome, job), continued: false };
  }

  private result(outcome: ImportStepResult['outcome'], job?: ImportJobDoc): ImportStepResult {
    const status = this.endedAs ? { status: this.endedAs } : {};
    return job ? { outcome, ...status, phase: job.phase, applied: job.applied, total: job.total } : { outcome };
  }

  /** Replaces the job if no one else changed it (writes of this step one after the other); false once lost. */
  private save(next: ImportJobDoc): Promise<boolean> {
    const write = this.writing.then(async () => {
      if (this.lost) return false;
      const etag = await this.docs.replaceJob(next, this.etag);
      if (etag === undefined) {
        this.lost = true;
        return false;
      }
      this.saved = next;
      this.etag = etag;
      return true;
    });
    this.writing = write.catch(() => undefined);
    return write;
  }

  /** Renews the step's hold and the source's lease every STEP_HEARTBEAT_MS, at high priority. */
  private heartbeat(): () => void {
    const timer = setInterval(() => {
      void atHighPriority(async () => {
        if (this.lost) return;
        await this.save({ ...this.saved, heldUntil: iso(this.now() + STEP_LEASE_MS) });
        if (!this.job.dryRun) await renewJobLease(this.deps.store, this.work.partition, this.job.runId, this.now());
      }).catch(() => undefined);
    }, STEP_HEARTBEAT_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async keys(session: StagedImportDoc, sequence: number, hash: string) {
    const doc = await this.docs.readPartKeys(session.pk, session.importId, sequence, hash);
    if (!doc) throw partsGone();
    return doc.keys;
  }

  /** Does the work of the job's phase and asks the planner what follows; true when the run ended. */
  private async advance(session: StagedImportDoc): Promise<boolean> {
    const job = this.job;
    // A job stored in the 'finish' phase by an earlier version has only its end left.
    if (job.phase === 'finish') return this.endAs(session, { end: 'completed', job });
    const facts =
      job.phase === 'check'
        ? await this.check(session)
        : job.phase === 'apply'
          ? await this.apply(session)
          : await this.deleteAbsent(session);
    return this.endAs(session, planAfter(job, facts));
  }

  /** Takes the planner's next state: the job goes on (false), or its run ends (true). */
  private async endAs(session: StagedImportDoc, plan: JobPlan<ImportJobDoc>): Promise<boolean> {
    if ('next' in plan) {
      this.job = plan.next;
      return false;
    }
    this.job = plan.job;
    await this.end(session, plan.end, plan.end === 'rejected' ? plan.failure : undefined);
    return true;
  }

  /** The manifest's entries that `keep` accepts (all of them without it), and the source's size after the job. */
  private manifest(session: StagedImportDoc, keep: ((externalId: string) => boolean) | undefined) {
    return ImportManifest.load(this.deps.store, session.pk, { keep, live: this.job.total });
  }

  /**
   * Every part's keys of one hash range against the manifest's entries of that range: duplicates, the delete
   * guard, what the set changes. A set of more than rangeKeys identities takes a step per range.
   */
  private async check(session: StagedImportDoc): Promise<PhaseFacts> {
    const ranges = this.job.ranges ?? rangeCount(this.job.total, this.deps.rangeKeys ?? RANGE_KEYS);
    const range = this.job.range ?? 0;
    const keep = inRange(range, ranges);
    const check = new SetCheck((await this.manifest(session, keep)).entries);
    for (const [sequence, , hash] of session.parts)
      check.addPart(sequence, await this.keys(session, sequence, hash), keep);
    const strictestRatio = this.deps.importer.strictestDeleteRatio(this.job.maxDeletedRatio);
    return { phase: 'check', found: check.result(), strictestRatio, parts: session.parts.length, range, ranges };
  }

  /**
   * Parts in order, while the step's writes and reading time allow; their changed identities written. The
   * step reads the keys of the parts it may take (half of RANGE_KEYS, or at least one part), then the
   * manifest's entries of those keys only.
   */
  private async apply(session: StagedImportDoc): Promise<PhaseFacts> {
    const job = this.job;
    const started = this.now();
    const read: Array<Array<[string, string]>> = [];
    const wanted = new Set<string>();
    const most = (this.deps.rangeKeys ?? RANGE_KEYS) / 2;
    for (let i = job.nextPart; i < session.parts.length && (read.length === 0 || wanted.size < most); i++) {
      const [sequence, , hash] = session.parts[i] as [number, number, string];
      const keys = await this.keys(session, sequence, hash);
      read.push(keys);
      for (const [externalId] of keys) wanted.add(externalId);
    }
    const manifest = await this.manifest(session, (externalId) => wanted.has(externalId));
    wanted.clear();
    const creates: PlannedWrite[] = [];
    const updates: PlannedWrite[] = [];
    const counts = noCounts();
    let next = job.nextPart;
    let identities = 0;
    while (
      next - job.nextPart < read.length &&
      takesAnotherPart(
        { parts: next - job.nextPart, writes: creates.length + updates.length, elapsedMs: this.now() - started },
        this.stepWrites,
      )
    ) {
      const [sequence, , hash] = session.parts[next] as [number, number, string];
      const keys = read[next - job.nextPart] as Array<[string, string]>;
      const changed: number[] = [];
      keys.forEach(([externalId, h], index) => {
        if (manifest.entries.get(externalId)?.hash === h) counts.unchanged++;
        else changed.push(index);
      });
      if (changed.length > 0) {
        const body = await this.docs.readPartBody(session.pk, session.importId, sequence, hash);
        if (!body) throw partsGone();
        const changes = changed.map((index) => {
          const attributes = body.identities[index];
          const key = keys[index];
          if (!attributes || !key) throw partsGone();
          return { attributes, hash: key[1] };
        });
        const plan = planWrites(manifest.entries, changes, uuid7);
        creates.push(...plan.creates);
        updates.push(...plan.updates);
      }
      identities += keys.length;
      next++;
    }
    const requestUnits = await this.write(session, manifest, { creates, updates, deletions: [] }, counts);
    return { phase: 'apply', counts, identities, nextPart: next, parts: session.parts.length, requestUnits };
  }

  /**
   * Deletes (a bounded number of) the source's identities that no part holds, in the first hash range the
   * check found deletions in: the step holds that range's keys of the manifest and of the set.
   */
  private async deleteAbsent(session: StagedImportDoc): Promise<PhaseFacts> {
    const keep = inRange(this.job.deleteRanges?.[0] ?? 0, this.job.deleteRanges ? (this.job.ranges ?? 1) : 1);
    const manifest = await this.manifest(session, keep);
    const absent = new Set(manifest.entries.keys());
    for (const [sequence, , hash] of session.parts)
      for (const [externalId] of await this.keys(session, sequence, hash)) absent.delete(externalId);
    const deletions: Array<{ externalId: string; entry: ManifestEntry }> = [];
    for (const externalId of absent) {
      if (deletions.length >= this.stepWrites) break;
      const entry = manifest.entries.get(externalId);
      if (entry) deletions.push({ externalId, entry });
    }
    const counts = noCounts();
    const requestUnits = await this.write(session, manifest, { creates: [], updates: [], deletions }, counts);
    return { phase: 'delete', counts, more: absent.size > this.stepWrites, requestUnits };
  }

  /** Writes a step's identities and their manifest entries: what the store charged for them (request units). */
  private async write(
    session: StagedImportDoc,
    manifest: ImportManifest,
    plan: Parameters<Importer['writePlanned']>[4],
    counts: ImportCounts,
  ): Promise<number> {
    const { tenantId, source, runId } = this.job;
    const { requestUnits } = await measuringCharges(() =>
      this.deps.importer.writePlanned(tenantId, source, session.pk, manifest, plan, counts, runId),
    );
    return requestUnits;
  }

  /**
   * Ends the run (status and failure; undefined: leave the record as another import marked it), then the
   * job; gives the source back, and deletes the parts. Each part of it may be done again.
   */
  private async end(
    session: StagedImportDoc,
    status: 'completed' | 'rejected' | 'failed' | undefined,
    failure?: RunFailure,
  ): Promise<void> {
    const job = this.job;
    const pk = session.pk;
    this.endedAs = status;
    if (status) {
      const change: StagedRunChange = {
        status,
        endedAt: iso(this.now()),
        progress: { applied: status === 'completed' ? job.total : job.applied, total: job.total },
        ...(status !== 'rejected' ? { importCounts: job.counts } : {}),
        ...(job.writeRequestUnits !== undefined ? { writeRequestUnits: Math.round(job.writeRequestUnits) } : {}),
        ...(failure ? { failure } : {}),
      };
      await this.deps.runs.updateStaged(pk, job.runId, change);
    }
    const ended = { ...released(job), phase: 'done' as const, step: job.step + 1 };
    // Lost to another step (this one's hold had lapsed): that step ends the job, and needs the parts until then.
    if (!(await this.save(ended))) return;
    this.job = ended;
    await afterEnd(this.deps.store, job);
  }
}

/**
 * What follows a job's end, each part safe to do again: the source given back, the job off its organization's
 * count and off the resumer's list, and every stored part deleted (they hold personal data).
 */
async function afterEnd(store: Store, job: Pick<ImportJobDoc, 'pk' | 'importId' | 'runId' | 'tenantId' | 'dryRun'>) {
  const docs = new StagedStore(store);
  if (!job.dryRun) await releaseJobLease(store, job.pk, job.runId);
  await closeImport(store, job.tenantId, job.importId).catch(() => undefined);
  await docs.removeFromIndex(job.importId).catch(() => undefined);
  await docs.deleteParts(job.pk, job.importId).catch(() => undefined);
}

/** Ends the run of a job whose import's documents are gone (its time to live passed): nothing left to apply. */
async function expireJob(deps: ImportJobDeps, job: WithEtag<ImportJobDoc>, now: number): Promise<void> {
  const docs = new StagedStore(deps.store);
  const { _etag, ...doc } = job;
  await deps.runs.updateStaged(doc.pk, doc.runId, {
    status: 'failed',
    endedAt: iso(now),
    importCounts: doc.counts,
    progress: { applied: doc.applied, total: doc.total },
    failure: { code: partsGone().code, message: partsGone().message },
  });
  if ((await docs.replaceJob({ ...released(doc), phase: 'done' }, _etag)) === undefined) return;
  // Parts written near the session's end may outlive it.
  await afterEnd(deps.store, doc);
}

/** Removes a job whose completion was never recorded, with its run, its entry for the resumer and its lease. */
export async function discardUncommittedJob(
  store: Store,
  runs: RunHistory,
  job: Pick<ImportJobDoc, 'pk' | 'importId' | 'runId' | 'tenantId' | 'source' | 'dryRun'>,
): Promise<void> {
  const docs = new StagedStore(store);
  await docs.removeFromIndex(job.importId).catch(() => undefined);
  await runs.discardStaged(job.tenantId, job.source, job.runId).catch(() => undefined);
  if (!job.dryRun) await releaseJobLease(store, job.pk, job.runId);
  await docs.deleteJob(job.pk, job.importId);
}

export interface ResumeResult {
  /** Jobs listed as running. */
  listed: number;
  /** Handed to the queue again: their step stopped (its hold lapsed) or its message was lost. */
  resumed: number;
  /** Ended jobs taken off the list; completions that never recorded themselves removed. */
  cleaned: number;
}

/**
 * Hands every stopped job to the queue again (run by a timer every minute): a job whose step is not held
 * and was handed to the queue over RESUME_AFTER_MS ago has lost its message or its process. The job's lease
 * and run are marked alive, so its source stays held and its run does not read abandoned.
 */
export async function resumeImportJobs(deps: ImportJobDeps, now = Date.now()): Promise<ResumeResult> {
  const docs = new StagedStore(deps.store);
  const listed = await docs.indexedJobs();
  const result: ResumeResult = { listed: listed.length, resumed: 0, cleaned: 0 };
  for (const entry of listed) {
    const pk = entry.partition;
    const job = await docs.readJob(pk, entry.importId);
    const session = job ? await docs.readSessionIn(pk, entry.importId) : undefined;
    const state = !session ? 'missing' : session.runId === job?.runId ? 'committed' : 'uncommitted';
    const decision = resumeDecision(job, state, now);
    if (decision === 'expired' && job) {
      await expireJob(deps, job, now);
      result.cleaned++;
    } else if (decision === 'ended') {
      // Its end stopped part-way (or parts were written after it).
      await afterEnd(deps.store, { ...entry, pk, dryRun: job?.dryRun === true });
      result.cleaned++;
    } else if (decision === 'uncommitted' && job) {
      await discardUncommittedJob(deps.store, deps.runs, job);
      result.cleaned++;
    } else if (decision === 'resume' && job) {
      const { _etag, ...doc } = job;
      // Written only if unchanged: a step that took the job meanwhile keeps it.
      if ((await docs.replaceJob({ ...released(doc), enqueuedAt: iso(now) }, _etag)) === undefined) continue;
      if (!doc.dryRun) await renewJobLease(deps.store, pk, doc.runId, now);
      await deps.runs.updateStaged(pk, doc.runId, {});
      await deps.queue.send({
        kind: 'import',
        tenantId: doc.tenantId,
        partition: pk,
        importId: doc.importId,
        step: doc.step,
      });
      result.resumed++;
    }
  }
  return result;
}
