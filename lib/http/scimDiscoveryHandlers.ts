/** The SCIM endpoints that answer without a token: discovery (RFC 7644 §4) and the catch-all for other paths. */
import type { HttpHandler } from '@azure/functions';
import { scimPublicHandler } from './scimHttp';
import { services } from '../services';
import {
  CORE_USER_SCHEMA,
  LIST_RESPONSE_SCHEMA,
  SERVICE_USER_SCHEMA,
  schemaResource,
  serviceProviderConfig,
  userResourceType,
} from '../scim/schema';
import { ScimError } from '../scim/errors';
import { scimMethodsOf } from '../scim/endpoints';

const baseUrl = (): string => services().settings.publicBaseUrl;
const list = (resources: unknown[]) => ({
  schemas: [LIST_RESPONSE_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
const notFound = () => ScimError.notFound('No such resource');
/** RFC 7644 §4: the discovery endpoints cannot be filtered. */
const refuseFilter = (query: URLSearchParams): void => {
  if (query.has('filter')) throw ScimError.forbidden('Discovery endpoints cannot be filtered');
};

export const getServiceProviderConfig: HttpHandler = scimPublicHandler(async ({ query }) => {
  refuseFilter(query);
  return { status: 200, body: serviceProviderConfig(baseUrl()) };
});

export const getSchemas: HttpHandler = scimPublicHandler(async ({ params, query }) => {
  refuseFilter(query);
  if (!params.id)
    return {
      status: 200,
      body: list([CORE_USER_SCHEMA, SERVICE_USER_SCHEMA].map((id) => schemaResource(baseUrl(), id))),
    };
  const schema = schemaResource(baseUrl(), params.id);
  if (!schema) throw notFound();
  return { status: 200, body: schema };
});

export const getResourceTypes: HttpHandler = scimPublicHandler(async ({ params, query }) => {
  refuseFilter(query);
  if (!params.id) return { status: 200, body: list([userResourceType(baseUrl())]) };
  if (params.id !== 'User') throw notFound();
  return { status: 200, body: userResourceType(baseUrl()) };
});

/**
 * Every other request under /scim/v2: 404 for paths the service does not serve, 405 for methods a served
 * path does not take, both as SCIM Error bodies. No token is needed to learn that a path does not exist.
 */
export const scimFallback: HttpHandler = scimPublicHandler(async ({ params, method }) => {
  const allowed = scimMethodsOf(params.path ?? '');
  if (allowed === undefined || allowed.includes(method))
    throw ScimError.notFound('The SCIM API does not serve this path');
  throw ScimError.methodNotAllowed(`This path takes ${allowed.join(', ')}`, allowed);
});
