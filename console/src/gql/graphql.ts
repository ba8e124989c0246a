/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** What an entry did, as Entra's provisioning logs name it. */
export type ActivityAction =
  /** CREATE, IMPORT_CREATE, POST /Users. */
  | 'CREATE'
  /** DEACTIVATE, IMPORT_DEACTIVATE (SCIM's soft delete, Entra's disable), DELETE /Users/{id}. */
  | 'DELETE'
  /** LINK: the identity was linked to a directory user. */
  | 'LINK'
  /** A run's summary, LINK_CHECK, RETENTION, a refused read, a minute's counted refusals. */
  | 'OTHER'
  /** UNLINK. */
  | 'UNLINK'
  /** REPLACE, PATCH, IMPORT_UPDATE, ADMIN_UPDATE, PUT or PATCH /Users/{id}. */
  | 'UPDATE';

export type ActivityFilter = {
  action?: ActivityAction | null | undefined;
  /** Entries of this externalId only (a run's summary concerns a whole set, so it never matches; a run's changes do). */
  externalId?: string | null | undefined;
  /** Entries at or after this time: a date (YYYY-MM-DD, midnight UTC) or an ISO 8601 time with its offset (2026-03-01T08:00:00Z). */
  from?: string | null | undefined;
  outcome?: ActivityOutcome | null | undefined;
  /** The changes of this import or association run (its id): the run's drill-in. The source is the run's. */
  run?: string | number | null | undefined;
  /** The older name of `from` (used when `from` is not given). */
  since?: string | null | undefined;
  /** Entries before this time (a date: before its midnight UTC), in the same forms as `from`. */
  until?: string | null | undefined;
};

export type ActivityOutcome =
  /** A run FAILED part-way or was ABANDONED. */
  | 'FAILED'
  /** The service refused the request: a SCIM request answered 4xx, a run REJECTED before it wrote anything. */
  | 'REFUSED'
  /** A change was made (identity history) or a run completed. */
  | 'SUCCEEDED';

export type AffiliationType =
  | 'EMPLOYMENT'
  | 'ENGAGEMENT'
  | 'ENROLLMENT'
  | 'OTHER';

export type BusinessIdentityFilter = {
  externalId?: string | null | undefined;
  linkStatus?: DirectoryLinkStatus | null | undefined;
  /** An externalId, or a user principal name (asserted, or of the linked user), matched exactly (UPN case-insensitively). */
  search?: string | null | undefined;
};

export type BusinessIdentityRefInput = {
  /** The id of a Manual identity. */
  id: string | number;
};

export type ChangeActorKind =
  /** An administrator in the console or an application with the Admin role (id = its object or client id; a console user's displayName is the token's `name` at the time of the change). */
  | 'ADMINISTRATOR'
  /** The service's background link work or retention (id = the work's name). */
  | 'BACKGROUND'
  /** A custom source's import or association run (id = the run id). */
  | 'IMPORT_RUN'
  /** A SCIM integration (id = the integration's id). */
  | 'INTEGRATION';

export type CreateScimIntegrationInput = {
  clientId: string;
  displayName: string;
};

export type DirectoryLinkSource =
  | 'ASSERTED'
  | 'MANUAL';

export type DirectoryLinkStatus =
  | 'CONFLICT'
  | 'LINKED'
  | 'NOT_ASSERTED'
  | 'PENDING';

export type IdentityDocumentReferenceInput = {
  documentNumber?: string | null | undefined;
  issuingCountry: string;
  type: IdentityDocumentType;
};

export type IdentityDocumentType =
  | 'IDENTITY_CARD'
  | 'PASSPORT';

export type ImportBusinessIdentityInput = {
  affiliationType: AffiliationType;
  birthDate?: string | null | undefined;
  externalId: string;
  firstName: string;
  identityDocumentReferences?: Array<IdentityDocumentReferenceInput> | null | undefined;
  lastName: string;
  nationality?: string | null | undefined;
  personalEmail?: string | null | undefined;
  personalNumbers?: Array<PersonalNumberInput> | null | undefined;
  personalPhone?: string | null | undefined;
};

export type ImportRunOperation =
  | 'ASSOCIATION'
  | 'IMPORT';

export type ImportRunStatus =
  /** Stopped before it could record its end: an import whose lease was no longer renewed for a minute (its process stopped), an association past the 10-minute function time limit, a staged import's job nothing worked on for 10 minutes. The same request sent again continues from what was written. (A staged import's job that stopped is continued by the queue, not abandoned.) */
  | 'ABANDONED'
  | 'COMPLETED'
  /** Stopped part-way by a failure (failure says which): what was written stays; the same request sent again continues from it. */
  | 'FAILED'
  /** A staged import accepted by completeImport whose job has not started yet. */
  | 'QUEUED'
  /** Refused before anything was written (invalid set or list, over a limit, another import running): failure says why. */
  | 'REJECTED'
  /** Still working. A client whose request timed out polls importRun until the status changes. */
  | 'RUNNING';

export type LinkBusinessIdentityInput = {
  directoryUserId?: string | null | undefined;
  id: string | number;
  /** The identity's partition-independent reference: source and id. */
  source: string;
  userPrincipalName?: string | null | undefined;
};

export type PersonalNumberInput = {
  type: PersonalNumberType;
  value: string;
};

export type PersonalNumberType =
  | 'DK_CPR';

export type ScimIntegrationIdInput = {
  id: string | number;
};

export type SourceKind =
  | 'CUSTOM'
  | 'MANUAL'
  | 'SCIM';

export type UnlinkBusinessIdentityInput = {
  id: string | number;
  source: string;
};

export type UpdateBusinessIdentityInput = {
  /** false deactivates (retention starts), true reactivates. */
  active?: boolean | null | undefined;
  affiliationType?: AffiliationType | null | undefined;
  birthDate?: string | null | undefined;
  firstName?: string | null | undefined;
  /** The id of a Manual identity. */
  id: string | number;
  /** Replaces the stored document references when given ([] deletes them). */
  identityDocumentReferences?: Array<IdentityDocumentReferenceInput> | null | undefined;
  lastName?: string | null | undefined;
  nationality?: string | null | undefined;
  personalEmail?: string | null | undefined;
  /** Replaces the stored personal numbers when given ([] deletes them). */
  personalNumbers?: Array<PersonalNumberInput> | null | undefined;
  personalPhone?: string | null | undefined;
};

export type IntegrationFieldsFragment = { id: string, displayName: string, clientId: string, enabled: boolean, scimEndpoint: string };

export type IdentityFieldsFragment = { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null };

export type RunFieldsFragment = { id: string, operation: ImportRunOperation, source: string, clientId: string, status: ImportRunStatus, startedAt: string, endedAt: string | null, submitted: number, dryRun: boolean, importCounts: { created: number, updated: number, deleted: number, unchanged: number } | null, associationCounts: { associated: number, unchanged: number, unknownExternalIds: number, unknownUserPrincipalNames: number, conflictingUserPrincipalNames: number, notDone: number } | null, failure: { code: string, message: string } | null };

export type IntegrationsQueryVariables = Exact<{ [key: string]: never; }>;


export type IntegrationsQuery = { scimIntegrations: Array<{ id: string, displayName: string, clientId: string, enabled: boolean, scimEndpoint: string }> };

export type CreateIntegrationMutationVariables = Exact<{
  input: CreateScimIntegrationInput;
}>;


export type CreateIntegrationMutation = { createScimIntegration: { scimIntegration: { id: string, displayName: string, clientId: string, enabled: boolean, scimEndpoint: string } } };

export type DisableIntegrationMutationVariables = Exact<{
  input: ScimIntegrationIdInput;
}>;


export type DisableIntegrationMutation = { disableScimIntegration: { scimIntegration: { id: string, displayName: string, clientId: string, enabled: boolean, scimEndpoint: string } } };

export type EnableIntegrationMutationVariables = Exact<{
  input: ScimIntegrationIdInput;
}>;


export type EnableIntegrationMutation = { enableScimIntegration: { scimIntegration: { id: string, displayName: string, clientId: string, enabled: boolean, scimEndpoint: string } } };

export type SourcesQueryVariables = Exact<{ [key: string]: never; }>;


export type SourcesQuery = { sources: Array<{ name: string, kind: SourceKind, displayName: string, counts: { total: number, linked: number, pending: number, conflict: number, notAsserted: number } }> };

export type IdentitiesQueryVariables = Exact<{
  source: string;
  filter?: BusinessIdentityFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type IdentitiesQuery = { businessIdentities: { endCursor: string | null, hasNextPage: boolean, nodes: Array<{ id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null }> } };

export type IdentityQueryVariables = Exact<{
  source: string;
  id: string | number;
}>;


export type IdentityQuery = { businessIdentity: { historyOmitted: number, id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, linkHistory: Array<{ at: string, action: string, actorKind: string, actorId: string, status: string | null, userId: string | null }>, history: Array<{ at: string, operation: string, changedAttributes: Array<string>, actor: { kind: ChangeActorKind, id: string, displayName: string | null } }>, conflictHeldBy: { source: string, id: string, externalId: string } | null } | null };

export type LinkMutationVariables = Exact<{
  input: LinkBusinessIdentityInput;
}>;


export type LinkMutation = { linkBusinessIdentity: { businessIdentity: { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null } } };

export type UnlinkMutationVariables = Exact<{
  input: UnlinkBusinessIdentityInput;
}>;


export type UnlinkMutation = { unlinkBusinessIdentity: { businessIdentity: { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null } } };

export type RunsQueryVariables = Exact<{
  source: string;
  first?: number | null | undefined;
}>;


export type RunsQuery = { importRuns: Array<{ id: string, operation: ImportRunOperation, source: string, clientId: string, status: ImportRunStatus, startedAt: string, endedAt: string | null, submitted: number, dryRun: boolean, importCounts: { created: number, updated: number, deleted: number, unchanged: number } | null, associationCounts: { associated: number, unchanged: number, unknownExternalIds: number, unknownUserPrincipalNames: number, conflictingUserPrincipalNames: number, notDone: number } | null, failure: { code: string, message: string } | null }> };

export type CreateManualMutationVariables = Exact<{
  input: ImportBusinessIdentityInput;
}>;


export type CreateManualMutation = { createBusinessIdentity: { businessIdentity: { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null } } };

export type UpdateManualMutationVariables = Exact<{
  input: UpdateBusinessIdentityInput;
}>;


export type UpdateManualMutation = { updateBusinessIdentity: { businessIdentity: { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null } } };

export type DeactivateManualMutationVariables = Exact<{
  input: BusinessIdentityRefInput;
}>;


export type DeactivateManualMutation = { deactivateBusinessIdentity: { businessIdentity: { id: string, source: string, externalId: string, userName: string | null, affiliationType: AffiliationType, firstName: string, lastName: string, active: boolean, birthDate: string | null, nationality: string | null, personalNumberTypes: Array<PersonalNumberType>, identityDocumentTypes: Array<IdentityDocumentType>, directoryUserPrincipalName: string | null, directoryLinkStatus: DirectoryLinkStatus, directoryLinkSource: DirectoryLinkSource | null, directoryLinkedUserId: string | null, linkedUserPrincipalName: string | null, nextCheckAt: string | null, created: string, lastModified: string, conflictHeldBy: { source: string, id: string, externalId: string } | null } } };

export type DeleteManualMutationVariables = Exact<{
  input: BusinessIdentityRefInput;
}>;


export type DeleteManualMutation = { deleteBusinessIdentity: { id: string } };

export type ActivityQueryVariables = Exact<{
  source?: string | null | undefined;
  filter?: ActivityFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ActivityQuery = { activity: { endCursor: string | null, hasNextPage: boolean, nodes: Array<{ at: string, source: string, operation: string, action: ActivityAction, outcome: ActivityOutcome, httpStatus: number | null, scimType: string | null, code: string | null, detail: string | null, recommendedAction: string | null, externalId: string | null, identityId: string | null, changedAttributes: Array<string> | null, correlationId: string | null, runId: string | null, durationMs: number | null, counts: Array<{ name: string, count: number }> | null, actor: { kind: ChangeActorKind, id: string, displayName: string | null } | null }> } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const IntegrationFieldsFragmentDoc = new TypedDocumentString(`
    fragment IntegrationFields on ScimIntegration {
  id
  displayName
  clientId
  enabled
  scimEndpoint
}
    `, {"fragmentName":"IntegrationFields"}) as unknown as TypedDocumentString<IntegrationFieldsFragment, unknown>;
export const IdentityFieldsFragmentDoc = new TypedDocumentString(`
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}
    `, {"fragmentName":"IdentityFields"}) as unknown as TypedDocumentString<IdentityFieldsFragment, unknown>;
export const RunFieldsFragmentDoc = new TypedDocumentString(`
    fragment RunFields on ImportRun {
  id
  operation
  source
  clientId
  status
  startedAt
  endedAt
  submitted
  dryRun
  importCounts {
    created
    updated
    deleted
    unchanged
  }
  associationCounts {
    associated
    unchanged
    unknownExternalIds
    unknownUserPrincipalNames
    conflictingUserPrincipalNames
    notDone
  }
  failure {
    code
    message
  }
}
    `, {"fragmentName":"RunFields"}) as unknown as TypedDocumentString<RunFieldsFragment, unknown>;
export const IntegrationsDocument = new TypedDocumentString(`
    query Integrations {
  scimIntegrations {
    ...IntegrationFields
  }
}
    fragment IntegrationFields on ScimIntegration {
  id
  displayName
  clientId
  enabled
  scimEndpoint
}`) as unknown as TypedDocumentString<IntegrationsQuery, IntegrationsQueryVariables>;
export const CreateIntegrationDocument = new TypedDocumentString(`
    mutation CreateIntegration($input: CreateScimIntegrationInput!) {
  createScimIntegration(input: $input) {
    scimIntegration {
      ...IntegrationFields
    }
  }
}
    fragment IntegrationFields on ScimIntegration {
  id
  displayName
  clientId
  enabled
  scimEndpoint
}`) as unknown as TypedDocumentString<CreateIntegrationMutation, CreateIntegrationMutationVariables>;
export const DisableIntegrationDocument = new TypedDocumentString(`
    mutation DisableIntegration($input: ScimIntegrationIdInput!) {
  disableScimIntegration(input: $input) {
    scimIntegration {
      ...IntegrationFields
    }
  }
}
    fragment IntegrationFields on ScimIntegration {
  id
  displayName
  clientId
  enabled
  scimEndpoint
}`) as unknown as TypedDocumentString<DisableIntegrationMutation, DisableIntegrationMutationVariables>;
export const EnableIntegrationDocument = new TypedDocumentString(`
    mutation EnableIntegration($input: ScimIntegrationIdInput!) {
  enableScimIntegration(input: $input) {
    scimIntegration {
      ...IntegrationFields
    }
  }
}
    fragment IntegrationFields on ScimIntegration {
  id
  displayName
  clientId
  enabled
  scimEndpoint
}`) as unknown as TypedDocumentString<EnableIntegrationMutation, EnableIntegrationMutationVariables>;
export const SourcesDocument = new TypedDocumentString(`
    query Sources {
  sources {
    name
    kind
    displayName
    counts {
      total
      linked
      pending
      conflict
      notAsserted
    }
  }
}
    `) as unknown as TypedDocumentString<SourcesQuery, SourcesQueryVariables>;
export const IdentitiesDocument = new TypedDocumentString(`
    query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) {
  businessIdentities(
    source: $source
    filter: $filter
    first: $first
    after: $after
  ) {
    nodes {
      ...IdentityFields
    }
    endCursor
    hasNextPage
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<IdentitiesQuery, IdentitiesQueryVariables>;
export const IdentityDocument = new TypedDocumentString(`
    query Identity($source: String!, $id: ID!) {
  businessIdentity(source: $source, id: $id) {
    ...IdentityFields
    linkHistory {
      at
      action
      actorKind
      actorId
      status
      userId
    }
    history {
      at
      actor {
        kind
        id
        displayName
      }
      operation
      changedAttributes
    }
    historyOmitted
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<IdentityQuery, IdentityQueryVariables>;
export const LinkDocument = new TypedDocumentString(`
    mutation Link($input: LinkBusinessIdentityInput!) {
  linkBusinessIdentity(input: $input) {
    businessIdentity {
      ...IdentityFields
    }
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<LinkMutation, LinkMutationVariables>;
export const UnlinkDocument = new TypedDocumentString(`
    mutation Unlink($input: UnlinkBusinessIdentityInput!) {
  unlinkBusinessIdentity(input: $input) {
    businessIdentity {
      ...IdentityFields
    }
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<UnlinkMutation, UnlinkMutationVariables>;
export const RunsDocument = new TypedDocumentString(`
    query Runs($source: String!, $first: Int) {
  importRuns(source: $source, first: $first) {
    ...RunFields
  }
}
    fragment RunFields on ImportRun {
  id
  operation
  source
  clientId
  status
  startedAt
  endedAt
  submitted
  dryRun
  importCounts {
    created
    updated
    deleted
    unchanged
  }
  associationCounts {
    associated
    unchanged
    unknownExternalIds
    unknownUserPrincipalNames
    conflictingUserPrincipalNames
    notDone
  }
  failure {
    code
    message
  }
}`) as unknown as TypedDocumentString<RunsQuery, RunsQueryVariables>;
export const CreateManualDocument = new TypedDocumentString(`
    mutation CreateManual($input: ImportBusinessIdentityInput!) {
  createBusinessIdentity(input: $input) {
    businessIdentity {
      ...IdentityFields
    }
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<CreateManualMutation, CreateManualMutationVariables>;
export const UpdateManualDocument = new TypedDocumentString(`
    mutation UpdateManual($input: UpdateBusinessIdentityInput!) {
  updateBusinessIdentity(input: $input) {
    businessIdentity {
      ...IdentityFields
    }
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<UpdateManualMutation, UpdateManualMutationVariables>;
export const DeactivateManualDocument = new TypedDocumentString(`
    mutation DeactivateManual($input: BusinessIdentityRefInput!) {
  deactivateBusinessIdentity(input: $input) {
    businessIdentity {
      ...IdentityFields
    }
  }
}
    fragment IdentityFields on BusinessIdentity {
  id
  source
  externalId
  userName
  affiliationType
  firstName
  lastName
  active
  birthDate
  nationality
  personalNumberTypes
  identityDocumentTypes
  directoryUserPrincipalName
  directoryLinkStatus
  directoryLinkSource
  directoryLinkedUserId
  linkedUserPrincipalName
  conflictHeldBy {
    source
    id
    externalId
  }
  nextCheckAt
  created
  lastModified
}`) as unknown as TypedDocumentString<DeactivateManualMutation, DeactivateManualMutationVariables>;
export const DeleteManualDocument = new TypedDocumentString(`
    mutation DeleteManual($input: BusinessIdentityRefInput!) {
  deleteBusinessIdentity(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeleteManualMutation, DeleteManualMutationVariables>;
export const ActivityDocument = new TypedDocumentString(`
    query Activity($source: String, $filter: ActivityFilter, $first: Int, $after: String) {
  activity(source: $source, filter: $filter, first: $first, after: $after) {
    nodes {
      at
      source
      operation
      action
      outcome
      httpStatus
      scimType
      code
      detail
      recommendedAction
      externalId
      identityId
      changedAttributes
      correlationId
      runId
      counts {
        name
        count
      }
      durationMs
      actor {
        kind
        id
        displayName
      }
    }
    endCursor
    hasNextPage
  }
}
    `) as unknown as TypedDocumentString<ActivityQuery, ActivityQueryVariables>;