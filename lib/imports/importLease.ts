/**
 * One import per source at a time: a lease document with an expiry, taken atomically.
 * - An import in one request (importBusinessIdentities) renews it by a heartbeat while the run lives. A run
 *   whose process died stops renewing, so the source is free again within LEASE_MS (the next import takes it
 *   over and marks the dead run abandoned), not after the host's time limit.
 * - A staged import holds it from completeImport until its job ends, across the queue messages of its steps
 *   (marked `job`). No process lives that long, so the job's lease lasts JOB_LEASE_MS and is renewed by each
 *   step (start and heartbeat) and by the resumer that hands a stopped job to the queue again (every minute).
 *   A job's lease lapses only when nothing has worked on the job for JOB_LEASE_MS: the queue and the resumer
 *   are both down. The next import then takes the source over and the run reads abandoned, as above.
 */
import { randomUUID } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { isStoreError } from '../store/errors';
import { DomainError } from '../util/domainError';
import { RETRY, retrying } from '../store/retryPolicy';
import { atHighPriority } from '../store/priority';
import { CODE } from '../util/errorCodes';

interface LeaseDoc extends StoredDoc {
  kind: 'lease';
  holder: string;
  expiresAt: string;
  /** The run holding the lease (see runHistory.ts), so a refused caller can follow it. */
  runId?: string;
  /** Held by the job of this staged import (renewed per step, not by a heartbeat). */
  job?: string;
}

/** The part of a run record (runHistory.ts) a takeover marks. */
interface StaleRunDoc extends StoredDoc {
  kind: 'run';
  status: string;
  endedAt?: string;
  failure?: { code: string; message: string };
}

/** How long a lease lives without a heartbeat. */
export const LEASE_MS = 60_000;
/** How long a staged import's job holds its source without a step or the resumer renewing it. */
export const JOB_LEASE_MS = 10 * 60_000;
/** How often a live run renews its lease: several renewals fit in LEASE_MS, so one slow write loses nothing. */
export const LEASE_RENEW_MS = 15_000;

/** Time as the lease sees it; tests pass their own to move time without waiting. */
export interface LeaseClock {
  now(): number;
  /** Calls `beat` every `ms` until the returned function is called. */
  every(ms: number, beat: () => void): () => void;
}

export const SYSTEM_LEASE_CLOCK: LeaseClock = {
  now: () => Date.now(),
  every: (ms, beat) => {
    const timer = setInterval(beat, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export interface ImportLease {
  /** Extends the lease by LEASE_MS from now; false once another run has taken it (the heartbeat then stops). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** Whether the source's lease is held, unexpired, by the run with this id. */
export async function leaseHeldBy(store: Store, pk: string, runId: string, now = Date.now()): Promise<boolean> {
  const lease = await store.collection<LeaseDoc>('imports').read(pk, 'lease');
  return lease?.runId === runId && Date.parse(lease.expiresAt) > now;
}

/** The run whose lease expired stopped without recording its end: its record says so (best effort). */
async function markAbandoned(store: Store, pk: string, runId: string, now: number): Promise<void> {
  const col = store.collection<StaleRunDoc>('imports');
  const run = await col.read(pk, `run-${runId}`);
  if (run?.kind !== 'run' || (run.status !== 'running' && run.status !== 'queued')) return;
  const { _etag, ...doc } = run;
  await col.replace(
    {
      ...doc,
      status: 'abandoned',
      endedAt: new Date(now).toISOString(),
      failure: {
        code: CODE.RUN_ABANDONED,
        message: 'The run stopped without finishing (its lease was no longer renewed); send the import again',
      },
    },
    _etag,
  );
}

/**
 * Refuses at once (IMPORT_IN_PROGRESS, naming the holding run) while another import holds the source: a
 * staged import is not started, so its client uploads nothing that completeImport would refuse.
 */
export async function assertSourceFree(store: Store, pk: string, now: number): Promise<void> {
  const lease = await retrying(RETRY.background, () => store.collection<LeaseDoc>('imports').read(pk, 'lease'));
  if (lease && Date.parse(lease.expiresAt) > now) throw inProgress(lease.runId);
}

function inProgress(holderRunId: string | undefined): DomainError {
  return new DomainError(
    CODE.IMPORT_IN_PROGRESS,
    'Another import of this source is running; follow it with the importRun query (extensions.runId) or retry when it has finished',
    [],
    holderRunId ? { runId: holderRunId } : {},
  );
}

/**
 * Takes the source for the job (run `runId`) of staged import `importId` until JOB_LEASE_MS from `now`:
 * IMPORT_IN_PROGRESS while another import holds it; a lapsed lease is taken over and its run marked
 * abandoned. A lease left by an earlier, unfinished completion of the same import is taken over too.
 */
export async function acquireJobLease(
  store: Store,
  pk: string,
  runId: string,
  now: number,
  importId: string,
): Promise<void> {
  const col = store.collection<LeaseDoc>('imports');
  const doc: LeaseDoc = {
    id: 'lease',
    pk,
    kind: 'lease',
    holder: runId,
    runId,
    job: importId,
    expiresAt: new Date(now + JOB_LEASE_MS).toISOString(),
  };
  try {
    await retrying(RETRY.background, () => col.create(doc));
    return;
  } catch (err) {
    if (!isStoreError(err, 'conflict')) throw err;
  }
  const existing = await retrying(RETRY.background, () => col.read(pk, 'lease'));
  const ours = existing?.runId === runId || existing?.job === importId;
  if (existing && !ours && Date.parse(existing.expiresAt) > now) throw inProgress(existing.runId);
  try {
    if (existing) await retrying(RETRY.background, () => col.replace(doc, existing._etag));
    else await retrying(RETRY.background, () => col.create(doc));
  } catch (e) {
    if (isStoreError(e, 'preconditionFailed') || isStoreError(e, 'conflict'))
      throw inProgress((await col.read(pk, 'lease').catch(() => undefined))?.runId);
    throw e;
  }
  if (existing?.runId && !ours) await markAbandoned(store, pk, existing.runId, now).catch(() => undefined);
}

/** Extends a job's lease to JOB_LEASE_MS from `now`; false when the run no longer holds it (another import took it over). */
export async function renewJobLease(store: Store, pk: string, runId: string, now = Date.now()): Promise<boolean> {
  // At high priority: the job's own low-priority writes may use up the container, its lease must not wait behind them.
  return atHighPriority(async () => {
    const col = store.collection<LeaseDoc>('imports');
    const current = await retrying(RETRY.background, () => col.read(pk, 'lease'));
    if (current?.runId !== runId) return false;
    const { _etag, ...doc } = current;
    try {
      await retrying(RETRY.background, () =>
        col.replace({ ...doc, expiresAt: new Date(now + JOB_LEASE_MS).toISOString() }, _etag),
      );
      return true;
    } catch (err) {
      if (isStoreError(err, 'preconditionFailed')) return (await col.read(pk, 'lease'))?.runId === runId;
      throw err;
    }
  });
}

/** Gives the source up at the end of a job (nothing when another import holds it). */
export async function releaseJobLease(store: Store, pk: string, runId: string): Promise<void> {
  const col = store.collection<LeaseDoc>('imports');
  const current = await retrying(RETRY.background, () => col.read(pk, 'lease'));
  if (current?.runId === runId)
    await retrying(RETRY.background, () => col.delete(pk, 'lease', current._etag)).catch(() => undefined);
}

export async function acquireImportLease(
  store: Store,
  pk: string,
  now = Date.now(),
  runId?: string,
  clock: LeaseClock = SYSTEM_LEASE_CLOCK,
): Promise<ImportLease> {
  const col = store.collection<LeaseDoc>('imports');
  const holder = randomUUID();
  const leaseDoc = (at: number): LeaseDoc => ({
    id: 'lease',
    pk,
    kind: 'lease',
    holder,
    expiresAt: new Date(at + LEASE_MS).toISOString(),
    ...(runId ? { runId } : {}),
  });
  const doc = leaseDoc(now);
  const holderOfLease = async () => (await col.read(pk, 'lease').catch(() => undefined))?.runId;
  // The lease shares its partition with the manifest, whose writes may use up the container's request units: throttling is waited out.
  try {
    await retrying(RETRY.background, () => col.create(doc));
  } catch (err) {
    if (!isStoreError(err, 'conflict')) throw err;
    const existing = await retrying(RETRY.background, () => col.read(pk, 'lease'));
    if (existing && Date.parse(existing.expiresAt) > now) throw inProgress(existing.runId);
    try {
      if (existing) await retrying(RETRY.background, () => col.replace(doc, existing._etag));
      else await retrying(RETRY.background, () => col.create(doc));
    } catch (e) {
      if (isStoreError(e, 'preconditionFailed') || isStoreError(e, 'conflict')) throw inProgress(await holderOfLease());
      throw e;
    }
    if (existing?.runId && existing.runId !== runId)
      await markAbandoned(store, pk, existing.runId, now).catch(() => undefined);
  }

  let lost = false;
  let renewing: Promise<boolean> | undefined;
  // At high priority: a bulk import's own low-priority writes may use up the container, its heartbeat must not wait behind them.
  const renew = (): Promise<boolean> =>
    (renewing ??= atHighPriority(async () => {
      if (lost) return false;
      const current = await col.read(pk, 'lease');
      if (current?.holder !== holder) {
        lost = true;
        return false;
      }
      await col.replace(leaseDoc(clock.now()), current._etag);
      return true;
    })
      .catch((err: unknown) => {
        // Another writer replaced it meanwhile: it is no longer ours. Other failures: the next beat tries again.
        if (isStoreError(err, 'preconditionFailed')) lost = true;
        return !lost;
      })
      .finally(() => (renewing = undefined)));
  const stopBeating = clock.every(LEASE_RENEW_MS, () => void renew().then((held) => held || stopBeating()));

  return {
    renew,
    release: async () => {
      stopBeating();
      await renewing;
      const current = await retrying(RETRY.background, () => col.read(pk, 'lease'));
      if (current?.holder === holder)
        await retrying(RETRY.background, () => col.delete(pk, 'lease', current._etag)).catch(() => undefined);
    },
  };
}
