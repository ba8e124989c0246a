/**
 * Background re-evaluation of links that could not be made at save time: pending identities
 * (no directory user with the UPN yet) and conflicts (the user was linked elsewhere). Directory
 * look-ups are batched per tenant (15 UPNs per query, 20 queries per $batch). Safe when two runs
 * overlap: claims are atomic and identity writes use the entity tag.
 */
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { DirectoryClient } from '../directory/directoryClient';
import type { LinkClaims } from './claims';
import { afterBackgroundCheck, type DirectoryAnswer } from './linkStateMachine';
import { RunCursor } from '../store/runCursor';

export interface PendingRunResult {
  examined: number;
  linked: number;
  stillPending: number;
  conflicts: number;
  skipped: number;
  orphanClaimsRemoved: number;
  directoryRequests: number;
}

interface Candidate {
  id: string;
  pk: string;
  tenantId: string;
  directoryUserPrincipalName?: string;
  link: DirectoryLink;
}

const PAGE = 1000;

export async function resolvePendingLinks(store: Store, directory: DirectoryClient, claims: LinkClaims, limit: number, now = new Date()): Promise<PendingRunResult> {
  const requestsBefore = directory.requestCount;
  const result: PendingRunResult = { examined: 0, linked: 0, stillPending: 0, conflicts: 0, skipped: 0, orphanClaimsRemoved: 0, directoryRequests: 0 };
  const identities = store.collection<IdentityDoc>('identities');

  // At most `limit` identities a run, going on from where the last run stopped (id order, wrapping at the
  // end): identities that stay pending for long (a UPN that never appears) cannot starve the others.
  const cursor = new RunCursor(store, 'pending-links-cursor');
  const after = await cursor.after();
  const candidates: Candidate[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await identities.queryPage<Candidate>(
      {
        query:
          "SELECT c.id, c.pk, c.tenantId, c.directoryUserPrincipalName, c.link FROM c WHERE (c.link.status = 'pending' OR c.link.status = 'conflict') AND c.id > @after ORDER BY c.id",
        parameters: [{ name: '@after', value: after }],
      },
      { maxItemCount: Math.min(PAGE, limit - candidates.length), continuationToken },
    );
    candidates.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken && candidates.length < limit);
  await cursor.save(continuationToken ? candidates.at(-1)?.id : undefined);

  const byTenant = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (!c.directoryUserPrincipalName) continue;
    byTenant.set(c.tenantId, [...(byTenant.get(c.tenantId) ?? []), c]);
  }

  for (const [tenantId, group] of byTenant) {
    const users = await directory.findByUpns(tenantId, group.map((c) => c.directoryUserPrincipalName ?? ''));
    for (const c of group) {
      result.examined++;
      const upn = c.directoryUserPrincipalName ?? '';
      const user = users.get(upn.toLowerCase());
      const answer: DirectoryAnswer = user ? { kind: 'found', userId: user.id } : { kind: 'notFound' };
      const outcome = await settle(store, claims, c, upn, answer, now);
      result[outcome]++;
    }
  }
  result.orphanClaimsRemoved = (await claims.repairOrphans(PAGE, now)).removed;
  result.directoryRequests = directory.requestCount - requestsBefore;
  return result;
}

async function settle(store: Store, claims: LinkClaims, c: Candidate, upn: string, answer: DirectoryAnswer, now: Date): Promise<'linked' | 'stillPending' | 'conflicts' | 'skipped'> {
  if (answer.kind === 'notFound') {
    return c.link.status === 'pending' ? 'stillPending' : write(store, c, upn, afterBackgroundCheck(c.link, upn, answer, undefined));
  }
  const claim = await claims.claim(c.tenantId, answer.userId, c, now);
  const next = afterBackgroundCheck(c.link, upn, answer, claim);
  if (next.status === c.link.status && next.conflictUserId === c.link.conflictUserId) return next.status === 'conflict' ? 'conflicts' : 'stillPending';
  const outcome = await write(store, c, upn, next);
  if (outcome === 'skipped' && claim === 'claimed') await claims.release(c.tenantId, answer.userId, c);
  return outcome;
}

/**
 * Writes the new link if the identity still asserts the same UPN with the same status. lastModified is
 * the time of this write, not of the run's start: a client polling `meta.lastModified gt` while a long
 * run goes on must find every identity the run changes after its poll.
 */
async function write(store: Store, c: Candidate, upn: string, link: DirectoryLink): Promise<'linked' | 'stillPending' | 'conflicts' | 'skipped'> {
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
