/**
 * Background re-evaluation of links that could not be made at save time: pending identities
 * (no directory user with the UPN yet) and conflicts (the user was linked elsewhere), one tenant
 * and one bounded batch at a time (a unit of background work). Only identities that are due are
 * read (see linkBackoff.ts); directory look-ups are batched (15 UPNs per query, 20 queries per
 * $batch). Safe when two units of one tenant overlap or a unit runs twice: claims are atomic and
 * identity writes use the entity tag. A directory that throttles or refuses the service's token
 * throws before anything is written, so the unit can be retried later as it was.
 */
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { DirectoryClient } from '../directory/directoryClient';
import type { LinkClaims } from './claims';
import { afterBackgroundCheck, type DirectoryAnswer } from './linkStateMachine';
import { afterUnchangedCheck, DUE_FOR_CHECK, type BackoffPolicy } from './linkBackoff';

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

interface Candidate {
  id: string;
  pk: string;
  tenantId: string;
  directoryUserPrincipalName?: string;
  link: DirectoryLink;
}

type Outcome = 'linked' | 'stillPending' | 'conflicts' | 'skipped';

/** One unit: at most `limit` due pending/conflict identities of the tenant, in id order after `after`. */
export async function resolveTenantPendingLinks(deps: PendingLinkDeps, tenantId: string, after: string, limit: number, now = new Date()): Promise<PendingUnitResult> {
  const requestsBefore = deps.directory.requestCount;
  const result: PendingUnitResult = { examined: 0, linked: 0, stillPending: 0, conflicts: 0, skipped: 0, directoryRequests: 0 };
  const page = await deps.store.collection<IdentityDoc>('identities').queryPage<Candidate>(
    {
      query: `SELECT c.id, c.pk, c.tenantId, c.directoryUserPrincipalName, c.link FROM c WHERE c.tenantId = @tenantId AND ${DUE_FOR_CHECK} AND c.id > @after ORDER BY c.id`,
      parameters: [
        { name: '@tenantId', value: tenantId },
        { name: '@now', value: now.toISOString() },
        { name: '@after', value: after },
      ],
    },
    { maxItemCount: limit },
  );
  const candidates = page.items.filter((c) => c.directoryUserPrincipalName);
  const users = candidates.length > 0 ? await deps.directory.findByUpns(tenantId, candidates.map((c) => c.directoryUserPrincipalName ?? '')) : new Map();
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

async function settle(deps: PendingLinkDeps, c: Candidate, upn: string, answer: DirectoryAnswer, now: Date): Promise<Outcome> {
  if (answer.kind === 'notFound' && c.link.status === 'pending') {
    return backOff(deps, c, upn, now);
  }
  const claim = answer.kind === 'found' ? await deps.claims.claim(c.tenantId, answer.userId, c, now) : undefined;
  const next = afterBackgroundCheck(c.link, upn, answer, claim);
  if (next.status === c.link.status && next.conflictUserId === c.link.conflictUserId) return backOff(deps, c, upn, now);
  const outcome = await write(deps.store, c, upn, next);
  if (outcome === 'skipped' && claim === 'claimed' && answer.kind === 'found') await deps.claims.release(c.tenantId, answer.userId, c);
  return outcome;
}

/** The check changed nothing: the identity waits longer before the next one. Not a change of the resource (version and lastModified stay). */
async function backOff(deps: PendingLinkDeps, c: Candidate, upn: string, now: Date): Promise<Outcome> {
  const identities = deps.store.collection<IdentityDoc>('identities');
  const current = await identities.read(c.pk, c.id);
  if (!current || current.directoryUserPrincipalName !== upn || current.link.status !== c.link.status || current.link.nextCheckAt !== c.link.nextCheckAt) return 'skipped';
  const { _etag, ...rest } = current;
  try {
    await identities.replace({ ...rest, link: afterUnchangedCheck(current.link, deps.backoff, now) }, _etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'notFound')) return 'skipped';
    throw err;
  }
  return current.link.status === 'conflict' ? 'conflicts' : 'stillPending';
}

/**
 * Writes the new link if the identity still asserts the same UPN with the same status. lastModified is
 * the time of this write, not of the unit's start: a client polling `meta.lastModified gt` while a long
 * unit goes on must find every identity the unit changes after its poll.
 */
async function write(store: Store, c: Candidate, upn: string, link: DirectoryLink): Promise<Outcome> {
  const identities = store.collection<IdentityDoc>('identities');
  const current = await identities.read(c.pk, c.id);
  if (!current || current.directoryUserPrincipalName !== upn || current.link.status !== c.link.status) return 'skipped';
  const { _etag, ...rest } = current;
  try {
    await identities.replace({ ...rest, link, lastModified: new Date().toISOString(), version: current.version + 1 }, _etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'notFound')) return 'skipped';
    throw err;
  }
  return link.status === 'linked' ? 'linked' : link.status === 'conflict' ? 'conflicts' : 'stillPending';
}
