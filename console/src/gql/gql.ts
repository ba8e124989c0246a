/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment IntegrationFields on ScimIntegration {\n    id\n    displayName\n    clientId\n    enabled\n    scimEndpoint\n  }\n": typeof types.IntegrationFieldsFragmentDoc,
    "\n  fragment IdentityFields on BusinessIdentity {\n    id\n    source\n    externalId\n    userName\n    affiliationType\n    firstName\n    lastName\n    active\n    birthDate\n    nationality\n    personalNumberTypes\n    identityDocumentTypes\n    directoryUserPrincipalName\n    directoryLinkStatus\n    directoryLinkSource\n    directoryLinkedUserId\n    linkedUserPrincipalName\n    conflictHeldBy {\n      source\n      id\n      externalId\n    }\n    nextCheckAt\n    created\n    lastModified\n  }\n": typeof types.IdentityFieldsFragmentDoc,
    "\n  fragment RunFields on ImportRun {\n    id\n    operation\n    source\n    clientId\n    status\n    startedAt\n    endedAt\n    submitted\n    dryRun\n    importCounts {\n      created\n      updated\n      deleted\n      unchanged\n    }\n    associationCounts {\n      associated\n      unchanged\n      unknownExternalIds\n      unknownUserPrincipalNames\n      conflictingUserPrincipalNames\n      notDone\n    }\n    failure {\n      code\n      message\n    }\n  }\n": typeof types.RunFieldsFragmentDoc,
    "\n    query Integrations {\n      scimIntegrations {\n        ...IntegrationFields\n      }\n    }\n  ": typeof types.IntegrationsDocument,
    "\n    mutation CreateIntegration($input: CreateScimIntegrationInput!) {\n      createScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": typeof types.CreateIntegrationDocument,
    "\n    mutation DisableIntegration($input: ScimIntegrationIdInput!) {\n      disableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": typeof types.DisableIntegrationDocument,
    "\n    mutation EnableIntegration($input: ScimIntegrationIdInput!) {\n      enableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": typeof types.EnableIntegrationDocument,
    "\n    query Sources {\n      sources {\n        name\n        kind\n        displayName\n        counts {\n          total\n          linked\n          pending\n          conflict\n          notAsserted\n        }\n      }\n    }\n  ": typeof types.SourcesDocument,
    "\n    query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) {\n      businessIdentities(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          ...IdentityFields\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  ": typeof types.IdentitiesDocument,
    "\n    query Identity($source: String!, $id: ID!) {\n      businessIdentity(source: $source, id: $id) {\n        ...IdentityFields\n        linkHistory {\n          at\n          action\n          actorKind\n          actorId\n          status\n          userId\n        }\n        history {\n          at\n          actor {\n            kind\n            id\n            displayName\n          }\n          operation\n          changedAttributes\n        }\n        historyOmitted\n      }\n    }\n  ": typeof types.IdentityDocument,
    "\n    mutation Link($input: LinkBusinessIdentityInput!) {\n      linkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": typeof types.LinkDocument,
    "\n    mutation Unlink($input: UnlinkBusinessIdentityInput!) {\n      unlinkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": typeof types.UnlinkDocument,
    "\n    query Runs($source: String!, $first: Int) {\n      importRuns(source: $source, first: $first) {\n        ...RunFields\n      }\n    }\n  ": typeof types.RunsDocument,
    "\n    mutation CreateManual($input: ImportBusinessIdentityInput!) {\n      createBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": typeof types.CreateManualDocument,
    "\n    mutation UpdateManual($input: UpdateBusinessIdentityInput!) {\n      updateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": typeof types.UpdateManualDocument,
    "\n    mutation DeactivateManual($input: BusinessIdentityRefInput!) {\n      deactivateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": typeof types.DeactivateManualDocument,
    "\n    mutation DeleteManual($input: BusinessIdentityRefInput!) {\n      deleteBusinessIdentity(input: $input) {\n        id\n      }\n    }\n  ": typeof types.DeleteManualDocument,
    "\n    query Activity($source: String, $filter: ActivityFilter, $first: Int, $after: String) {\n      activity(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          at\n          source\n          operation\n          action\n          outcome\n          httpStatus\n          scimType\n          code\n          detail\n          recommendedAction\n          externalId\n          identityId\n          changedAttributes\n          correlationId\n          runId\n          counts {\n            name\n            count\n          }\n          durationMs\n          actor {\n            kind\n            id\n            displayName\n          }\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  ": typeof types.ActivityDocument,
};
const documents: Documents = {
    "\n  fragment IntegrationFields on ScimIntegration {\n    id\n    displayName\n    clientId\n    enabled\n    scimEndpoint\n  }\n": types.IntegrationFieldsFragmentDoc,
    "\n  fragment IdentityFields on BusinessIdentity {\n    id\n    source\n    externalId\n    userName\n    affiliationType\n    firstName\n    lastName\n    active\n    birthDate\n    nationality\n    personalNumberTypes\n    identityDocumentTypes\n    directoryUserPrincipalName\n    directoryLinkStatus\n    directoryLinkSource\n    directoryLinkedUserId\n    linkedUserPrincipalName\n    conflictHeldBy {\n      source\n      id\n      externalId\n    }\n    nextCheckAt\n    created\n    lastModified\n  }\n": types.IdentityFieldsFragmentDoc,
    "\n  fragment RunFields on ImportRun {\n    id\n    operation\n    source\n    clientId\n    status\n    startedAt\n    endedAt\n    submitted\n    dryRun\n    importCounts {\n      created\n      updated\n      deleted\n      unchanged\n    }\n    associationCounts {\n      associated\n      unchanged\n      unknownExternalIds\n      unknownUserPrincipalNames\n      conflictingUserPrincipalNames\n      notDone\n    }\n    failure {\n      code\n      message\n    }\n  }\n": types.RunFieldsFragmentDoc,
    "\n    query Integrations {\n      scimIntegrations {\n        ...IntegrationFields\n      }\n    }\n  ": types.IntegrationsDocument,
    "\n    mutation CreateIntegration($input: CreateScimIntegrationInput!) {\n      createScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": types.CreateIntegrationDocument,
    "\n    mutation DisableIntegration($input: ScimIntegrationIdInput!) {\n      disableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": types.DisableIntegrationDocument,
    "\n    mutation EnableIntegration($input: ScimIntegrationIdInput!) {\n      enableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  ": types.EnableIntegrationDocument,
    "\n    query Sources {\n      sources {\n        name\n        kind\n        displayName\n        counts {\n          total\n          linked\n          pending\n          conflict\n          notAsserted\n        }\n      }\n    }\n  ": types.SourcesDocument,
    "\n    query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) {\n      businessIdentities(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          ...IdentityFields\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  ": types.IdentitiesDocument,
    "\n    query Identity($source: String!, $id: ID!) {\n      businessIdentity(source: $source, id: $id) {\n        ...IdentityFields\n        linkHistory {\n          at\n          action\n          actorKind\n          actorId\n          status\n          userId\n        }\n        history {\n          at\n          actor {\n            kind\n            id\n            displayName\n          }\n          operation\n          changedAttributes\n        }\n        historyOmitted\n      }\n    }\n  ": types.IdentityDocument,
    "\n    mutation Link($input: LinkBusinessIdentityInput!) {\n      linkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": types.LinkDocument,
    "\n    mutation Unlink($input: UnlinkBusinessIdentityInput!) {\n      unlinkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": types.UnlinkDocument,
    "\n    query Runs($source: String!, $first: Int) {\n      importRuns(source: $source, first: $first) {\n        ...RunFields\n      }\n    }\n  ": types.RunsDocument,
    "\n    mutation CreateManual($input: ImportBusinessIdentityInput!) {\n      createBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": types.CreateManualDocument,
    "\n    mutation UpdateManual($input: UpdateBusinessIdentityInput!) {\n      updateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": types.UpdateManualDocument,
    "\n    mutation DeactivateManual($input: BusinessIdentityRefInput!) {\n      deactivateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  ": types.DeactivateManualDocument,
    "\n    mutation DeleteManual($input: BusinessIdentityRefInput!) {\n      deleteBusinessIdentity(input: $input) {\n        id\n      }\n    }\n  ": types.DeleteManualDocument,
    "\n    query Activity($source: String, $filter: ActivityFilter, $first: Int, $after: String) {\n      activity(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          at\n          source\n          operation\n          action\n          outcome\n          httpStatus\n          scimType\n          code\n          detail\n          recommendedAction\n          externalId\n          identityId\n          changedAttributes\n          correlationId\n          runId\n          counts {\n            name\n            count\n          }\n          durationMs\n          actor {\n            kind\n            id\n            displayName\n          }\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  ": types.ActivityDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment IntegrationFields on ScimIntegration {\n    id\n    displayName\n    clientId\n    enabled\n    scimEndpoint\n  }\n"): typeof import('./graphql').IntegrationFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment IdentityFields on BusinessIdentity {\n    id\n    source\n    externalId\n    userName\n    affiliationType\n    firstName\n    lastName\n    active\n    birthDate\n    nationality\n    personalNumberTypes\n    identityDocumentTypes\n    directoryUserPrincipalName\n    directoryLinkStatus\n    directoryLinkSource\n    directoryLinkedUserId\n    linkedUserPrincipalName\n    conflictHeldBy {\n      source\n      id\n      externalId\n    }\n    nextCheckAt\n    created\n    lastModified\n  }\n"): typeof import('./graphql').IdentityFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RunFields on ImportRun {\n    id\n    operation\n    source\n    clientId\n    status\n    startedAt\n    endedAt\n    submitted\n    dryRun\n    importCounts {\n      created\n      updated\n      deleted\n      unchanged\n    }\n    associationCounts {\n      associated\n      unchanged\n      unknownExternalIds\n      unknownUserPrincipalNames\n      conflictingUserPrincipalNames\n      notDone\n    }\n    failure {\n      code\n      message\n    }\n  }\n"): typeof import('./graphql').RunFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Integrations {\n      scimIntegrations {\n        ...IntegrationFields\n      }\n    }\n  "): typeof import('./graphql').IntegrationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation CreateIntegration($input: CreateScimIntegrationInput!) {\n      createScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  "): typeof import('./graphql').CreateIntegrationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation DisableIntegration($input: ScimIntegrationIdInput!) {\n      disableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  "): typeof import('./graphql').DisableIntegrationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation EnableIntegration($input: ScimIntegrationIdInput!) {\n      enableScimIntegration(input: $input) {\n        scimIntegration {\n          ...IntegrationFields\n        }\n      }\n    }\n  "): typeof import('./graphql').EnableIntegrationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Sources {\n      sources {\n        name\n        kind\n        displayName\n        counts {\n          total\n          linked\n          pending\n          conflict\n          notAsserted\n        }\n      }\n    }\n  "): typeof import('./graphql').SourcesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) {\n      businessIdentities(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          ...IdentityFields\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  "): typeof import('./graphql').IdentitiesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Identity($source: String!, $id: ID!) {\n      businessIdentity(source: $source, id: $id) {\n        ...IdentityFields\n        linkHistory {\n          at\n          action\n          actorKind\n          actorId\n          status\n          userId\n        }\n        history {\n          at\n          actor {\n            kind\n            id\n            displayName\n          }\n          operation\n          changedAttributes\n        }\n        historyOmitted\n      }\n    }\n  "): typeof import('./graphql').IdentityDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation Link($input: LinkBusinessIdentityInput!) {\n      linkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  "): typeof import('./graphql').LinkDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation Unlink($input: UnlinkBusinessIdentityInput!) {\n      unlinkBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  "): typeof import('./graphql').UnlinkDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Runs($source: String!, $first: Int) {\n      importRuns(source: $source, first: $first) {\n        ...RunFields\n      }\n    }\n  "): typeof import('./graphql').RunsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation CreateManual($input: ImportBusinessIdentityInput!) {\n      createBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  "): typeof import('./graphql').CreateManualDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation UpdateManual($input: UpdateBusinessIdentityInput!) {\n      updateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  "): typeof import('./graphql').UpdateManualDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation DeactivateManual($input: BusinessIdentityRefInput!) {\n      deactivateBusinessIdentity(input: $input) {\n        businessIdentity {\n          ...IdentityFields\n        }\n      }\n    }\n  "): typeof import('./graphql').DeactivateManualDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    mutation DeleteManual($input: BusinessIdentityRefInput!) {\n      deleteBusinessIdentity(input: $input) {\n        id\n      }\n    }\n  "): typeof import('./graphql').DeleteManualDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n    query Activity($source: String, $filter: ActivityFilter, $first: Int, $after: String) {\n      activity(source: $source, filter: $filter, first: $first, after: $after) {\n        nodes {\n          at\n          source\n          operation\n          action\n          outcome\n          httpStatus\n          scimType\n          code\n          detail\n          recommendedAction\n          externalId\n          identityId\n          changedAttributes\n          correlationId\n          runId\n          counts {\n            name\n            count\n          }\n          durationMs\n          actor {\n            kind\n            id\n            displayName\n          }\n        }\n        endCursor\n        hasNextPage\n      }\n    }\n  "): typeof import('./graphql').ActivityDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
