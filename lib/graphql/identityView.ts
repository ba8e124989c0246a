import { IDENTITY_ATTRIBUTES, graphqlEnumName, type AttributeRow } from '../identities/attributes';
import type { ChangeActorKind, IdentityDoc, IdentityHistoryEntry } from '../identities/model';
import { readHistory } from '../identities/history';

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

export const ACTOR_KIND: Record<ChangeActorKind, string> = {
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
  return readHistory(doc).map((e) => ({
    at: e.at,
    actor: { kind: ACTOR_KIND[e.actor.kind], id: e.actor.id, displayName: displayName(e.actor) },
    operation: e.operation,
    changedAttributes: e.changedAttributes,
  }));
}

/**
 * The attribute fields of BusinessIdentity: the rows of the attribute table with a GraphQL field. Sensitive
 * lists (personal numbers, document references) are not part of it (spec §2.1 rule 1: only the creating SCIM
 * integration reads them): their field holds only the kinds stored.
 */
function attributeFields(doc: IdentityDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
  for (const row of rows) {
    if (row.graphql === undefined) continue;
    const value = (doc as unknown as Record<string, unknown>)[row.name];
    const kinds = row.items?.find((f) => f.name === 'type')?.values ?? [];
    if (Array.isArray(value))
      out[row.graphql] = [...new Set(value.map((item: { type: string }) => graphqlEnumName(kinds, item.type)))];
    else if (row.values !== undefined && typeof value === 'string')
      out[row.graphql] = graphqlEnumName(row.values, value);
    else out[row.graphql] = value ?? null;
  }
  return out;
}

/** The GraphQL BusinessIdentity of a stored identity. */
export function identityView(doc: IdentityDoc, source: string) {
  const linked = doc.link.status === 'linked';
  return {
    id: doc.id,
    source,
    ...attributeFields(doc),
    // Stored words; the enum resolvers (linkEnums.ts) give their GraphQL values.
    directoryLinkStatus: doc.link.status,
    directoryLinkSource: linked ? (doc.link.source ?? null) : null,
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
