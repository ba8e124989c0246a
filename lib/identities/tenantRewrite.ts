/**
 * One operator pass over a tenant's identities in their stored form: each identity the step changes is
 * written back with its entity tag, so one the service changed meanwhile is left to the service (counted,
 * not overwritten). Bulk work: low priority and paced by the tenant's request units. Bounded and resumable:
 * a run stops after `maxWrites` and says so (`more`); the next run skips what is already done, because a
 * step returns nothing for an identity that needs no write. The upgrade passes (UPN keys, field encryption)
 * are such steps; nothing of the resource changes (version and lastModified stay).
 */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import { atLowPriority } from '../store/priority';
import { tenantIdentities } from '../store/queries/identities';
import type { IdentityDoc } from './model';

/** Identities read per query page. */
export const REWRITE_PAGE_SIZE = 100;

export interface TenantRewriteResult {
  /** Identities of the tenant read. */
  read: number;
  /** Identities written. */
  written: number;
  /** Changed or deleted between reading and writing (the service wrote them itself). */
  changedMeanwhile: number;
  /** The run stopped at `maxWrites`: run it again. */
  more: boolean;
}

/** The identity as it should be stored, or undefined when it needs no write. */
export type RewriteStep = (doc: IdentityDoc) => IdentityDoc | undefined | Promise<IdentityDoc | undefined>;

export function rewriteTenantIdentities(
  store: Store,
  tenantId: string,
  maxWrites: number,
  step: RewriteStep,
): Promise<TenantRewriteResult> {
  return atLowPriority(() => rewrite(store, tenantId, maxWrites, step), tenantId);
}

async function rewrite(store: Store, tenantId: string, maxWrites: number, step: RewriteStep) {
  const identities = store.collection<IdentityDoc>('identities');
  const result: TenantRewriteResult = { read: 0, written: 0, changedMeanwhile: 0, more: false };
  let continuationToken: string | undefined;
  do {
    const page = await identities.page(tenantIdentities(tenantId), {
      maxItemCount: REWRITE_PAGE_SIZE,
      ...(continuationToken !== undefined ? { continuationToken } : {}),
    });
    for (const doc of page.items) {
      result.read++;
      const { _etag, ...rest } = doc;
      const next = await step(rest);
      if (next === undefined) continue;
      if (result.written >= maxWrites) return { ...result, more: true };
      try {
        await identities.replace(next, _etag);
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
