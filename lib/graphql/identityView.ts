import type { ChangeActorKind, IdentityDoc, IdentityHistoryEntry } from '../identities/model';

const AFFILIATION: Record<string, string> = {
  employment: 'EMPLOYMENT',
  enrollment: 'ENROLLMENT',
  engagement: 'ENGAGEMENT',
  other: 'OTHER',
};
const NUMBER_TYPE: Record<string, string> = { DkCpr: 'DK_CPR' };
const DOC_TYPE: Record<string, string> = { Passport: 'PASSPORT', IdentityCard: 'IDENTITY_CARD' };
const STATUS: Record<string, string> = {
  linked: 'LINKED',
  pending: 'PENDING',
  conflict: 'CONFLICT',
  notAsserted: 'NOT_ASSERTED',
};

export interface LinkEventView {
  at: string;
  action: string;
  actorKind: string;
  actorId: string;
  status: string | null;
  userId: string | null;
}

export interface IdentityChangeView {
  at: string;
  actor: { kind: string; id: string; displayName: string | null };
  operation: string;
  changedAttributes: string[];
}

const ACTOR_KIND: Record<ChangeActorKind, string> = {
  integration: 'INTEGRATION',
  importRun: 'IMPORT_RUN',
  administrator: 'ADMINISTRATOR',
  background: 'BACKGROUND',
};

/** The identity's changes as GraphQL IdentityChange, newest first, each actor named by `displayName` when it knows it. */
export function historyView(
  doc: Pick<IdentityDoc, 'history'>,
  displayName: (actor: IdentityHistoryEntry['actor']) => string | null,
): IdentityChangeView[] {
  return (doc.history ?? []).map((e) => ({
    at: e.at,
    actor: { kind: ACTOR_KIND[e.actor.kind], id: e.actor.id, displayName: displayName(e.actor) },
    operation: e.operation,
    changedAttributes: [...e.changedAttributes],
  }));
}

/**
 * The GraphQL BusinessIdentity of a stored identity. Personal numbers and document numbers are
 * not part of it (spec §2.1 rule 1: only the creating SCIM integration reads them): only their kinds.
 */
export function identityView(doc: IdentityDoc, source: string) {
  const linked = doc.link.status === 'linked';
  return {
    id: doc.id,
    source,
    externalId: doc.externalId,
    userName: doc.userName ?? null,
    affiliationType: AFFILIATION[doc.affiliationType] ?? 'OTHER',
    firstName: doc.givenName,
    lastName: doc.familyName,
    active: doc.active,
    birthDate: doc.birthDate ?? null,
    nationality: doc.nationality ?? null,
    personalNumberTypes: [...new Set(doc.personalNumbers.map((p) => NUMBER_TYPE[p.type] ?? 'DK_CPR'))],
    identityDocumentTypes: [...new Set(doc.identityDocumentReferences.map((d) => DOC_TYPE[d.type] ?? 'IDENTITY_CARD'))],
    directoryUserPrincipalName: doc.directoryUserPrincipalName ?? null,
    directoryLinkStatus: STATUS[doc.link.status] ?? 'NOT_ASSERTED',
    directoryLinkSource: linked && doc.link.source ? doc.link.source.toUpperCase() : null,
    directoryLinkedUserId: linked ? (doc.link.userId ?? null) : null,
    linkedUserPrincipalName: linked ? (doc.link.userPrincipalName ?? doc.link.lookedUpUpn ?? null) : null,
    conflictHeldBy: null as { source: string; id: string; externalId: string } | null,
    nextCheckAt:
      doc.link.status === 'pending' || doc.link.status === 'conflict' ? (doc.link.nextCheckAt ?? null) : null,
    linkHistory: [] as LinkEventView[],
    history: [] as IdentityChangeView[],
    historyOmitted: 0,
    created: doc.created,
    lastModified: doc.lastModified,
  };
}
