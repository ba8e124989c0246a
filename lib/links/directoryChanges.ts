/**
 * Matches users the directory reports as created or changed (delta query) against the tenant's pending
 * and conflict identities that wait for their UPN: one indexed query on `link.upnKey` per group of
 * changed users (never a scan of pending identities). Removed users are never matched.
 */
import type { IdentityDoc } from '../identities/model';
import { forEachBounded } from '../util/concurrency';
import type { DeltaUser } from '../directory/userDelta';
import { checkCandidate, type Candidate, type LinkCheckDeps } from './linkCheck';
import { upnKey } from '../identities/upn';
import { waitingForUpns } from '../store/queries/identities';

/** UPN keys per matching query (an IN list on an indexed path). */
export const KEYS_PER_MATCH_QUERY = 50;
const CHECK_CONCURRENCY = 8;

export interface MatchResult {
  /** Changed users with a UPN that were looked for. */
  changedUsers: number;
  /** Identities waiting for one of those UPNs. */
  matched: number;
  linked: number;
  conflicts: number;
}

export async function matchDirectoryChanges(
  deps: LinkCheckDeps,
  tenantId: string,
  users: DeltaUser[],
  now: Date,
): Promise<MatchResult> {
  const byKey = new Map<string, { id: string; upn: string }>();
  for (const u of users)
    if (!u.removed && u.userPrincipalName)
      byKey.set(upnKey(u.userPrincipalName), { id: u.id, upn: u.userPrincipalName });
  const result: MatchResult = { changedUsers: byKey.size, matched: 0, linked: 0, conflicts: 0 };
  const changed = [...byKey.entries()];
  for (let i = 0; i < changed.length; i += KEYS_PER_MATCH_QUERY) {
    const group = changed.slice(i, i + KEYS_PER_MATCH_QUERY);
    const candidates = await waitingFor(
      deps,
      tenantId,
      group.map(([key, u]) => ({ key, upn: u.upn })),
    );
    result.matched += candidates.length;
    await forEachBounded(candidates, CHECK_CONCURRENCY, async (c) => {
      const asserted = c.directoryUserPrincipalName;
      const userId = asserted !== undefined ? byKey.get(upnKey(asserted))?.id : undefined;
      if (!userId) return;
      const outcome = await checkCandidate(deps, c, { kind: 'found', userId }, now);
      if (outcome === 'linked') result.linked++;
      else if (outcome === 'conflict') result.conflicts++;
    });
  }
  return result;
}

/**
 * Pending and conflict identities of the tenant that wait for one of these UPNs (one indexed query).
 * Identities stored before `link.upnKey` existed are found by the UPN as the directory spells it
 * (the safety sweep gives them their key).
 */
async function waitingFor(
  deps: LinkCheckDeps,
  tenantId: string,
  changed: Array<{ key: string; upn: string }>,
): Promise<Candidate[]> {
  return deps.store.collection<IdentityDoc>('identities').all(waitingForUpns<Candidate>(tenantId, changed));
}
