/**
 * New links of an association in transactional batches: per part of up to 500 pairs one query for the
 * claims held on their users (and one for identities that did not come whole with their links), then per 100 pairs one batch of claim creates
 * (tenant partition), one batch of identity replaces with their entity tags (source partition) and one
 * batch of audit entries. The order is the one of a single link (claim, identity, audit), so the guarantees hold: a
 * user is claimed before an identity links to it, and a claim is released only when the stored identity
 * does not link to it. A batch is all or nothing: the pairs of a failed batch are handed back to be
 * done one by one, so one pair's conflict or change never fails the others.
 */
import type { Collection, Store, WithEtag } from '../store/store';
import type { IdentityDoc } from '../identities/model';
import { nextIdentityVersion } from '../identities/rules';
import { withChange, type ChangeActor } from '../identities/history';
import type { LinkClaims } from '../links/claims';
import { afterAssociationClaim, type LinkTransition } from '../links/linkStateMachine';
import { applyLinkEffects } from '../links/linkEffects';
import type { Actor, AuditInput, AuditLog } from '../audit/auditLog';
import type { Logger } from '../log/logger';
import { isStoreError, type StoreError } from '../store/errors';
import { MAX_BATCH_OPERATIONS } from '../store/batches';
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';
import { RETRY, retrying, type RetryClock } from '../store/retryPolicy';
import type { AssociationPair as AssociationInput } from './pairClassification';
import { byIds } from '../store/queries/identities';

/** A pair whose identity is to be linked to a user it does not link to now. */
export interface LinkCandidate {
  pair: AssociationInput;
  identityId: string;
  userId: string;
  /** The identity as read with the links, when it came whole. */
  doc?: WithEtag<IdentityDoc>;
}

/** A link that was stored: the identity as it was before, and the user it gave up (if any). */
export interface StoredLink {
  before: IdentityDoc;
  userId: string;
}

/** A pair that lost a race to another writer of its identity: worth another try within the pair's budget. */
export function isConcurrentChange(err: unknown): boolean {
  return err instanceof DomainError && err.code === CODE.CONCURRENT_CHANGE;
}

/** Pairs per part: read with one query each for identities and claims, written in batches of 100 (a Cosmos DB limit). */
export const PAIRS_PER_PART = 500;

/** What kind of failure a pair had, for the log (never a value). */
export function failureKind(err: unknown): string {
  if (isStoreError(err)) return `store.${err.failure}`;
  if (err instanceof DomainError) return err.code;
  return err instanceof Error ? err.name : 'unknown';
}

/**
 * After links are stored: release the users the identities gave up and write the audit entries (in
 * batches). The links stand whatever happens here; a step that still fails after its retries is logged
 * (an orphan claim is repaired by the background run).
 */
export async function afterLinks(
  claims: LinkClaims,
  audit: AuditLog,
  tenantId: string,
  links: StoredLink[],
  actor: Actor,
  log: Logger | undefined,
  clock?: RetryClock,
): Promise<void> {
  const problem = (err: unknown, identityId: string) =>
    log?.error('association: a link was stored but its audit entry or the release of the user it replaced failed', {
      tenantId,
      identityId,
      failure: failureKind(err),
    });
  // Claims given up are released now; the audit entries of the links are gathered and written together, in batches.
  const entries: AuditInput[] = [];
  for (const { before, userId } of links)
    await applyLinkEffects(associated(before, userId).effects, {
      releaseClaim: (released) =>
        retrying(RETRY.unit, () => claims.release(tenantId, released, before), {
          alsoRetry: isConcurrentChange,
          ...(clock ? { clock } : {}),
        }).catch((err: unknown) => problem(err, before.id)),
      audit: (action) => {
        entries.push({
          actor,
          action,
          target: { type: 'businessIdentity', id: before.id },
          before: {
            status: before.link.status,
            userId: before.link.status === 'linked' ? (before.link.userId ?? null) : null,
          },
          after: { status: 'linked', userId },
        });
      },
    });
  let unwritten: AuditInput[];
  try {
    unwritten = await audit.writeMany(tenantId, entries);
  } catch {
    unwritten = entries;
  }
  for (const entry of unwritten)
    await retrying(RETRY.unit, () => audit.write(tenantId, entry), {
      alsoRetry: isConcurrentChange,
      ...(clock ? { clock } : {}),
    }).catch((err: unknown) => problem(err, entry.target.id));
}

/** The identity with the new link made by the run `by`, as it is written at `now` (its lastModified is the time of this write). */
export function linkedVersion(
  identity: IdentityDoc,
  userId: string,
  by: ChangeActor,
  now = new Date().toISOString(),
  userPrincipalName?: string,
): IdentityDoc {
  const link = associated(identity, userId).link;
  const next = nextIdentityVersion(identity, { link: userPrincipalName ? { ...link, userPrincipalName } : link }, now);
  return withChange(identity, next, { actor: by, operation: 'LINK' });
}

/** The transition of a pair whose user was claimed for the identity (by the batch's claims or one by one). */
function associated(identity: IdentityDoc, userId: string): LinkTransition {
  const transition = afterAssociationClaim(identity.link, userId, 'claimed');
  if (transition === 'conflict') throw new Error('a claimed user cannot conflict');
  return transition;
}

export class BatchLinker {
  constructor(
    private readonly store: Store,
    private readonly claims: LinkClaims,
    private readonly audit: AuditLog,
    /** The retry policy's waits (a unit test passes one that does not wait in real time). */
    private readonly clock?: RetryClock,
  ) {}

  private get identities(): Collection<IdentityDoc> {
    return this.store.collection<IdentityDoc>('identities');
  }

  /** Links a part (at most PAIRS_PER_PART pairs, each user once); returns the pairs linked and those to do one by one. */
  async link(
    tenantId: string,
    pk: string,
    part: LinkCandidate[],
    actor: Actor,
    by: ChangeActor,
    log: Logger | undefined,
  ): Promise<{ associated: LinkCandidate[]; oneByOne: LinkCandidate[] }> {
    const oneByOne: LinkCandidate[] = [];
    // Identities not read whole with the links (linked to another user now) are read in one query.
    const missing = part.filter((c) => !c.doc);
    const [read, held] = await Promise.all([
      missing.length === 0
        ? Promise.resolve([])
        : this.identities.all(
            byIds(
              pk,
              missing.map((c) => c.identityId),
            ),
          ),
      this.claims.holders(
        tenantId,
        part.map((c) => c.userId),
      ),
    ]);
    const docs = [...part.flatMap((c) => (c.doc ? [c.doc] : [])), ...read];
    const byId = new Map(docs.map((d) => [d.id, d]));

    // Users nobody holds are claimed in batches; a user this identity already holds needs no claim.
    const toClaim: Array<{ candidate: LinkCandidate; doc: WithEtag<IdentityDoc> }> = [];
    const claimed: Array<{ candidate: LinkCandidate; doc: WithEtag<IdentityDoc> }> = [];
    for (const candidate of part) {
      const doc = byId.get(candidate.identityId);
      const holder = held.get(candidate.userId);
      // Gone, linked meanwhile, or a user another identity holds: judged one by one (unknown, unchanged, conflict or orphan).
      if (!doc || (doc.link.status === 'linked' && doc.link.userId === candidate.userId)) oneByOne.push(candidate);
      else if (!holder) toClaim.push({ candidate, doc });
      else if (holder.identityPk === pk && holder.identityId === doc.id) claimed.push({ candidate, doc });
      else oneByOne.push(candidate);
    }
    const created = await this.claims.claimMany(
      tenantId,
      toClaim.map(({ candidate, doc }) => ({ userId: candidate.userId, identity: doc })),
    );
    toClaim.forEach((item, i) => (created[i] ? claimed.push(item) : oneByOne.push(item.candidate)));

    // Identity writes in batches, each only if the identity is as it was read; lastModified is taken per batch, as it is sent.
    const replaced: Array<'replaced' | StoreError> = [];
    for (let i = 0; i < claimed.length; i += MAX_BATCH_OPERATIONS)
      replaced.push(...(await this.replaceStamped(pk, claimed.slice(i, i + MAX_BATCH_OPERATIONS), by)));
    const associated: LinkCandidate[] = [];
    const stored: StoredLink[] = [];
    claimed.forEach(({ candidate, doc }, i) => {
      if (replaced[i] === 'replaced') {
        associated.push(candidate);
        stored.push({ before: doc, userId: candidate.userId });
      } else oneByOne.push(candidate); // its claim is kept: the one-by-one link finds it held by this identity
    });
    await afterLinks(this.claims, this.audit, tenantId, stored, actor, log, this.clock);
    return { associated, oneByOne };
  }

  /**
   * One batch of identity writes. A throttled batch is sent again with a new lastModified after the
   * store's wait (not resent unchanged by the store client), so a link never carries a time seconds
   * before it became visible, which a client polling `meta.lastModified gt` would miss.
   */
  private async replaceStamped(
    pk: string,
    group: Array<{ candidate: LinkCandidate; doc: WithEtag<IdentityDoc> }>,
    by: ChangeActor,
  ): Promise<Array<'replaced' | StoreError>> {
    return retrying(
      RETRY.interactive,
      () => {
        const now = new Date().toISOString();
        return this.identities.batchReplace(
          pk,
          group.map(({ candidate, doc }) => ({
            doc: linkedVersion(doc, candidate.userId, by, now, candidate.pair.userPrincipalName),
            ifMatch: doc._etag,
          })),
          { retryThrottled: false },
        );
      },
      // A batch is all or nothing: it is sent again only when every item was throttled.
      {
        retryResult: (outcomes) => (outcomes.every((o) => isStoreError(o, 'throttled')) ? outcomes[0] : undefined),
        ...(this.clock ? { clock: this.clock } : {}),
      },
    );
  }
}
