/**
 * One background check of a pending or conflict identity whose assertion has not changed, given what
 * the directory says about its UPN: claim the user, apply the link state machine, write the identity
 * with its entity tag (a new version and lastModified on each try, see lib/store/stampedWrite), audit a
 * new link. Used by directory-change matching, the conflict re-check and the safety sweep.
 */
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import type { Store, WithEtag } from '../store/store';
import { isStoreError } from '../store/errors';
import { writeStamped } from '../store/stampedWrite';
import type { AuditLog, Actor } from '../audit/auditLog';
import type { LinkClaims } from './claims';
import { afterBackgroundCheck, type DirectoryAnswer } from './linkStateMachine';
import { afterUnchangedCheck, type BackoffPolicy } from './linkBackoff';
import { upnKey } from '../identities/upn';
import { nextIdentityVersion, withLinkBookkeeping } from '../identities/rules';
import { byBackground, withChange } from '../identities/history';

export interface LinkCheckDeps {
  store: Store;
  claims: LinkClaims;
  backoff: BackoffPolicy;
  audit?: AuditLog;
}

export type Candidate = WithEtag<IdentityDoc>;

export type CheckOutcome = 'linked' | 'conflict' | 'unchanged' | 'skipped';

/** Directory answers for a candidate: found, not found, or refused (Graph would not look the UPN up). */
export type CheckAnswer = DirectoryAnswer | { kind: 'refused' };

const BACKGROUND_ACTOR = (tenantId: string): Actor => ({ tenantId, kind: 'system', id: 'directory-links' });

export async function checkCandidate(
  deps: LinkCheckDeps,
  c: Candidate,
  answer: CheckAnswer,
  now: Date,
): Promise<CheckOutcome> {
  const upn = c.directoryUserPrincipalName;
  if (!upn || (c.link.status !== 'pending' && c.link.status !== 'conflict')) return 'skipped';
  if (answer.kind === 'refused') {
    // Only this identity waits: marked, and looked at again after its own back-off.
    return markOnly(deps.store, c, { ...afterUnchangedCheck(c.link, deps.backoff, now), lookupRefused: true });
  }
  if (answer.kind === 'notFound' && c.link.status === 'pending') {
    if (c.link.upnKey === upnKey(upn) && !c.link.lookupRefused && !c.link.lookUpOwed) return 'unchanged';
    return markOnly(deps.store, c, { ...withoutMarks(c.link), upnKey: upnKey(upn) });
  }
  const claim = answer.kind === 'found' ? await deps.claims.claim(c.tenantId, answer.userId, c, now) : undefined;
  const next = withoutMarks(afterBackgroundCheck(c.link, upn, answer, claim));
  if (next.status === c.link.status && next.conflictUserId === c.link.conflictUserId) {
    return markOnly(deps.store, c, afterUnchangedCheck(next, deps.backoff, now));
  }
  let outcome: CheckOutcome;
  try {
    outcome = await writeLink(deps.store, c, next);
  } catch (err) {
    if (claim === 'claimed' && answer.kind === 'found') await deps.claims.release(c.tenantId, answer.userId, c);
    throw err;
  }
  if (outcome === 'skipped' && claim === 'claimed' && answer.kind === 'found')
    await deps.claims.release(c.tenantId, answer.userId, c);
  if (outcome === 'linked' && deps.audit)
    await deps.audit.write(c.tenantId, {
      actor: BACKGROUND_ACTOR(c.tenantId),
      action: 'link.assertedLinked',
      target: { type: 'businessIdentity', id: c.id },
      before: { status: c.link.status, source: null, userId: null },
      after: { status: next.status, source: next.source ?? null, userId: next.userId ?? null },
    });
  return outcome;
}

/** The link once the directory answered for it: no refusal, no look-up owed. */
function withoutMarks(link: DirectoryLink): DirectoryLink {
  const { lookupRefused: _refused, lookUpOwed: _owed, ...rest } = link;
  return rest;
}

/**
 * A new link is a change of the resource: a new version, and lastModified the time of the write that
 * stores it (taken again on each try when the store throttles).
 */
async function writeLink(store: Store, c: Candidate, link: DirectoryLink): Promise<CheckOutcome> {
  const { _etag, ...rest } = c;
  const outcome: CheckOutcome =
    link.status === 'linked' ? 'linked' : link.status === 'conflict' ? 'conflict' : 'unchanged';
  try {
    await writeStamped((now) =>
      store.collection<IdentityDoc>('identities').replace(
        withChange(rest, nextIdentityVersion(rest, { link }, now), {
          actor: byBackground('directory-links'),
          operation: 'LINK_CHECK',
        }),
        _etag,
        { retryThrottled: false },
      ),
    );
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'notFound')) return 'skipped';
    throw err;
  }
  return outcome;
}

/** Bookkeeping of the check only (back-off, marks): not a change of the resource, so version and lastModified stay. */
async function markOnly(store: Store, c: Candidate, link: DirectoryLink): Promise<CheckOutcome> {
  try {
    await store.collection<IdentityDoc>('identities').replace(withLinkBookkeeping(c, link), c._etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed') || isStoreError(err, 'notFound')) return 'skipped';
    throw err;
  }
  return 'unchanged';
}
