/**
 * The directory-link state machine of a SCIM identity (spec §3.3), as pure functions.
 * Input: the stored link, the asserted UPN before and now, what the directory answered
 * and whether the directory user could be claimed. Output: the new link and the effects.
 */
import type { DirectoryLink } from '../identities/model';
import { upnKey } from './upnKey';

export type DirectoryAnswer = { kind: 'found'; userId: string } | { kind: 'notFound' };
export type ClaimOutcome = 'claimed' | 'heldByOther';

export type LinkEffect =
  | { kind: 'releaseClaim'; userId: string }
  | { kind: 'audit'; action: 'link.manualReplacedByAsserted' | 'link.assertedRemoved' };

export interface LinkTransition {
  link: DirectoryLink;
  effects: LinkEffect[];
}

const sameUpn = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

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
