/** One import per source at a time: a lease document with an expiry, taken atomically. */
import { randomUUID } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { isStoreError } from '../store/errors';
import { DomainError } from '../util/domainError';
import { withThrottleRetry } from '../util/concurrency';

interface LeaseDoc extends StoredDoc {
  kind: 'lease';
  holder: string;
  expiresAt: string;
  /** The run holding the lease (see runHistory.ts), so a refused caller can follow it. */
  runId?: string;
}

/** Longer than the 230 s HTTP limit, so a lease held by a running import never expires under it. */
export const LEASE_MS = 10 * 60_000;

/** Whether the source's lease is held, unexpired, by the run with this id. */
export async function leaseHeldBy(store: Store, pk: string, runId: string, now = Date.now()): Promise<boolean> {
  const lease = await store.collection<LeaseDoc>('imports').read(pk, 'lease');
  return lease?.runId === runId && Date.parse(lease.expiresAt) > now;
}

export async function acquireImportLease(
  store: Store,
  pk: string,
  now = Date.now(),
  runId?: string,
): Promise<{ release(): Promise<void> }> {
  const col = store.collection<LeaseDoc>('imports');
  const holder = randomUUID();
  const doc: LeaseDoc = {
    id: 'lease',
    pk,
    kind: 'lease',
    holder,
    expiresAt: new Date(now + LEASE_MS).toISOString(),
    ...(runId ? { runId } : {}),
  };
  const inProgress = (holderRunId: string | undefined) =>
    new DomainError(
      'IMPORT_IN_PROGRESS',
      'Another import of this source is running; follow it with the importRun query (extensions.runId) or retry when it has finished',
      [],
      holderRunId ? { runId: holderRunId } : {},
    );
  const holderOfLease = async () => (await col.read(pk, 'lease').catch(() => undefined))?.runId;
  // The lease shares its partition with the manifest, whose writes may use up the container's request units: throttling is waited out.
  try {
    await withThrottleRetry(() => col.create(doc));
  } catch (err) {
    if (!isStoreError(err, 'conflict')) throw err;
    const existing = await withThrottleRetry(() => col.read(pk, 'lease'));
    if (existing && Date.parse(existing.expiresAt) > now) throw inProgress(existing.runId);
    try {
      if (existing) await withThrottleRetry(() => col.replace(doc, existing._etag));
      else await withThrottleRetry(() => col.create(doc));
    } catch (e) {
      if (isStoreError(e, 'preconditionFailed') || isStoreError(e, 'conflict')) throw inProgress(await holderOfLease());
      throw e;
    }
  }
  return {
    release: async () => {
      const current = await withThrottleRetry(() => col.read(pk, 'lease'));
      if (current?.holder === holder)
        await withThrottleRetry(() => col.delete(pk, 'lease', current._etag)).catch(() => undefined);
    },
  };
}
