/**
 * The directory-link state machine (spec §3.3, §3.4), as pure functions. Every link change goes
 * through a named transition here: SCIM saves (saveAction, withoutAssertion, afterLookup), the
 * background run (afterBackgroundCheck), associations (associationAction, afterAssociationClaim) and
 * administrators (manualLinkAction, afterManualClaim, unlinked).
 * Input: the stored link, what the caller asks for, what the directory answered and whether the
 * directory user could be claimed. Output: the new link and the effects (claims to release, audit entries).
 */
import type { DirectoryLink } from '../identities/model';
import { sameUpn, upnKey } from '../identities/upn';

export type DirectoryAnswer = { kind: 'found'; userId: string } | { kind: 'notFound' };
export type ClaimOutcome = 'claimed' | 'heldByOther';

export type LinkEffect =
  | { kind: 'releaseClaim'; userId: string }
  | {
      kind: 'audit';
      action:
        | 'link.manualReplacedByAsserted'
        | 'link.assertedRemoved'
        | 'link.associated'
        | 'link.manualLinked'
        | 'link.unlinked';
    };

export interface LinkTransition {
  link: DirectoryLink;
  effects: LinkEffect[];
}

/** The claim the identity holds now (asserted or manual link), if any. */
export function heldClaim(link: DirectoryLink | undefined): string | undefined {
  return link?.status === 'linked' ? link.userId : undefined;
}

/**
 * What saving with `upn` needs: `keep` (nothing changes), `noAssertion` (no UPN sent),
 * or `lookUp` (a new or changed UPN: ask the directory). A look-up happens only when the value changes.
 */
export function saveAction(
  previous: DirectoryLink | undefined,
  upn: string | undefined,
): 'keep' | 'noAssertion' | 'lookUp' {
  if (upn === undefined) return 'noAssertion';
  if (
    previous &&
    previous.status !== 'notAsserted' &&
    previous.source !== 'manual' &&
    sameUpn(previous.lookedUpUpn, upn)
  )
    return 'keep';
  return 'lookUp';
}

/** Saved without directoryUserPrincipalName. */
export function withoutAssertion(previous: DirectoryLink | undefined): LinkTransition {
  if (previous?.status === 'linked' && previous.source === 'manual') return { link: previous, effects: [] };
  const held = previous?.source === 'asserted' ? heldClaim(previous) : undefined;
  return {
    link: { status: 'notAsserted' },
    effects: held
      ? [
          { kind: 'releaseClaim', userId: held },
          { kind: 'audit', action: 'link.assertedRemoved' },
        ]
      : [],
  };
}

/**
 * Saved with a new or changed UPN, after the directory look-up and (when found) the claim attempt.
 * A link to a different user is given up; a manual link is replaced by the asserted one (audited).
 */
export function afterLookup(
  previous: DirectoryLink | undefined,
  upn: string,
  answer: DirectoryAnswer,
  claim: ClaimOutcome | undefined,
): LinkTransition {
  const held = heldClaim(previous);
  const wasManual = previous?.status === 'linked' && previous.source === 'manual';
  let link: DirectoryLink;
  if (answer.kind === 'notFound') link = { status: 'pending', lookedUpUpn: upn, upnKey: upnKey(upn) };
  else if (claim === 'claimed')
    link = { status: 'linked', source: 'asserted', userId: answer.userId, lookedUpUpn: upn };
  else link = { status: 'conflict', lookedUpUpn: upn, conflictUserId: answer.userId, upnKey: upnKey(upn) };

  const effects: LinkEffect[] = [];
  const keepsSameUser = link.status === 'linked' && link.userId === held;
  if (held && !keepsSameUser) effects.push({ kind: 'releaseClaim', userId: held });
  if (wasManual) effects.push({ kind: 'audit', action: 'link.manualReplacedByAsserted' });
  return { link, effects };
}

/** Background re-evaluation of a pending or conflict identity whose assertion has not changed. */
export function afterBackgroundCheck(
  previous: DirectoryLink,
  upn: string,
  answer: DirectoryAnswer,
  claim: ClaimOutcome | undefined,
): DirectoryLink {
  if (answer.kind === 'notFound') return { status: 'pending', lookedUpUpn: upn, upnKey: upnKey(upn) };
  if (claim === 'claimed') return { status: 'linked', source: 'asserted', userId: answer.userId, lookedUpUpn: upn };
  return { ...previous, status: 'conflict', lookedUpUpn: upn, conflictUserId: answer.userId, upnKey: upnKey(upn) };
}

/** A link to `userId` gives up the user held before, when it is another one. */
function releasing(previous: DirectoryLink | undefined, userId: string | undefined): LinkEffect[] {
  const held = heldClaim(previous);
  return held && held !== userId ? [{ kind: 'releaseClaim', userId: held }] : [];
}

/** An association pair: `unchanged` when the identity links to the user already, else the user is to be claimed. */
export function associationAction(previous: DirectoryLink, userId: string): 'unchanged' | 'claim' {
  return previous.status === 'linked' && previous.userId === userId ? 'unchanged' : 'claim';
}

/**
 * An association pair after the claim of its user: `conflict` when another identity holds the user; else
 * an asserted link to it, giving up the user linked before (audited as link.associated).
 */
export function afterAssociationClaim(
  previous: DirectoryLink,
  userId: string,
  claim: ClaimOutcome,
): LinkTransition | 'conflict' {
  if (claim !== 'claimed') return 'conflict';
  return {
    link: { status: 'linked', source: 'asserted', userId },
    effects: [...releasing(previous, userId), { kind: 'audit', action: 'link.associated' }],
  };
}

/** An administrator link to `userId`: `keep` when the identity has that manual link already, else the user is to be claimed. */
export function manualLinkAction(previous: DirectoryLink, userId: string): 'keep' | 'claim' {
  return previous.status === 'linked' && previous.userId === userId && previous.source === 'manual' ? 'keep' : 'claim';
}

/**
 * An administrator link after the claim: `heldByOther` when another identity holds the user (the
 * administrator unlinks it first); else a manual link, giving up the user linked before (audited).
 */
export function afterManualClaim(
  previous: DirectoryLink,
  userId: string,
  claim: ClaimOutcome,
): LinkTransition | 'heldByOther' {
  if (claim !== 'claimed') return 'heldByOther';
  return {
    link: { status: 'linked', source: 'manual', userId },
    effects: [...releasing(previous, userId), { kind: 'audit', action: 'link.manualLinked' }],
  };
}

/** An administrator unlink: undefined (nothing to do) unless the identity is linked; then no assertion and the user is released. */
export function unlinked(previous: DirectoryLink): LinkTransition | undefined {
  if (previous.status !== 'linked') return undefined;
  return {
    link: { status: 'notAsserted' },
    effects: [...releasing(previous, undefined), { kind: 'audit', action: 'link.unlinked' }],
  };
}
