/**
 * The documents of a staged import in the `imports` container, in the source's partition
 * (`<tenantId>|src:<source>`, beside its manifest, lease and runs):
 * - the session (`import-<importId>`): who started it, until when, and the parts received
 *   ([sequence, identities, hash]); it gets the run id when completeImport accepts the set;
 * - per part, its keys (externalId and content hash of each identity, small: what the job compares with
 *   the manifest) and its body (the validated identities, read only where something changed). A part's
 *   documents are named by its sequence and content hash, so a conflicting resend never overwrites the part
 *   the session recorded;
 * - the job (`job-<importId>`): the progress of applying the set (phase, next part, counts), its step lease;
 * and outside the source's partition a pointer from the import id to its source (`<tenantId>|_imports`,
 * checked against the caller's organization) and, while the job runs, an entry in `_jobs`, which the
 * resumer reads to hand a stopped job to the queue again.
 * Everything carries `ttl`: an import never completed disappears when it expires; its parts a day later.
 */
import type { IdentityAttributes } from '../identities/model';
import type { Store, StoredDoc, WithEtag } from '../store/store';
import { partitionKey } from '../identities/model';
import { forEachBounded } from '../util/concurrency';
import { RETRY, retrying } from '../store/retryPolicy';
import { isStoreError } from '../store/errors';
import { customSourceKey, type ImportCounts } from './importer';
import type { RunFailure } from './runHistory';
import type { JobPhase, JobState, SetCheckResult } from './jobPlan';
import { importPartIds, indexedJobs } from '../store/queries/imports';

/** A completed import's parts, session and job are kept this long past its expiry, for its job to apply it. */
export const APPLY_WINDOW_SECONDS = 24 * 3600;
/** A job's documents outlive its end by this much at most (its end deletes them; this is for leftovers). */
export const JOB_TTL_SECONDS = 7 * 24 * 3600;
/** The partition of the resumer's list of running jobs (tenant ids are GUIDs, so no tenant's partition is this). */
export const JOBS_PARTITION = '_jobs';

export interface StagedImportDoc extends StoredDoc {
  kind: 'stagedImport';
  importId: string;
  tenantId: string;
  source: string;
  clientId: string;
  dryRun: boolean;
  maxDeletedRatio?: number;
  createdAt: string;
  expiresAt: string;
  /** [sequence, identities, part hash] of each part received, ascending by sequence. */
  parts: Array<[number, number, string]>;
  identitiesReceived: number;
  /** Set when completeImport accepted the set. */
  runId?: string;
  completedAt?: string;
  ttl: number;
}

interface PointerDoc extends StoredDoc {
  kind: 'stagedImportPointer';
  source: string;
  ttl: number;
}

export interface PartKeysDoc extends StoredDoc {
  kind: 'importPartKeys';
  importId: string;
  sequence: number;
  hash: string;
  keys: Array<[string, string]>;
  ttl: number;
}

export interface PartBodyDoc extends StoredDoc {
  kind: 'importPartBody';
  importId: string;
  sequence: number;
  hash: string;
  identities: IdentityAttributes[];
  ttl: number;
}

export interface ImportJobDoc extends StoredDoc, JobState {
  kind: 'importJob';
  importId: string;
  runId: string;
  tenantId: string;
  source: string;
  dryRun: boolean;
  maxDeletedRatio?: number;
  phase: JobPhase;
  /** Index (in the session's parts) of the next part to apply. */
  nextPart: number;
  applied: number;
  total: number;
  counts: ImportCounts;
  /** What the set changes, found by the check before anything was written. */
  planned?: ImportCounts;
  /** Request units the store charged for the job's writes so far. */
  writeRequestUnits?: number;
  /** The hash ranges of the keys the set is checked in (absent: one), the range the check is at, what it found before. */
  ranges?: number;
  range?: number;
  checked?: SetCheckResult;
  /** The ranges whose deletions are left, in order (absent in the delete phase: the whole source at once). */
  deleteRanges?: number[];
  lastFailure?: RunFailure;
  ttl: number;
}

export interface JobIndexDoc extends StoredDoc {
  kind: 'importJobIndex';
  tenantId: string;
  importId: string;
  runId: string;
  /** The source's partition, where the job's documents are. */
  partition: string;
  ttl: number;
}

export const sessionId = (importId: string) => `import-${importId}`;
export const jobId = (importId: string) => `job-${importId}`;
const keysId = (importId: string, sequence: number, hash: string) => `import-${importId}-k${sequence}-${hash}`;
const bodyId = (importId: string, sequence: number, hash: string) => `import-${importId}-b${sequence}-${hash}`;

function pointerPartition(tenantId: string): string {
  return partitionKey(tenantId, '_imports');
}

/** The pointer from an import's id to its source, living as long as its session. */
function pointerTo(session: StagedImportDoc): PointerDoc {
  const { importId: id, tenantId, source, ttl } = session;
  return { id, pk: pointerPartition(tenantId), kind: 'stagedImportPointer', source, ttl };
}

/** Seconds from `now` until `at` (at least 1: Cosmos DB takes a positive ttl). */
export function secondsUntil(at: string, now: number): number {
  return Math.max(1, Math.ceil((Date.parse(at) - now) / 1000));
}

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class StagedStore {
  constructor(private readonly store: Store) {}

  private col<T extends StoredDoc>() {
    return this.store.collection<T>('imports');
  }

  async createSession(session: StagedImportDoc): Promise<void> {
    await retrying(RETRY.background, () => this.col<PointerDoc>().create(pointerTo(session)));
    await retrying(RETRY.background, () => this.col<StagedImportDoc>().create(session));
  }

  /** The session of an import of the tenant, whatever its state; undefined when there is none (any more). */
  async readSession(tenantId: string, importId: string): Promise<WithEtag<StagedImportDoc> | undefined> {
    if (!UUID7.test(importId)) return undefined;
    const pointer = await retrying(RETRY.background, () =>
      this.col<PointerDoc>().read(pointerPartition(tenantId), importId),
    );
    if (pointer?.kind !== 'stagedImportPointer') return undefined;
    const session = await retrying(RETRY.background, () =>
      this.col<StagedImportDoc>().read(partitionKey(tenantId, customSourceKey(pointer.source)), sessionId(importId)),
    );
    return session?.kind === 'stagedImport' && session.tenantId === tenantId ? session : undefined;
  }

  async readSessionIn(pk: string, importId: string): Promise<StagedImportDoc | undefined> {
    const session = await retrying(RETRY.background, () => this.col<StagedImportDoc>().read(pk, sessionId(importId)));
    return session?.kind === 'stagedImport' ? session : undefined;
  }

  /** Replaces the session if it is unchanged since read (its pointer's time to live follows it); false otherwise. */
  async replaceSession(session: StagedImportDoc, etag: string): Promise<boolean> {
    try {
      await retrying(RETRY.background, () => this.col<StagedImportDoc>().replace(session, etag));
    } catch (err) {
      if (isPrecondition(err)) return false;
      throw err;
    }
    await retrying(RETRY.background, () => this.col<PointerDoc>().upsert(pointerTo(session)));
    return true;
  }

  /** Stores a part's keys and body (again, when it is sent again before the session recorded it). */
  async writePart(
    pk: string,
    importId: string,
    sequence: number,
    part: { hash: string; keys: Array<[string, string]>; identities: IdentityAttributes[] },
    ttl: number,
  ): Promise<void> {
    const { hash } = part;
    const body: PartBodyDoc = {
      id: bodyId(importId, sequence, hash),
      pk,
      kind: 'importPartBody',
      importId,
      sequence,
      hash,
      identities: part.identities,
      ttl,
    };
    const keys: PartKeysDoc = {
      id: keysId(importId, sequence, hash),
      pk,
      kind: 'importPartKeys',
      importId,
      sequence,
      hash,
      keys: part.keys,
      ttl,
    };
    await retrying(RETRY.background, () => this.col<PartBodyDoc>().upsert(body));
    await retrying(RETRY.background, () => this.col<PartKeysDoc>().upsert(keys));
  }

  async readPartKeys(pk: string, importId: string, sequence: number, hash: string): Promise<PartKeysDoc | undefined> {
    return retrying(RETRY.background, () => this.col<PartKeysDoc>().read(pk, keysId(importId, sequence, hash)));
  }

  async readPartBody(pk: string, importId: string, sequence: number, hash: string): Promise<PartBodyDoc | undefined> {
    return retrying(RETRY.background, () => this.col<PartBodyDoc>().read(pk, bodyId(importId, sequence, hash)));
  }

  /**
   * Deletes every stored part of an import (its job has ended; they hold personal data no longer needed):
   * those its session recorded and any other (a resend refused in a race, a write whose session update
   * never came), found by one query of the partition.
   */
  async deleteParts(pk: string, importId: string): Promise<void> {
    const ids = await retrying(RETRY.background, () => this.col().all(importPartIds(pk, importId)));
    await forEachBounded(ids, 8, (id) => this.deletePartDoc(pk, id));
  }

  /** Deletes one part's documents (keys and body) stored under its sequence and hash. */
  async deletePart(pk: string, importId: string, sequence: number, hash: string): Promise<void> {
    for (const id of [keysId(importId, sequence, hash), bodyId(importId, sequence, hash)])
      await this.deletePartDoc(pk, id);
  }

  private async deletePartDoc(pk: string, id: string): Promise<void> {
    await retrying(RETRY.background, () => this.col().delete(pk, id));
  }

  async readJob(pk: string, importId: string): Promise<WithEtag<ImportJobDoc> | undefined> {
    const job = await retrying(RETRY.background, () => this.col<ImportJobDoc>().read(pk, jobId(importId)));
    return job?.kind === 'importJob' ? job : undefined;
  }

  /** Creates the job; false when one exists already. */
  async createJob(job: ImportJobDoc): Promise<boolean> {
    try {
      await retrying(RETRY.background, () => this.col<ImportJobDoc>().create(job));
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** Replaces the job if unchanged since `etag`: its new entity tag, or undefined when another writer came first. */
  async replaceJob(job: ImportJobDoc, etag: string): Promise<string | undefined> {
    try {
      return (await retrying(RETRY.background, () => this.col<ImportJobDoc>().replace(job, etag)))._etag;
    } catch (err) {
      if (isPrecondition(err)) return undefined;
      throw err;
    }
  }

  async deleteJob(pk: string, importId: string): Promise<void> {
    await retrying(RETRY.background, () => this.col().delete(pk, jobId(importId)));
  }

  async addToIndex(job: ImportJobDoc): Promise<void> {
    const entry: JobIndexDoc = {
      id: job.importId,
      pk: JOBS_PARTITION,
      kind: 'importJobIndex',
      tenantId: job.tenantId,
      importId: job.importId,
      runId: job.runId,
      partition: job.pk,
      ttl: JOB_TTL_SECONDS,
    };
    await retrying(RETRY.background, () => this.col<JobIndexDoc>().upsert(entry));
  }

  async removeFromIndex(importId: string): Promise<void> {
    await retrying(RETRY.background, () => this.col().delete(JOBS_PARTITION, importId));
  }

  /** The jobs not known to have ended (bounded by the sources importing at once). */
  async indexedJobs(): Promise<JobIndexDoc[]> {
    return this.col<JobIndexDoc>().all(indexedJobs(JOBS_PARTITION), { maxItemCount: 100 });
  }
}

const isPrecondition = (err: unknown) => isStoreError(err, 'preconditionFailed');
const isConflict = (err: unknown) => isStoreError(err, 'conflict');
