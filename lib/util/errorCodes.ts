/**
 * Every error code the service answers with, in one place: GraphQL's `errors[].extensions.code` (HTTP 200, or
 * 413 / 408 for a body past its bounds) and a run's `failure.code`. Code elsewhere names a code by its constant
 * (`CODE.BAD_USER_INPUT`), never by a string of its own; tests/unit/util/errorCodes.test.ts fails when one is
 * spelled anywhere else in lib/, and checks the table in docs/graphql-api.md ("Error codes") against this one.
 */
export const ERROR_CODES = {
  // The request itself, before any operation runs.
  AUTH_NOT_AUTHENTICATED:
    'the token is missing, expired, for another audience, or from an organization that is not registered',
  AUTH_NOT_AUTHORIZED:
    'the token is valid but may not call this (no Admin role, or not an administrator of the console)',
  BAD_REQUEST: 'the HTTP request: body, parameters, method, media type, operation name, a second Authorization header',
  GRAPHQL_PARSE_FAILED: 'the document is not valid GraphQL',
  GRAPHQL_VALIDATION_FAILED: 'the document does not fit the schema',
  QUERY_TOO_COMPLEX: 'past the depth, alias or field bounds, or more than one import or association in one document',
  QUERY_TOO_LARGE: 'the query text, apart from its variables, is past GRAPHQL_MAX_QUERY_BYTES (HTTP 413)',
  USE_STAGED_IMPORT:
    'the body is past its bytes, JSON values or depth (HTTP 413; `bound`, `max`): send a staged import',
  REQUEST_TIMEOUT: 'the body arrived too slowly (HTTP 408)',
  SERVICE_BUSY: "the tenant's share of the service is in use: `retryAfterSeconds`",
  INTERNAL_SERVER_ERROR: 'a failure of the service (masked: only the correlation id says more)',
  // Input and the state of what an operation changes.
  BAD_USER_INPUT: 'the input is not valid: `problems: [{ index, field, problem }]`, never a value',
  NOT_FOUND: "no such object in the caller's organization (or source)",
  CONCURRENT_CHANGE: 'the object changed during the operation; retry',
  BUSINESS_IDENTITY_EXISTS: 'a manual identity with this externalId exists',
  SCIM_INTEGRATION_CLIENT_ID_TAKEN: 'another SCIM integration of the organization has this client id',
  INTEGRATION_LIMIT_REACHED:
    'the organization has SCIM_MAX_INTEGRATIONS_PER_TENANT integrations, disabled ones included',
  DIRECTORY_USER_NOT_FOUND: 'no directory user matches; it may not be synchronized yet',
  LINK_CONFLICT: 'the directory user is linked to another business identity',
  DIRECTORY_UNAVAILABLE: 'Microsoft Graph cannot be used now: `reason`, `retryAfterSeconds`',
  // Imports and associations.
  IMPORT_TOO_LARGE: 'the set would pass IMPORT_MAX_IDENTITIES',
  IMPORT_DELETE_LIMIT_EXCEEDED:
    'the set would delete more of the source than maxDeletedRatio or IMPORT_MAX_DELETE_RATIO allows',
  IMPORT_IN_PROGRESS: 'another import of the source holds it: `runId`',
  IMPORT_LIMIT_REACHED:
    'the organization has as many staged imports (or dry runs) started and not ended as IMPORT_MAX_OPEN_PER_TENANT (IMPORT_MAX_DRY_RUNS_PER_TENANT) allows',
  IMPORT_NOT_FOUND: "the staged import is unknown, expired, another organization's, or already completed",
  IMPORT_PART_TOO_LARGE: 'more identities than maxIdentitiesPerPart, or a part whose stored form would pass 1.5 MB',
  IMPORT_PART_CONFLICT: 'a sequence sent again with other identities',
  IMPORT_PARTS_MISSING: 'completeImport while sequences are missing: `missing`',
  IMPORT_PARTS_EXPIRED: "(a run's failure) the staged parts expired before the job applied them",
  ASSOCIATION_TOO_LARGE: 'more pairs than ASSOCIATION_MAX_PAIRS in one request',
  ASSOCIATION_INCOMPLETE: 'some pairs could not be processed now: `externalIds` to send again',
  RUN_ABANDONED: "(a run's failure) the run stopped without finishing (the host stopped it past its time)",
  INTERNAL_ERROR: "(a run's failure) an unexpected failure; the log has it under the run's correlation id",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Each code by name: `CODE.NOT_FOUND` is the string 'NOT_FOUND', typed as that one code. */
export const CODE = Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, code])) as {
  readonly [C in ErrorCode]: C;
};

/** A code graphql-yoga gives its own errors about the request (never sent: answered as BAD_REQUEST). */
export const YOGA_OPERATION_RESOLUTION_FAILURE = 'OPERATION_RESOLUTION_FAILURE';

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
