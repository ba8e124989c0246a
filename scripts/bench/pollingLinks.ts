/**
 * The polling design of background links, before directory change tracking (lib/links/tenantLinkCycle.ts
 * replaced it in the background work). It no longer ships: bench:links runs it beside change tracking on
 * the same scenario, to show what the change cost and saved.
 *
 * Background re-evaluation of links that could not be made at save time: pending identities
 * (no directory user with the UPN yet) and conflicts (the user was linked elsewhere), one tenant
 * and one bounded batch at a time (a unit of background work). Only identities that are due are
 * read (see linkBackoff.ts); directory look-ups are batched (15 UPNs per query, 20 queries per
 * $batch). Safe when two units of one tenant overlap or a unit runs twice: claims are atomic and
 * identity writes use the entity tag. A directory that throttles or refuses the service's token
 * throws before anything is written, so the unit can be retried later as it was.
 */
import type { DirectoryLink, IdentityDoc } from '../../lib/identities/model';
import { nextIdentityVersion } from '../../lib/identities/rules';
import type { Store, WithEtag } from '../../lib/store/store';
import { isStoreError } from '../../lib/store/errors';
import type { DirectoryClient } from '../../lib/directory/directoryClient';
import type { LinkClaims } from '../../lib/links/claims';
import { afterBackgroundCheck, type DirectoryAnswer } from '../../lib/links/linkStateMachine';
import { afterUnchangedCheck, type BackoffPolicy } from '../../lib/links/linkBackoff';

/** Query condition (identity alias `c`, parameter `@now`) for pending or conflict identities that are due. */
const DUE_FOR_CHECK =
  "(c.link.status = 'pending' OR c.link.status = 'conflict') AND (NOT IS_DEFINED(c.link.nextCheckAt) OR c.link.nextCheckAt <= @now)";

export interface PendingUnitResult {
  examined: number;
  linked: number;
  stillPending: number;
  conflicts: number;
  skipped: number;
  directoryRequests: number;
  /** More due identities may follow: continue after this identity id. */
  next?: string;
}

export interface PendingLinkDeps {
  store: Store;
  directory: DirectoryClient;
  claims: LinkClaims;
  backoff: BackoffPolicy;
}

/** A due identity as the unit read it; its entity tag guards every write of the unit. */
type Candidate = WithEtag<IdentityDoc>;

type Outcome = 'linked' | 'stillPending' | 'conflicts' | 'skipped';

/** One unit: at most `limit` due pending/conflict identities of the tenant, in id order after `after`. */
export async function resolveTenantPendingLinks(
  deps: PendingLinkDeps,
  tenantId: string,
  after: string,
  limit: number,
  now = new Date(),
): Promise<PendingUnitResult> {
  const requestsBefore = deps.directory.requestCount;
  const result: PendingUnitResult = {
    examined: 0,
    linked: 0,
    stillPending: 0,
    conflicts: 0,
    skipped: 0,
    directoryRequests: 0,
  };
  const page = await deps.store.collection<IdentityDoc>('identities').queryPage<Candidate>(
    {
      query: `SELECT * FROM c WHERE c.tenantId = @tenantId AND ${DUE_FOR_CHECK} AND c.id > @after ORDER BY c.id`,
      parameters: [
        { name: '@tenantId', value: tenantId },
        { name: '@now', value: now.toISOString() },
        { name: '@after', value: after },
      ],
    },
    { maxItemCount: limit },
  );
  const candidates = page.items.filter((c) => c.directoryUserPrincipalName);
  const users =
    candidates.length > 0
      ? await deps.directory.findByUpns(
          tenantId,
          candidates.map((c) => c.directoryUserPrincipalName ?? ''),
        )
      : new Map();
  for (const c of candidates) {
    result.examined++;
    const upn = c.directoryUserPrincipalName ?? '';
    const user = users.get(upn.toLowerCase());
    const answer: DirectoryAnswer = user ? { kind: 'found', userId: user.id } : { kind: 'notFound' };
    result[await settle(deps, c, upn, answer, now)]++;
  }
  result.directoryRequests = deps.directory.requestCount - requestsBefore;
  if (page.continuationToken && page.items.length > 0) result.next = page.items.at(-1)?.id;
  return result;
}

async function settle(
  deps: PendingLinkDeps,
  c: Candidate,
  upn: string,
  answer: DirectoryAnswer,
  now: Date,
): Promise<Outcome> {
  if (answer.kind === 'notFound' && c.link.status === 'pending') {
    return backOff(deps, c, now);
  }
  const claim = answer.kind === 'found' ? await deps.claims.claim(c.tenantId, answer.userId, c, now) : undefined;
  const next = afterBackgroundCheck(c.link, upn, answer, claim);
  if (next.status === c.link.status && next.conflictUserId === c.link.conflictUserId) return backOff(deps, c, now);
  const outcome = await write(deps.store, c, next);
  if (outcome === 'skipped' && claim === 'claimed' && answer.kind === 'found')
    await deps.claims.release(c.tenantId, answer.userId, c);
  return outcome;
}

/**
 * The check changed nothing: the identity waits longer before the next one. Not a change of the
 * resource (version and lastModified stay). Written with the entity tag the unit read, so an identity
 * that changed since (a save, an overlapping unit) is skipped.
 */
async function backOff(deps: PendingLinkDeps, c: Candidate, now: Date): Promise<Outcome> {
  const { _etag, ...rest } = c;
  const outcome: Outcome = c.link.status === 'conflict' ? 'conflicts' : 'stillPending';
  return replaceIfUnchanged(
    deps.store,
    { ...rest, link: afterUnchangedCheck(c.link, deps.backoff, now) },
    _etag,
    outcome,
  );
}

/**
 * Writes the new link if the identity is as the unit read it. lastModified is the time of this write,
 * not of the unit's start: a client polling `meta.lastModified gt` while a long unit goes on must find
 * every identity the unit changes after its poll.
 */
async function write(store: Store, c: Candidate, link: DirectoryLink): Promise<Outcome> {
  const { _etag, ...rest } = c;
  const outcome: Outcome =
    link.status === 'linked' ? 'linked' : link.status === 'conflict' ? 'conflicts' : 'stillPending';
  return replaceIfUnchanged(store, nextIdentityVersion(rest, { link }, new Date().toISOString()), _etag, outcome);
}

async function replaceIfUnchanged(store: Store, doc: IdentityDoc, etag: string, outcome: Outcome): Promise<Outcome> {
  try {
    await store.collection<IdentityDoc>('identities').replace(doc, etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'notFound')) return 'skipped';
    throw err;
  }
  return outcome;
}
