/**
 * Link claims: one document per linked directory user per tenant (id = object id). Creating
 * it is the atomic "a directory user is linked to only one business identity" check across
 * every source. Claims are written before the identity and released after it, so a crash can
 * leave an orphan claim (repaired later) but never two identities linked to one user.
 */
import type { Store, StoredDoc } from '../store/store';
import { RunCursor } from '../store/runCursor';
import { isStoreError } from '../store/errors';
import { RETRY, retrying } from '../store/retryPolicy';
import type { IdentityDoc } from '../identities/model';
import { withLinkBookkeeping } from '../identities/rules';
import { withoutBackoff } from './linkBackoff';
import { conflictsBackingOffOn } from '../store/queries/identities';
import { claimHolders, claimsOlderThan } from '../store/queries/links';

export interface LinkClaim extends StoredDoc {
  tenantId: string;
  identityPk: string;
  identityId: string;
  claimedAt: string;
}

/** A claim younger than this is never treated as an orphan: its identity write may still be under way. */
export const ORPHAN_GRACE_MS = 2 * 60_000;

export class LinkClaims {
  constructor(private readonly store: Store) {}

  private get claims() {
    return this.store.collection<LinkClaim>('links');
  }

  /** Where the orphan repair goes on; the cursor document has no claimedAt, so no claim query returns it. */
  private get repairCursor() {
    return new RunCursor(this.store, 'orphan-repair-cursor');
  }

  private get identities() {
    return this.store.collection<IdentityDoc>('identities');
  }

  get(tenantId: string, userId: string) {
    return this.claims.read(tenantId, userId);
  }

  /** Claims `userId` for the identity; 'heldByOther' when another identity holds it. */
  async claim(
    tenantId: string,
    userId: string,
    identity: { pk: string; id: string },
    now = new Date(),
  ): Promise<'claimed' | 'heldByOther'> {
    const doc: LinkClaim = {
      id: userId,
      pk: tenantId,
      tenantId,
      identityPk: identity.pk,
      identityId: identity.id,
      claimedAt: now.toISOString(),
    };
    // Another writer created, released or took over the claim between these steps: decide again.
    const decide = async (): Promise<'claimed' | 'heldByOther'> => {
      let raced: unknown;
      try {
        await this.claims.create(doc);
        return 'claimed';
      } catch (err) {
        if (!isStoreError(err, 'conflict')) throw err;
        raced = err;
      }
      const existing = await this.claims.read(tenantId, userId);
      if (!existing) throw raced; // released in the meantime: try again
      if (existing.identityPk === identity.pk && existing.identityId === identity.id) return 'claimed';
      if (!(await this.isOrphan(existing, now))) return 'heldByOther';
      try {
        const { _etag, ...rest } = existing;
        await this.claims.replace({ ...rest, ...doc }, _etag);
        return 'claimed';
      } catch (err) {
        if (isStoreError(err, 'notFound')) throw raced; // deleted meanwhile: try again
        throw err;
      }
    };
    return retrying(RETRY.changed, decide).catch((err: unknown) => {
      if (isStoreError(err, 'conflict') || isStoreError(err, 'preconditionFailed')) return 'heldByOther';
      throw err;
    });
  }

  /** Who holds the claims on these users now (one query per call; users without a claim are absent). */
  async holders(tenantId: string, userIds: string[]): Promise<Map<string, { identityPk: string; identityId: string }>> {
    const out = new Map<string, { identityPk: string; identityId: string }>();
    if (userIds.length === 0) return out;
    const rows = await this.claims.all(claimHolders(tenantId, userIds));
    for (const r of rows) out.set(r.id, { identityPk: r.identityPk, identityId: r.identityId });
    return out;
  }

  /**
   * Claims users that nobody holds, for their identities, in transactional batches (one request per
   * 100). Per item: true when claimed; false when not (held meanwhile, or its batch failed), in which
   * case `claim` decides for that item alone.
   */
  async claimMany(
    tenantId: string,
    items: Array<{ userId: string; identity: { pk: string; id: string } }>,
    now = new Date(),
  ): Promise<boolean[]> {
    const docs: LinkClaim[] = items.map(({ userId, identity }) => ({
      id: userId,
      pk: tenantId,
      tenantId,
      identityPk: identity.pk,
      identityId: identity.id,
      claimedAt: now.toISOString(),
    }));
    const outcomes = await this.claims.batchCreate(tenantId, docs);
    return outcomes.map((o) => o === 'created');
  }

  /**
   * Releases the identity's claim on a user it no longer needs (its write failed or was skipped, it moved
   * to another user, or it was deleted): only if this identity holds the claim and, as stored now, does not
   * link to that user. A concurrent write of the same identity (an overlapping timer run, a retried
   * request) may have made that very link with the same claim, which must then stay.
   */
  async release(tenantId: string, userId: string, identity: { pk: string; id: string }): Promise<void> {
    const existing = await this.claims.read(tenantId, userId);
    if (!existing || existing.identityPk !== identity.pk || existing.identityId !== identity.id) return;
    const current = await this.identities.read(identity.pk, identity.id);
    if (current?.link.status === 'linked' && current.link.userId === userId) return;
    try {
      await this.claims.delete(tenantId, userId, existing._etag);
    } catch (err) {
      if (!isStoreError(err, 'preconditionFailed')) throw err;
      return;
    }
    await this.wakeConflictsOn(tenantId, userId);
  }

  /**
   * The user is free again: identities in conflict over it that back off are looked at by the next
   * background run instead of after their back-off. One indexed query in the tenant.
   */
  private async wakeConflictsOn(tenantId: string, userId: string): Promise<void> {
    const waiting = await this.identities.all(conflictsBackingOffOn(tenantId, userId));
    for (const ref of waiting) {
      const current = await this.identities.read(ref.pk, ref.id);
      if (!current || current.link.status !== 'conflict' || current.link.conflictUserId !== userId) continue;
      try {
        await this.identities.replace(withLinkBookkeeping(current, withoutBackoff(current.link)), current._etag);
      } catch (err) {
        if (!isStoreError(err, 'preconditionFailed') && !isStoreError(err, 'notFound')) throw err;
      }
    }
  }

  /** A claim whose identity is gone or does not link to the claimed user (after the grace period). */
  async isOrphan(claim: LinkClaim, now = new Date()): Promise<boolean> {
    if (now.getTime() - Date.parse(claim.claimedAt) < ORPHAN_GRACE_MS) return false;
    const owner = await this.identities.read(claim.identityPk, claim.identityId);
    return !owner || owner.link.status !== 'linked' || owner.link.userId !== claim.id;
  }

  /**
   * Deletes orphan claims, at most `limit` examined per call. Each call goes on from where the last one
   * stopped (claims in object-id order, wrapping at the end), so every claim is examined in turn however
   * many there are, and a run never re-reads the same first page of healthy claims.
   */
  async repairOrphans(limit: number, now = new Date()): Promise<{ examined: number; removed: number }> {
    const cutoff = new Date(now.getTime() - ORPHAN_GRACE_MS).toISOString();
    const after = await this.repairCursor.after();
    const page = await this.claims.page(claimsOlderThan(cutoff, after), { maxItemCount: limit });
    let removed = 0;
    for (const claim of page.items) {
      if (!(await this.isOrphan(claim, now))) continue;
      try {
        await this.claims.delete(claim.pk, claim.id, claim._etag);
        removed++;
        await this.wakeConflictsOn(claim.tenantId, claim.id);
      } catch (err) {
        if (!isStoreError(err, 'preconditionFailed') && !isStoreError(err, 'notFound')) throw err;
      }
    }
    await this.repairCursor.save(page.continuationToken ? page.items.at(-1)?.id : undefined);
    return { examined: page.items.length, removed };
  }
}
