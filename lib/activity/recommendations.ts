/**
 * What the owner of a connector (a SCIM client, an import job) should change when the service refused or
 * failed its request, as Entra's provisioning logs give a recommended action beside a failure's reason. One
 * text per refusal the service can answer: each SCIM error kind (its scimType, or its status where it has
 * none) and each error code (lib/util/errorCodes.ts: a GraphQL refusal or a run's failure).
 * tests/unit/activity/recommendations.test.ts enumerates the kinds and codes and fails on one without a text.
 * The texts are the service's own words: never a value of the request.
 */
import type { ErrorCode } from '../util/errorCodes';
import type { ScimType } from '../scim/errors';
import type { ActivityEntry } from './entries';
import { COUNTED_CODE } from './refusals';

/** By the scimType of a refused SCIM request: one text for each scimType the service answers with. */
export const SCIM_TYPE_ACTIONS: Readonly<Record<ScimType, string>> = {
  invalidValue:
    "Correct the connector's mapping of the attribute the detail names: its value is missing, of the wrong type or not in the format the service takes (docs/scim-api.md lists each format); the next cycle sends it again.",
  invalidSyntax:
    'Send a SCIM User the service reads: JSON with the core and enterprise User schemas and only attributes /Schemas lists; remove the attribute the detail names from the mapping.',
  invalidFilter:
    'Query Users with a filter the service supports: externalId eq or userName eq (docs/scim-api.md); change the matching attribute of the connector to one of them.',
  mutability:
    'Stop sending the attribute the detail names on updates: the service sets it or it may not change; map it only at creation or remove it from the mapping.',
  uniqueness:
    'Another User of this integration has this externalId or userName: let the connector match existing Users on externalId before creating, or remove the duplicate in the source system.',
  invalidPath:
    "Correct the target attribute names of the connector's mapping to the SCIM names /Schemas lists: a PATCH path names an attribute the service does not know.",
  noTarget: "Send the attribute's whole value (replace) instead of a path whose filter selects no value.",
};

/** By the HTTP status of a refused SCIM request without a scimType. */
export const STATUS_ACTIONS: Readonly<Record<number, string>> = {
  400: 'Send a standard SCIM request: the headers or the query are malformed (Content-Type application/scim+json, one Authorization header, a supported parameter).',
  403: "Authenticate as the client application registered for this integration, and check in the console that the integration is enabled; the token's application may not call this.",
  404: "The User the connector named is not one of this integration's (deleted, or another integration's): let the connector look it up again by externalId, or restart provisioning to rebuild its matches.",
  405: 'Use the methods the service takes (GET, POST, PUT, PATCH, DELETE on /Users and /Users/{id}); check that the connector\u2019s tenant URL ends with /scim/v2.',
  408: "The body arrived too slowly: check the connector's network path to the service; the request can be sent again.",
  409: 'Another User of this integration holds the same unique value: let the connector match existing Users before creating.',
  412: 'The User changed after the version the connector sent in If-Match: read it again and send the change again.',
  413: 'Send smaller requests: fewer values per request; load large sets with the import API (docs/imports.md).',
  415: 'Send the body as application/scim+json (or application/json).',
  429: "Lower the connector's rate or concurrency and honour Retry-After: the integration sends faster than its share; it continues at the allowed rate.",
};

/** By the error code of a refused GraphQL request or a run's failure. */
export const CODE_ACTIONS: Readonly<Record<ErrorCode, string>> = {
  AUTH_NOT_AUTHENTICATED:
    "Get a new token for the service's scope from the organization's tenant (it was missing, expired, for another audience, or the organization is not registered).",
  AUTH_NOT_AUTHORIZED:
    'Give the client application the Admin app role (or sign in to the console as a user assigned to it).',
  BAD_REQUEST: 'Send a standard GraphQL POST: JSON body with query and variables, one Authorization header.',
  GRAPHQL_PARSE_FAILED: 'Correct the GraphQL document: it does not parse (docs/graphql-api.md has examples).',
  GRAPHQL_VALIDATION_FAILED: 'Correct the document to the schema: a field or argument it names does not exist.',
  QUERY_TOO_COMPLEX: 'Split the document: fewer levels, aliases or fields, at most one import or association.',
  QUERY_TOO_LARGE: 'Send the values as variables, not in the query text.',
  USE_STAGED_IMPORT: 'Send the set as a staged import (beginImport, parts, completeImport): it is past one request.',
  REQUEST_TIMEOUT: "The body arrived too slowly: check the job's network path and send it again.",
  SERVICE_BUSY: "Wait retryAfterSeconds and send it again; schedule large runs outside the organization's busy hours.",
  INTERNAL_SERVER_ERROR: 'Send it again; if it keeps failing, give the correlation id to the service\u2019s operators.',
  BAD_USER_INPUT:
    'Correct the fields the problems name (each names the field and the rule, never the value) in the source system or the job, then run it again.',
  NOT_FOUND: "Check the id: the object is not one of the organization's (or of this source).",
  CONCURRENT_CHANGE: 'Read the object again and repeat the change: it changed meanwhile.',
  BUSINESS_IDENTITY_EXISTS: 'Change the existing manual identity with this externalId instead of creating one.',
  SCIM_INTEGRATION_CLIENT_ID_TAKEN: 'Use another client application for the new integration: this one has one.',
  INTEGRATION_LIMIT_REACHED: 'Disable an integration no longer used before enabling another.',
  DIRECTORY_USER_NOT_FOUND:
    'Check the user principal name in the source; if the user is created in Entra later, the link follows by itself.',
  LINK_CONFLICT:
    'Resolve the conflict in the console: the directory user is linked to another business identity; unlink that one or correct the UPN in the source.',
  DIRECTORY_UNAVAILABLE:
    "Run it again after retryAfterSeconds; if the reason is consent, grant the service's application consent in the tenant.",
  IMPORT_TOO_LARGE:
    'Split the source into several custom sources, or ask the operators to raise IMPORT_MAX_IDENTITIES.',
  IMPORT_DELETE_LIMIT_EXCEEDED:
    'Check that the export is complete (a partial export deletes the rest); if the deletions are meant, run it with a higher maxDeletedRatio.',
  IMPORT_IN_PROGRESS: 'Wait for the run named by runId to end, then start the import again.',
  IMPORT_LIMIT_REACHED:
    'Complete the staged imports this organization started and never completed, or let them expire, and wait for its dry runs to end; then start again.',
  IMPORT_NOT_FOUND: 'Begin a new staged import: this one is unknown, expired or already completed.',
  IMPORT_PART_TOO_LARGE: 'Send smaller parts: fewer identities per part (maxIdentitiesPerPart).',
  IMPORT_PART_CONFLICT: 'Send each sequence once with the same identities, or begin a new staged import.',
  IMPORT_PARTS_MISSING: 'Send the missing sequences, then completeImport again.',
  IMPORT_PARTS_EXPIRED: 'Begin the staged import again and complete it within its time to live.',
  ASSOCIATION_TOO_LARGE: 'Send the pairs in several requests of at most ASSOCIATION_MAX_PAIRS.',
  ASSOCIATION_INCOMPLETE: 'Send the pairs named by externalIds again: they could not be processed now.',
  RUN_ABANDONED: 'Run the same import again: it continues from what was written.',
  INTERNAL_ERROR:
    'Run it again; if it fails again, give the run\u2019s correlation id to the service\u2019s operators.',
};

export const COUNTED_ACTION =
  'Fix the refusals recorded one by one in this minute: the connector sends the same failing requests many times.';
export const STORE_ACTION = 'Run the same request again: it continues from what was written.';

/** The recommended action of a refused or failed entry; null for one that succeeded. */
export function recommendedAction(
  entry: Pick<ActivityEntry, 'outcome' | 'code' | 'scimType' | 'httpStatus'>,
): string | null {
  if (entry.outcome === 'succeeded') return null;
  if (entry.code === COUNTED_CODE) return COUNTED_ACTION;
  if (entry.code !== null) {
    if (Object.prototype.hasOwnProperty.call(CODE_ACTIONS, entry.code)) return CODE_ACTIONS[entry.code as ErrorCode];
    if (entry.code.startsWith('STORE_')) return STORE_ACTION;
  }
  if (entry.scimType !== null && Object.prototype.hasOwnProperty.call(SCIM_TYPE_ACTIONS, entry.scimType))
    return SCIM_TYPE_ACTIONS[entry.scimType as ScimType];
  if (entry.httpStatus !== null && Object.prototype.hasOwnProperty.call(STATUS_ACTIONS, entry.httpStatus))
    return STATUS_ACTIONS[entry.httpStatus] ?? null;
  return null;
}
