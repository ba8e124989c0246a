/**
 * The GraphQL operations the console sends, typed after lib/graphql/schema.graphql (a unit test
 * validates every document against the schema). The console never asks for personal numbers or
 * document numbers: the schema has no field for them, only their kinds.
 */
export type LinkStatus = 'LINKED' | 'PENDING' | 'CONFLICT' | 'NOT_ASSERTED';

export interface ScimIntegration {
  id: string;
  displayName: string;
  clientId: string;
  enabled: boolean;
  scimEndpoint: string;
}

export interface Identity {
  id: string;
  source: string;
  externalId: string;
  userName: string | null;
  affiliationType: 'EMPLOYMENT' | 'ENROLLMENT' | 'ENGAGEMENT' | 'OTHER';
  firstName: string;
  lastName: string;
  active: boolean;
  birthDate: string | null;
  nationality: string | null;
  personalNumberTypes: string[];
  identityDocumentTypes: string[];
  directoryUserPrincipalName: string | null;
  directoryLinkStatus: LinkStatus;
  directoryLinkSource: 'ASSERTED' | 'MANUAL' | null;
  directoryLinkedUserId: string | null;
  linkedUserPrincipalName: string | null;
  conflictHeldBy: { source: string; id: string; externalId: string } | null;
  nextCheckAt: string | null;
  created: string;
  lastModified: string;
}

export interface LinkEvent {
  at: string;
  action: string;
  actorKind: string;
  actorId: string;
  status: string | null;
  userId: string | null;
}

export interface ImportRun {
  id: string;
  operation: 'IMPORT' | 'ASSOCIATION';
  source: string;
  clientId: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  submitted: number;
  importCounts: { created: number; updated: number; deleted: number; unchanged: number } | null;
  associationCounts: {
    associated: number;
    unchanged: number;
    unknownExternalIds: number;
    unknownUserPrincipalNames: number;
    conflictingUserPrincipalNames: number;
    notDone: number;
  } | null;
  failure: { code: string; message: string } | null;
}

export type ActivityOutcome = 'SUCCEEDED' | 'REFUSED' | 'FAILED';

export interface ActivityEntry {
  at: string;
  operation: string;
  outcome: ActivityOutcome;
  httpStatus: number | null;
  scimType: string | null;
  code: string | null;
  detail: string | null;
  externalId: string | null;
  identityId: string | null;
  changedAttributes: string[] | null;
  correlationId: string | null;
}

export interface SourceSummary {
  name: string;
  kind: 'SCIM' | 'CUSTOM' | 'MANUAL';
  displayName: string;
  counts: { total: number; linked: number; pending: number; conflict: number; notAsserted: number };
}

const INTEGRATION = 'id displayName clientId enabled scimEndpoint';
const IDENTITY = `id source externalId userName affiliationType firstName lastName active birthDate nationality
  personalNumberTypes identityDocumentTypes directoryUserPrincipalName directoryLinkStatus directoryLinkSource
  directoryLinkedUserId linkedUserPrincipalName conflictHeldBy { source id externalId } nextCheckAt created lastModified`;
const RUN = `id operation source clientId status startedAt endedAt submitted
  importCounts { created updated deleted unchanged }
  associationCounts { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames notDone }
  failure { code message }`;

export const Q = {
  integrations: `query Integrations { scimIntegrations { ${INTEGRATION} } }`,
  createIntegration: `mutation CreateIntegration($input: CreateScimIntegrationInput!) { createScimIntegration(input: $input) { scimIntegration { ${INTEGRATION} } } }`,
  disableIntegration: `mutation DisableIntegration($input: ScimIntegrationIdInput!) { disableScimIntegration(input: $input) { scimIntegration { ${INTEGRATION} } } }`,
  enableIntegration: `mutation EnableIntegration($input: ScimIntegrationIdInput!) { enableScimIntegration(input: $input) { scimIntegration { ${INTEGRATION} } } }`,
  sources: `query Sources { sources { name kind displayName counts { total linked pending conflict notAsserted } } }`,
  identities: `query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) { businessIdentities(source: $source, filter: $filter, first: $first, after: $after) { nodes { ${IDENTITY} } endCursor hasNextPage } }`,
  identity: `query Identity($source: String!, $id: ID!) { businessIdentity(source: $source, id: $id) { ${IDENTITY} linkHistory { at action actorKind actorId status userId } } }`,
  link: `mutation Link($input: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $input) { businessIdentity { ${IDENTITY} } } }`,
  unlink: `mutation Unlink($input: UnlinkBusinessIdentityInput!) { unlinkBusinessIdentity(input: $input) { businessIdentity { ${IDENTITY} } } }`,
  runs: `query Runs($source: String!, $first: Int) { importRuns(source: $source, first: $first) { ${RUN} } }`,
  createManual: `mutation CreateManual($input: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $input) { businessIdentity { ${IDENTITY} } } }`,
  updateManual: `mutation UpdateManual($input: UpdateBusinessIdentityInput!) { updateBusinessIdentity(input: $input) { businessIdentity { ${IDENTITY} } } }`,
  deactivateManual: `mutation DeactivateManual($input: BusinessIdentityRefInput!) { deactivateBusinessIdentity(input: $input) { businessIdentity { ${IDENTITY} } } }`,
  deleteManual: `mutation DeleteManual($input: BusinessIdentityRefInput!) { deleteBusinessIdentity(input: $input) { id } }`,
  activity: `query Activity($source: String!, $filter: ActivityFilter, $first: Int, $after: String) { activity(source: $source, filter: $filter, first: $first, after: $after) { nodes { at operation outcome httpStatus scimType code detail externalId identityId changedAttributes correlationId } endCursor hasNextPage } }`,
} as const;

export interface Results {
  integrations: { scimIntegrations: ScimIntegration[] };
  createIntegration: { createScimIntegration: { scimIntegration: ScimIntegration } };
  disableIntegration: { disableScimIntegration: { scimIntegration: ScimIntegration } };
  enableIntegration: { enableScimIntegration: { scimIntegration: ScimIntegration } };
  sources: { sources: SourceSummary[] };
  identities: { businessIdentities: { nodes: Identity[]; endCursor: string | null; hasNextPage: boolean } };
  identity: { businessIdentity: (Identity & { linkHistory: LinkEvent[] }) | null };
  link: { linkBusinessIdentity: { businessIdentity: Identity } };
  unlink: { unlinkBusinessIdentity: { businessIdentity: Identity } };
  runs: { importRuns: ImportRun[] };
  createManual: { createBusinessIdentity: { businessIdentity: Identity } };
  updateManual: { updateBusinessIdentity: { businessIdentity: Identity } };
  deactivateManual: { deactivateBusinessIdentity: { businessIdentity: Identity } };
  deleteManual: { deleteBusinessIdentity: { id: string } };
  activity: { activity: { nodes: ActivityEntry[]; endCursor: string | null; hasNextPage: boolean } };
}

export type Operation = keyof typeof Q;

export class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'GraphQLRequestError';
  }
}

export type Send = <K extends Operation>(op: K, variables?: Record<string, unknown>) => Promise<Results[K]>;

/** A sender of the console's operations with the signed-in administrator's token. */
export function createSend(token: () => Promise<string>, fetchImpl: typeof fetch = fetch): Send {
  return async (op, variables) => {
    const res = await fetchImpl('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
      body: JSON.stringify({ query: Q[op], variables }),
    });
    const body = (await res.json()) as {
      data?: unknown;
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    };
    const first = body.errors?.[0];
    if (first) throw new GraphQLRequestError(first.message, first.extensions?.code ?? 'UNEXPECTED');
    return body.data as never;
  };
}
