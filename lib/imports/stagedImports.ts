/**
 * Staged imports: a set of any size sent in bounded parts (startImport, addImportPart, completeImport),
 * each part checked and stored as it arrives, the whole set applied by a queued job (importJob.ts).
 * Atomicity as for a set in one request: the job checks the whole set before it writes anything.
 */
import type { Store } from '../store/store';
import { StoreError } from '../store/errors';
import { RETRY, retrying } from '../store/retryPolicy';
import type { WorkQueue } from '../background/workQueue';
import { partitionKey } from '../identities/model';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { customSourceKey, type ImportCounts } from './importer';
import type { ImportIdentityInput } from './importInput';
import { acquireJobLease, assertSourceFree } from './importLease';
import { closeImport, openImport, type ImportBounds } from './tenantImports';
import { discardUncommittedJob } from './importJob';
import type { RunHistory, RunStatus } from './runHistory';
import { checkSequence, missingSequences, preparePart } from './stagedParts';
import { contentHashKeyer } from '../crypto/contentHashes';
import {
  APPLY_WINDOW_SECONDS,
  JOB_TTL_SECONDS,
  StagedStore,
  secondsUntil,
  sessionId,
  type ImportJobDoc,
  type StagedImportDoc,
} from './stagedStore';
import { UNCOMMITTED_AFTER_MS } from './jobPlan';
import { CODE } from '../util/errorCodes';

export interface StagedImportSettings {
  /** IMPORT_PART_MAX_IDENTITIES */
  maxIdentitiesPerPart: number;
  /** IMPORT_MAX_IDENTITIES */
  maxIdentities: number;
  /** STAGED_IMPORT_TTL_SECONDS */
  ttlSeconds: number;
  /** IMPORT_MAX_OPEN_PER_TENANT and IMPORT_MAX_DRY_RUNS_PER_TENANT */
  perTenant: ImportBounds;
}

export interface StartedImport {
  importId: string;
  maxIdentitiesPerPart: number;
  expiresAt: string;
}

export interface AddedPart {
  importId: string;
  sequence: number;
  identities: number;
  partsReceived: number;
  identitiesReceived: number;
}

export interface CompletedImport {
  importId: string;
  runId: string;
  status: RunStatus;
}

export interface StagedImportView {
  importId: string;
  source: string;
  sequences: number[];
  identitiesReceived: number;
  expiresAt: string;
  runId: string | null;
}

/** Who asks, for the run record (never a value of the set). */
export interface StagedCaller {
  tenantId: string;
  clientId: string;
  correlationId: string;
}

/** A write of the session that lost to another writer (a part added at the same time): read again and try again. */
const sessionChanged = () => new StoreError('preconditionFailed', 'The import changed since it was read');

export function importNotFound(): DomainError {
  return new DomainError(
    CODE.IMPORT_NOT_FOUND,
    'No open staged import of your organization has this id: it is unknown, expired or already completed',
  );
}

function busy(): DomainError {
  return new DomainError(CODE.SERVICE_BUSY, 'The import is being changed by another request; retry shortly', [], {
    retryAfterSeconds: 1,
  });
}

export class StagedImports {
  private readonly docs: StagedStore;

  constructor(
    private readonly store: Store,
    private readonly runs: RunHistory,
    private readonly queue: WorkQueue,
    private readonly settings: StagedImportSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.docs = new StagedStore(store);
  }

  /**
   * Opens an import of a source (its name validated by the caller) for parts, until STAGED_IMPORT_TTL_SECONDS
   * from now; refused (IMPORT_IN_PROGRESS, naming the run) while another import of the source is applied.
   */
  async start(
    caller: StagedCaller,
    source: string,
    options: { dryRun: boolean; maxDeletedRatio?: number },
  ): Promise<StartedImport> {
    const now = this.now();
    const pk = partitionKey(caller.tenantId, customSourceKey(source));
    // A dry run writes nothing and holds no lease: it may run beside another import of the source.
    if (!options.dryRun) await assertSourceFree(this.store, pk, now);
    const importId = uuid7(now);
    const expiresAt = new Date(now + this.settings.ttlSeconds * 1000).toISOString();
    // Counted while open (until it expires), then while its job runs: a tenant queues boundedly many jobs.
    const entry = { tenantId: caller.tenantId, importId, dryRun: options.dryRun, until: Date.parse(expiresAt) };
    await openImport(this.store, this.settings.perTenant, entry, now);
    try {
      await this.docs.createSession({
        id: sessionId(importId),
        pk,
        kind: 'stagedImport',
        importId,
        tenantId: caller.tenantId,
        source,
        clientId: caller.clientId,
        dryRun: options.dryRun,
        ...(options.maxDeletedRatio !== undefined ? { maxDeletedRatio: options.maxDeletedRatio } : {}),
        createdAt: new Date(now).toISOString(),
        expiresAt,
        parts: [],
        identitiesReceived: 0,
        ttl: this.settings.ttlSeconds,
      });
    } catch (err) {
      // Not started after all: it does not count against the organization's bound.
      await closeImport(this.store, caller.tenantId, importId).catch(() => undefined);
      throw err;
    }
    return { importId, maxIdentitiesPerPart: this.settings.maxIdentitiesPerPart, expiresAt };
  }

  /** The open (not expired, not completed) session of an import of the tenant. */
  private async open(tenantId: string, importId: unknown) {
    const session = typeof importId === 'string' ? await this.docs.readSession(tenantId, importId) : undefined;
    if (!session || session.runId !== undefined || Date.parse(session.expiresAt) <= this.now()) throw importNotFound();
    return session;
  }

  /**
   * Checks and stores one part. The same sequence sent again with the same identities answers as before;
   * with other identities it is refused (IMPORT_PART_CONFLICT). Parts added at once are all counted: the
   * session is replaced only if unchanged since read, else read again.
   */
  async addPart(
    tenantId: string,
    input: { importId: unknown; sequence: unknown; identities: ImportIdentityInput[] },
  ): Promise<AddedPart> {
    const sequence = checkSequence(input.sequence);
    let session = await this.open(tenantId, input.importId);
    const part = preparePart(
      input.identities,
      this.settings.maxIdentitiesPerPart,
      await contentHashKeyer(this.store, tenantId),
    );
    let stored = false;
    /** Refuses the part; a copy of it this request stored (under its own hash, never the recorded part's) goes first. */
    const refuse = async (refusal: DomainError): Promise<never> => {
      if (stored) await this.docs.deletePart(session.pk, session.importId, sequence, part.hash);
      throw refusal;
    };
    // Parts of one import added at once race for its session: many tries, spread out (RETRY.contention).
    return retrying(
      RETRY.contention,
      async (tryNumber) => {
        if (tryNumber > 1) session = await this.open(tenantId, input.importId);
        const known = session.parts.find(([s]) => s === sequence);
        if (known) {
          if (known[2] !== part.hash)
            return refuse(
              new DomainError(
                CODE.IMPORT_PART_CONFLICT,
                `Part ${sequence} was received before with other identities; a part's sequence is sent again only with the same identities`,
              ),
            );
          return this.added(session, sequence, known[1]);
        }
        if (session.identitiesReceived + part.identities.length > this.settings.maxIdentities)
          return refuse(
            new DomainError(
              CODE.IMPORT_TOO_LARGE,
              `An import set holds at most ${this.settings.maxIdentities} identities (IMPORT_MAX_IDENTITIES); split the source or raise the limit`,
            ),
          );
        const now = this.now();
        if (!stored) {
          // Kept past the import's expiry for the apply window: a completed import's job reads them.
          const ttl = secondsUntil(session.expiresAt, now) + APPLY_WINDOW_SECONDS;
          await this.docs.writePart(
            session.pk,
            session.importId,
            sequence,
            { hash: part.hash, keys: part.keys, identities: part.identities.map((v) => v.attributes) },
            ttl,
          );
          stored = true;
        }
        const { _etag, ...doc } = session;
        const parts = [...doc.parts, [sequence, part.identities.length, part.hash] as [number, number, string]].sort(
          (a, b) => a[0] - b[0],
        );
        const next: StagedImportDoc = {
          ...doc,
          parts,
          identitiesReceived: doc.identitiesReceived + part.identities.length,
          ttl: secondsUntil(doc.expiresAt, now),
        };
        if (await this.docs.replaceSession(next, _etag)) return this.added(next, sequence, part.identities.length);
        throw sessionChanged();
      },
      { exhausted: busy },
    );
  }

  private added(session: StagedImportDoc, sequence: number, identities: number): AddedPart {
    return {
      importId: session.importId,
      sequence,
      identities,
      partsReceived: session.parts.length,
      identitiesReceived: session.identitiesReceived,
    };
  }

  /**
   * Accepts the set: the checks that need no part read (parts 1..n all there, not empty, not too large), then
   * the run (QUEUED) and the job on the queue; answered at once. The source is held for the job from here
   * (IMPORT_IN_PROGRESS while another import holds it; a dry run holds nothing). An empty set ends its run
   * REJECTED at once.
   */
  async complete(caller: StagedCaller, importId: unknown): Promise<CompletedImport> {
    return retrying(
      RETRY.contention,
      async () => {
        const session = await this.open(caller.tenantId, importId);
        const missing = missingSequences(session.parts.map(([s]) => s));
        if (missing.length > 0)
          throw new DomainError(
            CODE.IMPORT_PARTS_MISSING,
            `${missing.length} part(s) between 1 and the highest sequence received are missing (extensions.missing); send them, then complete the import`,
            [],
            { missing },
          );
        if (session.identitiesReceived > this.settings.maxIdentities)
          throw new DomainError(
            CODE.IMPORT_TOO_LARGE,
            `An import set holds at most ${this.settings.maxIdentities} identities (IMPORT_MAX_IDENTITIES); split the source or raise the limit`,
          );
        const outcome =
          session.parts.length === 0 ? await this.rejectEmpty(caller, session) : await this.queueJob(caller, session);
        if (outcome) return outcome;
        throw sessionChanged();
      },
      { exhausted: busy },
    );
  }

  private runStart(caller: StagedCaller, session: StagedImportDoc, runId: string) {
    return {
      tenantId: caller.tenantId,
      source: session.source,
      operation: 'import' as const,
      clientId: caller.clientId,
      correlationId: caller.correlationId,
      submitted: session.identitiesReceived,
      dryRun: session.dryRun,
      runId,
      importId: session.importId,
    };
  }

  /** Completion kept past the expiry for the apply window, as the parts are. */
  private completed(session: StagedImportDoc, runId: string): StagedImportDoc {
    const now = this.now();
    return {
      ...session,
      runId,
      completedAt: new Date(now).toISOString(),
      ttl: secondsUntil(session.expiresAt, now) + APPLY_WINDOW_SECONDS,
    };
  }

  private async rejectEmpty(
    caller: StagedCaller,
    session: StagedImportDoc & { _etag: string },
  ): Promise<CompletedImport | undefined> {
    const runId = uuid7(this.now());
    const { _etag, ...doc } = session;
    await this.runs.recordStaged(this.runStart(caller, doc, runId), {
      failure: {
        code: CODE.BAD_USER_INPUT,
        message: 'The import set is empty: no part was added; nothing was changed',
      },
    });
    if (!(await this.docs.replaceSession(this.completed(doc, runId), _etag))) {
      await this.runs.discardStaged(caller.tenantId, doc.source, runId).catch(() => undefined);
      return undefined;
    }
    await closeImport(this.store, caller.tenantId, doc.importId).catch(() => undefined);
    return { importId: doc.importId, runId, status: 'rejected' };
  }

  /**
   * The job, its run and the source's lease, then the session's completion (the commit: a session replaced
   * only if no part came in meanwhile), then the queue. Undone when the commit loses; a crash before it
   * leaves a job that the next completeImport, or the resumer, removes.
   */
  private async queueJob(
    caller: StagedCaller,
    session: StagedImportDoc & { _etag: string },
  ): Promise<CompletedImport | undefined> {
    const { _etag, ...doc } = session;
    const pk = doc.pk;
    const left = await this.docs.readJob(pk, doc.importId);
    if (left) {
      // A job no completion recorded: a completeImport that stopped part-way, or one running right now.
      if (this.now() - Date.parse(left.createdAt) <= UNCOMMITTED_AFTER_MS) throw busy();
      await this.undo(left);
    }
    const now = this.now();
    const runId = uuid7(now);
    const job: ImportJobDoc = {
      id: `job-${doc.importId}`,
      pk,
      kind: 'importJob',
      importId: doc.importId,
      runId,
      tenantId: caller.tenantId,
      source: doc.source,
      dryRun: doc.dryRun,
      ...(doc.maxDeletedRatio !== undefined ? { maxDeletedRatio: doc.maxDeletedRatio } : {}),
      createdAt: new Date(now).toISOString(),
      phase: 'check',
      step: 0,
      nextPart: 0,
      applied: 0,
      total: doc.identitiesReceived,
      counts: { created: 0, updated: 0, deleted: 0, unchanged: 0 } satisfies ImportCounts,
      attempts: 0,
      enqueuedAt: new Date(now).toISOString(),
      ttl: secondsUntil(doc.expiresAt, now) + APPLY_WINDOW_SECONDS + JOB_TTL_SECONDS,
    };
    if (!(await this.docs.createJob(job))) throw busy();
    // Listed first: whatever stops this completion part-way, the resumer finds the job and removes it.
    await this.docs.addToIndex(job);
    try {
      if (!doc.dryRun) await acquireJobLease(this.store, pk, runId, now, doc.importId);
    } catch (err) {
      await this.undo(job).catch(() => undefined);
      throw err;
    }
    await this.runs.recordStaged(this.runStart(caller, doc, runId));
    if (!(await this.docs.replaceSession(this.completed(doc, runId), _etag))) {
      await this.undo(job);
      return undefined;
    }
    // Counted until its job ends (which takes it off), at most for the apply window.
    const until = Date.parse(doc.expiresAt) + APPLY_WINDOW_SECONDS * 1000;
    await openImport(this.store, this.settings.perTenant, { ...job, until }, now).catch(() => undefined);
    // Not sent (the queue failing now): the resumer hands the job to the queue within a few minutes.
    await this.queue
      .send({ kind: 'import', tenantId: caller.tenantId, partition: pk, importId: doc.importId, step: 0 })
      .catch(() => undefined);
    return { importId: doc.importId, runId, status: 'queued' };
  }

  /** Removes a job whose completion was never recorded, with its run, its entry for the resumer and its lease. */
  private async undo(job: ImportJobDoc): Promise<void> {
    await discardUncommittedJob(this.store, this.runs, job);
  }

  /** A staged import of the tenant, open or completed; undefined when unknown or expired. */
  async get(tenantId: string, importId: string): Promise<StagedImportView | undefined> {
    const session = await this.docs.readSession(tenantId, importId);
    if (!session) return undefined;
    if (session.runId === undefined && Date.parse(session.expiresAt) <= this.now()) return undefined;
    return {
      importId: session.importId,
      source: session.source,
      sequences: session.parts.map(([s]) => s),
      identitiesReceived: session.identitiesReceived,
      expiresAt: session.expiresAt,
      runId: session.runId ?? null,
    };
  }
}
