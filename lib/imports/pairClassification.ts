/**
 * The first step of an association (spec §3.4), pure: each pair judged on the stored links of the
 * source's identities and the directory's answers, before anything is claimed or written. Pairs left
 * `toLink` become associated, or conflicting when another identity holds their user, at claim time
 * (see afterAssociationClaim in lib/links/linkStateMachine).
 */
import type { DirectoryLink } from '../identities/model';
import { ATTRIBUTE } from '../identities/attributes';
import { isUpnShaped, upnKey } from '../identities/upn';
import { associationAction } from '../links/linkStateMachine';

export interface AssociationPair {
  externalId: string;
  userPrincipalName: string;
}

/** An identity's stored link, by externalId. */
export interface StoredLink {
  id: string;
  link: DirectoryLink;
}

export interface DirectoryAnswers {
  /** Directory users by UPN key (lib/identities/upn.ts). */
  users: ReadonlyMap<string, { id: string }>;
  /** UPN keys the directory could not be asked about (throttled or failing): their pairs are sent again. */
  unavailable: ReadonlySet<string>;
}

export interface PairClassification<P extends AssociationPair> {
  unknownExternalIds: string[];
  /** Each UPN as sent, once. */
  unknownUserPrincipalNames: string[];
  unchanged: number;
  /** Pairs whose user the directory could not be asked about: the caller sends them again. */
  directoryUnavailable: P[];
  /** Pairs to link, each user once (written in batches). */
  toLink: Array<{ pair: P; identityId: string; userId: string }>;
  /** Pairs judged one by one: their identity's link could not be read, or their user is named by an earlier pair. */
  oneByOne: Array<{ pair: P; identityId?: string }>;
}

/** An externalId no identity can have (empty or longer than an import accepts): the pair is unknown, not a bad list. */
export function isPossibleExternalId(externalId: string): boolean {
  return externalId !== '' && externalId.length <= ATTRIBUTE.externalId.maxLength;
}

export function classifyPairs<P extends AssociationPair>(
  pairs: readonly P[],
  stored: { links: ReadonlyMap<string, StoredLink>; unread: ReadonlySet<string> },
  directory: DirectoryAnswers,
): PairClassification<P> {
  const out: PairClassification<P> = {
    unknownExternalIds: [],
    unknownUserPrincipalNames: [],
    unchanged: 0,
    directoryUnavailable: [],
    toLink: [],
    oneByOne: [],
  };
  const possible = pairs.filter((a) => {
    if (isPossibleExternalId(a.externalId)) return true;
    out.unknownExternalIds.push(a.externalId);
    return false;
  });
  const unknownUpns = new Set<string>();
  const usersToLink = new Set<string>();
  for (const a of possible) {
    if (stored.unread.has(a.externalId)) {
      out.oneByOne.push({ pair: a });
      continue;
    }
    const identity = stored.links.get(a.externalId);
    const upn = upnKey(a.userPrincipalName);
    const user = isUpnShaped(a.userPrincipalName) ? directory.users.get(upn) : undefined;
    if (!identity) out.unknownExternalIds.push(a.externalId);
    else if (directory.unavailable.has(upn)) out.directoryUnavailable.push(a);
    else if (!user) unknownUpns.add(a.userPrincipalName);
    else if (associationAction(identity.link, user.id) === 'unchanged') out.unchanged++;
    // A user named by more than one pair is decided one by one, after the batches (one of them may conflict).
    else if (usersToLink.has(user.id)) out.oneByOne.push({ pair: a, identityId: identity.id });
    else {
      usersToLink.add(user.id);
      out.toLink.push({ pair: a, identityId: identity.id, userId: user.id });
    }
  }
  out.unknownUserPrincipalNames = [...unknownUpns];
  return out;
}
