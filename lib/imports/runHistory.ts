/**
 * Run history of imports and associations: one record per run in the source's partition of the
 * `imports` container (beside its lease and manifest), written when the run starts and again when it
 * ends, and removed by the container's time to live after RUN_TTL_DAYS. A record holds who started the
 * run (the client application), when, the outcome and the counts; a failure is described by an error
 * code and a message of the service's own words, never a submitted value. A run's id is a plain UUID
 * (it says nothing the caller sent); a pointer in the organization's `_runs` partition names the source
 * partition its record is in.
 */
import type { Store, StoredDoc } from '../store/store';
import { StoreError } from '../store/errors';
import { partitionKey } from '../identities/model';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { RETRY, readModifyWrite, retrying } from '../store/retryPolicy';
import { DirectoryUnavailableError, directoryCallAdvice } from '../directory/directoryTrouble';
import type { Logger } from '../log/logger';
import { customSourceKey, type ImportCounts } from './importer';
import { JOB_LEASE_MS, LEASE_MS, leaseHeldBy } from './importLease';
import { CODE } from '../util/errorCodes';
import { runsNewestFirst } from '../store/queries/imports';

export type RunOperation = 'import' | 'association';
/** `queued`: a staged import accepted by completeImport whose job has not started yet. */
export type RunStatus = 'queued' | 'running' | 'completed' | 'rejected' | 'failed';
/**
 * `abandoned`: an import whose lease is no longer renewed (its process stopped), marked so by the next
 * import of the source or reported so on reading; an association still `running` after the host's time limit;
 * a staged import whose job nothing has worked on (no step, no resumption) for JOB_LEASE_MS.
 */
export type ReportedRunStatus = RunStatus | 'abandoned';

export interface AssociationCounts {
  associated: number;
  unchanged: number;
  unknownExternalIds: number;
  unknownUserPrincipalNames: number;
  conflictingUserPrincipalNames: number;
  /** Pairs that still failed after their retries; the caller was told to send them again. */
  notDone: number;
}

export interface RunFailure {
  code: string;
  message: string;
}

interface RunDoc extends StoredDoc {
  kind: 'run';
  runId: string;
  operation: RunOperation;
  source: string;
  clientId: string;
  correlationId: string;
  status: ReportedRunStatus;
  startedAt: string;
  endedAt?: string;
  /** Identities or pairs the request carried. */
  submitted: number;
  /** An import that only counted what it would write. */
  dryRun?: boolean;
  importCounts?: ImportCounts;
  associationCounts?: AssociationCounts;
  failure?: RunFailure;
  /** A staged import: the import whose set the run applies. */
  importId?: string;
  /** A staged import: identities applied so far, of the set's total. */
  progress?: RunProgress;
  /** A staged import: when a step of its job or the resumer last worked on it. */
  aliveAt?: string;
  /**
   * A staged import: request units the store charged for its writes (identities created, updated or deleted,
   * and their manifest entries); divided by the changed identities, what a changed identity costs.
   */
  writeRequestUnits?: number;
  ttl: number;
}

export interface RunProgress {
  applied: number;
  total: number;
}

/** What a staged import's job changes in its run record as it goes. */
export type StagedRunChange = Partial<
  Pick<RunDoc, 'status' | 'importCounts' | 'progress' | 'failure' | 'endedAt' | 'writeRequestUnits'>
>;

export interface RunView {
  id: string;
  operation: RunOperation;
  source: string;
  clientId: string;
  correlationId: string;
  status: ReportedRunStatus;
  startedAt: string;
  endedAt: string | null;
  submitted: number;
  dryRun: boolean;
  importCounts: ImportCounts | null;
  associationCounts: AssociationCounts | null;
  failure: RunFailure | null;
  progress: RunProgress | null;
}

export const RUN_TTL_DAYS = 90;
/**
 * An import still `running` this long after its start was stopped once it no longer holds its lease
 * (taken just after the start, renewed while the run lives).
 */
export const RUN_LIMIT_MS = LEASE_MS;
/** An association still `running` this long after its start was stopped by the host (functionTimeout in host.json). */
export const ASSOCIATION_LIMIT_MS = 10 * 60_000;
export const MAX_LISTED_RUNS = 100;

/** Codes of requests refused before anything was written. */
const REJECTIONS: ReadonlySet<string> = new Set<string>([
  CODE.BAD_USER_INPUT,
  CODE.IMPORT_TOO_LARGE,
  CODE.IMPORT_DELETE_LIMIT_EXCEEDED,
  CODE.ASSOCIATION_TOO_LARGE,
  CODE.IMPORT_IN_PROGRESS,
]);

interface RunPointerDoc extends StoredDoc {
  kind: 'runPointer';
  source: string;
  ttl: number;
}

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The partition of an organization's run pointers (custom sources are `src:<name>`, so no source has this key). */
function pointerPartition(tenantId: string): string {
  return partitionKey(tenantId, '_runs');
}

/** What failed, in the service's words: domain messages never carry values, other failures get a fixed text. */
export function describeFailure(err: unknown): { status: 'rejected' | 'failed'; failure: RunFailure } {
  if (err instanceof DomainError)
    return {
      status: REJECTIONS.has(err.code) ? 'rejected' : 'failed',
      failure: { code: err.code, message: err.message },
    };
  if (err instanceof StoreError) {
    return {
      status: 'failed',
      failure: {
        code: `STORE_${err.failure.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
        message: 'The store refused a write part-way; run the same request again: it continues from what was written',
      },
    };
  }
  if (err instanceof DirectoryUnavailableError)
    return {
      status: 'failed',
      failure: { code: CODE.DIRECTORY_UNAVAILABLE, message: directoryCallAdvice(err.reason) },
    };
  return {
    status: 'failed',
    failure: {
      code: CODE.INTERNAL_ERROR,
      message: 'Unexpected failure; the service log has the details under the run\u2019s correlation id',
    },
  };
}

export interface RunStart {
  tenantId: string;
  /** The custom source name (validated). */
  source: string;
  operation: RunOperation;
  clientId: string;
  correlationId: string;
  submitted: number;
  dryRun?: boolean;
}

/** How a run that returned ended: its counts, and a failure when it did only part of its work. */
export interface RunEnd {
  importCounts?: ImportCounts;
  associationCounts?: AssociationCounts;
  failure?: RunFailure;
}

/** Handed to the work of a run: its public id, and counts it fills in as it goes (kept when it fails part-way). */
export interface RunHandle {
  id: string;
  importCounts: ImportCounts;
}

export class RunHistory {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  private col() {
    return this.store.collection<RunDoc>('imports');
  }

  private startDocs(start: RunStart, runId: string, status: RunStatus): { pointer: RunPointerDoc; doc: RunDoc } {
    const ttl = RUN_TTL_DAYS * 24 * 3600;
    return {
      pointer: { id: runId, pk: pointerPartition(start.tenantId), kind: 'runPointer', source: start.source, ttl },
      doc: {
        id: `run-${runId}`,
        pk: partitionKey(start.tenantId, customSourceKey(start.source)),
        kind: 'run',
        runId,
        operation: start.operation,
        source: start.source,
        clientId: start.clientId,
        correlationId: start.correlationId,
        status,
        startedAt: new Date(this.now()).toISOString(),
        submitted: start.submitted,
        ...(start.dryRun ? { dryRun: true } : {}),
        ttl,
      },
    };
  }

  /**
   * Records a staged import's run as `queued` (its job applies the set in the background), or at once as
   * `rejected` with its failure when completeImport refused the set.
   */
  async recordStaged(
    start: RunStart & { runId: string; importId: string },
    end?: { failure: RunFailure },
  ): Promise<void> {
    const { pointer, doc } = this.startDocs(start, start.runId, end ? 'rejected' : 'queued');
    const now = new Date(this.now()).toISOString();
    const staged: RunDoc = {
      ...doc,
      importId: start.importId,
      progress: { applied: 0, total: start.submitted },
      aliveAt: now,
      ...(end ? { failure: end.failure, endedAt: now } : {}),
    };
    await retrying(RETRY.background, () => this.store.collection<RunPointerDoc>('imports').create(pointer));
    await retrying(RETRY.background, () => this.col().create(staged));
  }

  /** Removes a staged run recorded by a completeImport that then lost its race (another completed the import). */
  async discardStaged(tenantId: string, source: string, runId: string): Promise<void> {
    await retrying(RETRY.background, () =>
      this.col().delete(partitionKey(tenantId, customSourceKey(source)), `run-${runId}`),
    );
    await retrying(RETRY.background, () =>
      this.store.collection<RunPointerDoc>('imports').delete(pointerPartition(tenantId), runId),
    );
  }

  /**
   * Changes a staged run's record as its job goes (status, counts, progress, failure, end) and marks it alive.
   * A record that has ended is not changed again.
   */
  async updateStaged(pk: string, runId: string, change: StagedRunChange): Promise<void> {
    await readModifyWrite(
      this.col(),
      pk,
      `run-${runId}`,
      (current) => {
        if (current?.kind !== 'run' || current.endedAt !== undefined) return undefined;
        const { _etag, ...doc } = current;
        return { ...doc, ...change, aliveAt: new Date(this.now()).toISOString() };
      },
      RETRY.changed,
      { each: RETRY.background },
    );
  }

  /**
   * Records a run around `work`: a `running` record first, then the outcome. The work's own failure is
   * passed on; a failure to write the final record is logged and leaves the run to be reported abandoned.
   */
  async record<R>(
    start: RunStart,
    log: Logger,
    work: (run: RunHandle) => Promise<R>,
    outcome: (result: R) => RunEnd,
  ): Promise<{ result: R; runId: string }> {
    const runId = uuid7(this.now());
    const { pointer, doc } = this.startDocs(start, runId, 'running');
    // Run records share the source's partition with the manifest, whose writes may use up the container's request units.
    await retrying(RETRY.background, () => this.store.collection<RunPointerDoc>('imports').create(pointer));
    await retrying(RETRY.background, () => this.col().create(doc));
    const handle: RunHandle = { id: runId, importCounts: { created: 0, updated: 0, deleted: 0, unchanged: 0 } };
    const fields = { tenantId: start.tenantId, runId: handle.id, operation: start.operation };
    let result: R;
    try {
      result = await work(handle);
    } catch (err) {
      const { status, failure } = describeFailure(err);
      const partial = start.operation === 'import' && status === 'failed' ? { importCounts: handle.importCounts } : {};
      await this.finish(doc, { status, failure, ...partial }, log);
      log.info('run ended', { ...fields, status, code: failure.code });
      throw err;
    }
    const end = outcome(result);
    const status = end.failure ? 'failed' : 'completed';
    await this.finish(doc, { status, ...end }, log);
    log.info('run ended', { ...fields, status, ...(end.failure ? { code: end.failure.code } : {}) });
    return { result, runId: handle.id };
  }

  private async finish(doc: RunDoc, end: Partial<RunDoc>, log: Logger): Promise<void> {
    try {
      const ended = { ...doc, ...end, endedAt: new Date(this.now()).toISOString() };
      await retrying(RETRY.background, () => this.col().replace(ended));
    } catch (err) {
      log.warn('run record not updated at the end of the run; it will be reported abandoned', {
        tenantId: doc.pk.split('|')[0],
        runId: doc.runId,
        failure: err instanceof StoreError ? err.failure : 'unexpected',
      });
    }
  }

  /** The newest runs of a source partition first (at most MAX_LISTED_RUNS). */
  async list(pk: string, first: number): Promise<RunView[]> {
    const top = Math.max(1, Math.min(first, MAX_LISTED_RUNS));
    const page = await this.col().page(runsNewestFirst(pk, top), { maxItemCount: top });
    return Promise.all(page.items.map((d) => this.view(d)));
  }

  /**
   * Runs of a source partition newest first, for its activity: ids below `beforeId` and from `sinceId` on
   * (run ids sort by start time), of the given stored statuses when named; at most MAX_LISTED_RUNS.
   */
  async page(
    pk: string,
    options: { beforeId?: string; sinceId?: string; statuses?: readonly ReportedRunStatus[]; limit: number },
  ): Promise<RunView[]> {
    const top = Math.max(1, Math.min(options.limit, MAX_LISTED_RUNS));
    const query = runsNewestFirst(pk, top, {
      beforeId: options.beforeId,
      sinceId: options.sinceId,
      statuses: options.statuses,
    });
    const page = await this.col().page(query, { maxItemCount: top });
    return Promise.all(page.items.map((d) => this.view(d)));
  }

  /** One run of the caller's organization by its id; undefined when there is none. */
  async get(tenantId: string, id: string): Promise<RunView | undefined> {
    if (!UUID7.test(id)) return undefined;
    const pointer = await this.store.collection<RunPointerDoc>('imports').read(pointerPartition(tenantId), id);
    if (pointer?.kind !== 'runPointer') return undefined;
    const doc = await this.col().read(partitionKey(tenantId, customSourceKey(pointer.source)), `run-${id}`);
    return doc?.kind === 'run' ? this.view(doc) : undefined;
  }

  private async isAbandoned(d: RunDoc): Promise<boolean> {
    if (d.status !== 'running' && d.status !== 'queued') return false;
    // A staged import's job: steps and the resumer mark it alive; the lease is not the sign (a dry run has none).
    if (d.importId !== undefined) return this.now() - Date.parse(d.aliveAt ?? d.startedAt) > JOB_LEASE_MS;
    const limit = d.operation === 'import' ? RUN_LIMIT_MS : ASSOCIATION_LIMIT_MS;
    if (this.now() - Date.parse(d.startedAt) <= limit) return false;
    return d.operation !== 'import' || !(await leaseHeldBy(this.store, d.pk, d.runId, this.now()));
  }

  private async view(d: RunDoc): Promise<RunView> {
    const abandoned = await this.isAbandoned(d);
    return {
      id: d.runId,
      operation: d.operation,
      source: d.source,
      clientId: d.clientId,
      correlationId: d.correlationId,
      status: abandoned ? 'abandoned' : d.status,
      startedAt: d.startedAt,
      endedAt: d.endedAt ?? null,
      submitted: d.submitted,
      dryRun: d.dryRun === true,
      importCounts: d.importCounts ?? null,
      associationCounts: d.associationCounts ?? null,
      failure: d.failure ?? null,
      progress: d.progress ?? null,
    };
  }
}
