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
import { rewriteTenantIdentities, type TenantRewriteResult } from './tenantRewrite';
import { withUpnKeys } from './rules';

export type UpnKeysBackfillResult = TenantRewriteResult;

export function backfillUpnKeys(store: Store, tenantId: string, maxWrites: number): Promise<UpnKeysBackfillResult> {
  return rewriteTenantIdentities(store, tenantId, maxWrites, (doc) =>
    doc.upnKeys === undefined ? withUpnKeys(doc) : undefined,
  );
}
