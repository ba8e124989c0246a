/**
 * The GraphQL operations the console sends. Their result and variables types are generated from
 * lib/graphql/schema.graphql by GraphQL Code Generator (`npm run console:types`, into src/gql/): a document
 * asking for a field the schema lacks fails the generation, and a document changed without generating again
 * no longer type-checks. The console never asks for personal numbers or document numbers: the schema has no
 * field for them, only their kinds.
 */
import { graphql } from './gql';
import type { TypedDocumentString } from './gql/graphql';
import type * as G from './gql/graphql';

graphql(`
  fragment IntegrationFields on ScimIntegration {
    id
    displayName
    clientId
    enabled
    scimEndpoint
  }
`);

graphql(`
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
`);

graphql(`
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
`);

export const Q = {
  integrations: graphql(`
    query Integrations {
      scimIntegrations {
        ...IntegrationFields
      }
    }
  `),
  createIntegration: graphql(`
    mutation CreateIntegration($input: CreateScimIntegrationInput!) {
      createScimIntegration(input: $input) {
        scimIntegration {
          ...IntegrationFields
        }
      }
    }
  `),
  disableIntegration: graphql(`
    mutation DisableIntegration($input: ScimIntegrationIdInput!) {
      disableScimIntegration(input: $input) {
        scimIntegration {
          ...IntegrationFields
        }
      }
    }
  `),
  enableIntegration: graphql(`
    mutation EnableIntegration($input: ScimIntegrationIdInput!) {
      enableScimIntegration(input: $input) {
        scimIntegration {
          ...IntegrationFields
        }
      }
    }
  `),
  sources: graphql(`
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
  `),
  identities: graphql(`
    query Identities($source: String!, $filter: BusinessIdentityFilter, $first: Int, $after: String) {
      businessIdentities(source: $source, filter: $filter, first: $first, after: $after) {
        nodes {
          ...IdentityFields
        }
        endCursor
        hasNextPage
      }
    }
  `),
  identity: graphql(`
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
  `),
  link: graphql(`
    mutation Link($input: LinkBusinessIdentityInput!) {
      linkBusinessIdentity(input: $input) {
        businessIdentity {
          ...IdentityFields
        }
      }
    }
  `),
  unlink: graphql(`
    mutation Unlink($input: UnlinkBusinessIdentityInput!) {
      unlinkBusinessIdentity(input: $input) {
        businessIdentity {
          ...IdentityFields
        }
      }
    }
  `),
  runs: graphql(`
    query Runs($source: String!, $first: Int) {
      importRuns(source: $source, first: $first) {
        ...RunFields
      }
    }
  `),
  createManual: graphql(`
    mutation CreateManual($input: ImportBusinessIdentityInput!) {
      createBusinessIdentity(input: $input) {
        businessIdentity {
          ...IdentityFields
        }
      }
    }
  `),
  updateManual: graphql(`
    mutation UpdateManual($input: UpdateBusinessIdentityInput!) {
      updateBusinessIdentity(input: $input) {
        businessIdentity {
          ...IdentityFields
        }
      }
    }
  `),
  deactivateManual: graphql(`
    mutation DeactivateManual($input: BusinessIdentityRefInput!) {
      deactivateBusinessIdentity(input: $input) {
        businessIdentity {
          ...IdentityFields
        }
      }
    }
  `),
  deleteManual: graphql(`
    mutation DeleteManual($input: BusinessIdentityRefInput!) {
      deleteBusinessIdentity(input: $input) {
        id
      }
    }
  `),
  activity: graphql(`
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
  `),
};

export type Operation = keyof typeof Q;
type ResultOf<D> = D extends TypedDocumentString<infer R, infer _V> ? R : never;
type VariablesOf<D> = D extends TypedDocumentString<infer _R, infer V> ? V : never;
export type Results = { [K in Operation]: ResultOf<(typeof Q)[K]> };
export type Variables = { [K in Operation]: VariablesOf<(typeof Q)[K]> };

/** Shapes the pages show, as the schema and the documents above define them. */
export type ScimIntegration = G.IntegrationFieldsFragment;
export type Identity = G.IdentityFieldsFragment;
export type IdentityDetail = NonNullable<G.IdentityQuery['businessIdentity']>;
export type IdentityChange = IdentityDetail['history'][number];
export type ImportRun = G.RunFieldsFragment;
export type SourceSummary = G.SourcesQuery['sources'][number];
export type ActivityEntry = G.ActivityQuery['activity']['nodes'][number];
export type LinkStatus = G.DirectoryLinkStatus;
export type ActivityOutcome = G.ActivityOutcome;
export type ActivityAction = G.ActivityAction;
export type ActivityFilter = G.ActivityFilter;
export type AffiliationType = G.AffiliationType;
export type DocumentKind = G.PersonalNumberType | G.IdentityDocumentType;
export type BusinessIdentityFilter = G.BusinessIdentityFilter;

export class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'GraphQLRequestError';
  }
}

/** Operations without variables take none; the others take exactly the variables their document declares. */
export type Send = <K extends Operation>(
  op: K,
  ...variables: Variables[K] extends Record<string, never> ? [] : [Variables[K]]
) => Promise<Results[K]>;

/** A sender of the console's operations with the signed-in administrator's token. */
export function createSend(token: () => Promise<string>, fetchImpl: typeof fetch = fetch): Send {
  return async (op, ...[variables]) => {
    const res = await fetchImpl('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
      body: JSON.stringify({ query: Q[op].toString(), variables }),
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

/** Fetches a file the service makes (GET, with the administrator's token); its refusal as the GraphQL error it carries. */
export type Download = (path: string) => Promise<Blob>;

export function createDownload(token: () => Promise<string>, fetchImpl: typeof fetch = fetch): Download {
  return async (path) => {
    const res = await fetchImpl(path, { headers: { authorization: `Bearer ${await token()}` } });
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as {
        errors?: Array<{ message: string; extensions?: { code?: string } }>;
      };
      const first = body.errors?.[0];
      throw new GraphQLRequestError(
        first?.message ?? `Download failed (${res.status})`,
        first?.extensions?.code ?? 'UNEXPECTED',
      );
    }
    return res.blob();
  };
}
