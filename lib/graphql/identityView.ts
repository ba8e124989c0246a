import type { IdentityDoc } from '../identities/model';

const AFFILIATION: Record<string, string> = { employment: 'EMPLOYMENT', enrollment: 'ENROLLMENT', engagement: 'ENGAGEMENT', other: 'OTHER' };
const DOC_TYPE: Record<string, string> = { Passport: 'PASSPORT', IdentityCard: 'IDENTITY_CARD' };
const STATUS: Record<string, string> = { linked: 'LINKED', pending: 'PENDING', conflict: 'CONFLICT', notAsserted: 'NOT_ASSERTED' };

/** The GraphQL BusinessIdentity of a stored identity. Sensitive lists are resolved only when selected. */
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
    personalNumbers: () => doc.personalNumbers.map((p) => ({ type: 'DK_CPR', value: p.value })),
    identityDocumentReferences: () => doc.identityDocumentReferences.map((d) => ({ type: DOC_TYPE[d.type], issuingCountry: d.issuingCountry, documentNumber: d.documentNumber })),
    directoryUserPrincipalName: doc.directoryUserPrincipalName ?? null,
    directoryLinkStatus: STATUS[doc.link.status] ?? 'NOT_ASSERTED',
    directoryLinkSource: linked && doc.link.source ? doc.link.source.toUpperCase() : null,
    directoryLinkedUserId: linked ? (doc.link.userId ?? null) : null,
    created: doc.created,
    lastModified: doc.lastModified,
  };
}
