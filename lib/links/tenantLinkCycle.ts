/**
 * One background cycle of a tenant's directory links (a unit of background work):
 * 1. Directory change tracking: asks Graph's user delta for what changed since the tenant's last
 *    deltaLink (a first round, or a round after Graph expired the token, pages the whole directory once)
 *    and matches created or renamed users against the pending and conflict identities waiting for
 *    their UPN (lib/links/directoryChanges.ts). An idle tenant costs one Graph request.
 * 2. Conflicts that are due (new ones, and those woken because their user's claim was released), and
 *    identities saved while the directory could not be asked, are looked up.
 * 3. A slow safety sweep looks up a bounded number of pending identities (the first cycle of a tenant,
 *    then once per SWEEP_INTERVAL_MS), for anything the delta could not show (a user created just
 *    before its identity was saved, while the look-up at save did not see it yet).
 * Safe when two units of one tenant overlap or a unit runs twice: matching is idempotent (claims are
 * atomic, identity writes use the entity tag) and the tracking state is saved with its entity tag.
 */
import type { IdentityDoc } from '../identities/model';
import type { DirectoryClient } from '../directory/directoryClient';
import { DeltaTokenExpiredError, fetchUserDeltaPage } from '../directory/userDelta';
import { forEachBounded } from '../util/concurrency';
import { DeltaStates, type DeltaState } from './deltaState';
import { matchDirectoryChanges } from './directoryChanges';
import { checkCandidate, type Candidate, type CheckAnswer, type LinkCheckDeps } from './linkCheck';
import { upnKey } from '../identities/upn';
import { conflictsToRecheck, pendingToSweep } from '../store/queries/identities';

export interface TenantCycleDeps extends LinkCheckDeps {
  directory: DirectoryClient;
}

/** Delta pages one unit reads; a longer round (a first round of a large directory) goes on in the next unit. */
export const DELTA_PAGES_PER_UNIT = 50;
/** Pending identities one sweep looks up: 20 filter queries of 15 UPNs, one `$batch`. */
export const SWEEP_LIMIT = 300;
/** A tenant's sweep runs at most this often (every 12th cycle at the 5-minute cadence). */
export const SWEEP_INTERVAL_MS = 60 * 60_000;
/** Due conflicts one cycle looks up again. */
export const CONFLICT_RECHECK_LIMIT = 300;
const CHECK_CONCURRENCY = 8;

export interface TenantCycleResult {
  deltaPages: number;
  /** The delta round started over because Graph no longer knew the token. */
  resynced: boolean;
  /** The delta round of this unit is not complete: a continuation unit goes on. */
  more: boolean;
  changedUsers: number;
  linked: number;
  conflicts: number;
  rechecked: number;
  swept: number;
  refused: number;
  directoryRequests: number;
}

export async function runTenantLinkCycle(
  deps: TenantCycleDeps,
  tenantId: string,
  now = new Date(),
  options: { deltaPagesPerUnit?: number } = {},
): Promise<TenantCycleResult> {
  const requestsBefore = deps.directory.requestCount;
  const states = new DeltaStates(deps.store);
  const stored = await states.get(tenantId);
  const result: TenantCycleResult = {
    deltaPages: 0,
    resynced: false,
    more: false,
    changedUsers: 0,
    linked: 0,
    conflicts: 0,
    rechecked: 0,
    swept: 0,
    refused: 0,
    directoryRequests: 0,
  };
  const state: Omit<DeltaState, 'id' | 'pk'> = {
    tenantId,
    ...(stored?.deltaLink ? { deltaLink: stored.deltaLink } : {}),
    ...(stored?.nextLink ? { nextLink: stored.nextLink, fullRound: stored.fullRound === true } : {}),
    ...(stored?.sweepAfter ? { sweepAfter: stored.sweepAfter } : {}),
    ...(stored?.sweepDueAt ? { sweepDueAt: stored.sweepDueAt } : {}),
    updatedAt: now.toISOString(),
  };
  try {
    await followChanges(deps, tenantId, state, result, now, options.deltaPagesPerUnit ?? DELTA_PAGES_PER_UNIT);
    await recheckConflicts(deps, tenantId, result, now);
    if (!result.more && (state.sweepDueAt === undefined || state.sweepDueAt <= now.toISOString()))
      await sweepPending(deps, tenantId, state, result, now);
  } finally {
    await states.save(state, stored);
    result.directoryRequests = deps.directory.requestCount - requestsBefore;
  }
  return result;
}

async function followChanges(
  deps: TenantCycleDeps,
  tenantId: string,
  state: Omit<DeltaState, 'id' | 'pk'>,
  result: TenantCycleResult,
  now: Date,
  pageLimit: number,
): Promise<void> {
  let link = state.nextLink ?? state.deltaLink;
  let fullRound = state.nextLink ? state.fullRound === true : !state.deltaLink;
  while (result.deltaPages < pageLimit) {
    let page;
    try {
      page = await fetchUserDeltaPage(deps.directory, tenantId, link);
    } catch (err) {
      if (!(err instanceof DeltaTokenExpiredError) || link === undefined) throw err;
      // Graph no longer knows the token: a new full round, from the start.
      result.resynced = true;
      link = undefined;
      fullRound = true;
      delete state.nextLink;
      delete state.deltaLink;
      continue;
    }
    result.deltaPages++;
    const matched = await matchDirectoryChanges(deps, tenantId, page.users, now);
    result.changedUsers += matched.changedUsers;
    result.linked += matched.linked;
    result.conflicts += matched.conflicts;
    if (page.nextLink) {
      link = page.nextLink;
      state.nextLink = page.nextLink;
      state.fullRound = fullRound;
      continue;
    }
    delete state.nextLink;
    delete state.fullRound;
    if (page.deltaLink) state.deltaLink = page.deltaLink;
    return;
  }
  result.more = true;
}

/**
 * Conflicts that are due (new ones, and those whose user's claim was released, see LinkClaims.release)
 * and pending identities saved while the directory could not be asked: one indexed query, usually empty.
 */
async function recheckConflicts(
  deps: TenantCycleDeps,
  tenantId: string,
  result: TenantCycleResult,
  now: Date,
): Promise<void> {
  const page = await deps.store
    .collection<IdentityDoc>('identities')
    .page(conflictsToRecheck<Candidate>(tenantId, now.toISOString()), { maxItemCount: CONFLICT_RECHECK_LIMIT });
  result.rechecked = page.items.length;
  await lookUpAndCheck(deps, tenantId, page.items, result, now);
}

/** The safety sweep: the next SWEEP_LIMIT pending identities in id order (wrapping), looked up by UPN. */
async function sweepPending(
  deps: TenantCycleDeps,
  tenantId: string,
  state: Omit<DeltaState, 'id' | 'pk'>,
  result: TenantCycleResult,
  now: Date,
): Promise<void> {
  const page = await deps.store
    .collection<IdentityDoc>('identities')
    .page(pendingToSweep<Candidate>(tenantId, now.toISOString(), state.sweepAfter ?? ''), {
      maxItemCount: SWEEP_LIMIT,
    });
  result.swept = page.items.length;
  await lookUpAndCheck(deps, tenantId, page.items, result, now);
  const last = page.items.at(-1)?.id;
  if (page.continuationToken && last) state.sweepAfter = last;
  else delete state.sweepAfter;
  state.sweepDueAt = new Date(now.getTime() + SWEEP_INTERVAL_MS).toISOString();
}

async function lookUpAndCheck(
  deps: TenantCycleDeps,
  tenantId: string,
  candidates: Candidate[],
  result: TenantCycleResult,
  now: Date,
): Promise<void> {
  const asserted = candidates.filter((c) => c.directoryUserPrincipalName);
  if (asserted.length === 0) return;
  const { found, refused } = await deps.directory.lookUpUpns(
    tenantId,
    asserted.map((c) => c.directoryUserPrincipalName ?? ''),
  );
  await forEachBounded(asserted, CHECK_CONCURRENCY, async (c) => {
    const key = upnKey(c.directoryUserPrincipalName ?? '');
    const user = found.get(key);
    const answer: CheckAnswer = refused.has(key)
      ? { kind: 'refused' }
      : user
        ? { kind: 'found', userId: user.id }
        : { kind: 'notFound' };
    if (answer.kind === 'refused') result.refused++;
    const outcome = await checkCandidate(deps, c, answer, now);
    if (outcome === 'linked') result.linked++;
    else if (outcome === 'conflict') result.conflicts++;
  });
}
