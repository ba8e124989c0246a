/**
 * Gives identities stored before `upnKeys` existed their UPN keys (lib/identities/rules.ts), so the
 * console's search by UPN in any case finds them. An operator runs it once per tenant after the upgrade
 * (`npm run ops -- backfill-upn-keys`, docs/operations.md). It is bulk work: low priority and paced by the
 * tenant's request units. Idempotent and resumable: it writes only identities still without keys, each
 * with its entity tag (one changed meanwhile was written by the service, which sets the keys itself), and
 * stops after `maxWrites`, so a run is bounded and the next run goes on where there is work left. Setting
 * the keys changes nothing of the resource: version and lastModified stay.
 */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import { atLowPriority } from '../store/priority';
import { tenantIdentities } from '../store/queries/identities';
import type { IdentityDoc } from './model';
import { withUpnKeys } from './rules';

/** Identities read per query page. */
export const BACKFILL_PAGE_SIZE = 100;

export interface UpnKeysBackfillResult {
  /** Identities of the tenant read. */
  read: number;
  /** Identities given their keys. */
  written: number;
  /** Identities changed or deleted between reading and writing (the service wrote their keys). */
  changedMeanwhile: number;
  /** The run stopped at `maxWrites`: run it again. */
  more: boolean;
}

export function backfillUpnKeys(store: Store, tenantId: string, maxWrites: number): Promise<UpnKeysBackfillResult> {
  return atLowPriority(() => backfill(store, tenantId, maxWrites), tenantId);
}

async function backfill(store: Store, tenantId: string, maxWrites: number): Promise<UpnKeysBackfillResult> {
  const identities = store.collection<IdentityDoc>('identities');
  const result: UpnKeysBackfillResult = { read: 0, written: 0, changedMeanwhile: 0, more: false };
  let continuationToken: string | undefined;
  do {
    const page = await identities.page(tenantIdentities(tenantId), {
      maxItemCount: BACKFILL_PAGE_SIZE,
      ...(continuationToken !== undefined ? { continuationToken } : {}),
    });
    for (const doc of page.items) {
      result.read++;
      if (doc.upnKeys !== undefined) continue;
      if (result.written >= maxWrites) return { ...result, more: true };
      const { _etag, ...rest } = doc;
      try {
        await identities.replace(withUpnKeys(rest), _etag);
        result.written++;
      } catch (err) {
        if (!isStoreError(err, 'preconditionFailed') && !isStoreError(err, 'notFound')) throw err;
        result.changedMeanwhile++;
      }
    }
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined);
  return result;
}
