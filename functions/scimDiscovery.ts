import { app } from '@azure/functions';
import { scimPublicHandler } from '../lib/http/scimHttp';
import { services } from '../lib/services';
import {
  CORE_USER_SCHEMA,
  LIST_RESPONSE_SCHEMA,
  SERVICE_USER_SCHEMA,
  schemaResource,
  serviceProviderConfig,
  userResourceType,
} from '../lib/scim/schema';
import { ScimError } from '../lib/scim/errors';

const baseUrl = (): string => services().settings.publicBaseUrl;
const list = (resources: unknown[]) => ({
  schemas: [LIST_RESPONSE_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
const notFound = () => new ScimError(404, undefined, 'No such resource');
/** RFC 7644 §4: the discovery endpoints cannot be filtered. */
const refuseFilter = (query: URLSearchParams): void => {
  if (query.has('filter')) throw new ScimError(403, undefined, 'Discovery endpoints cannot be filtered');
};

app.http('scimServiceProviderConfig', {
  route: 'scim/v2/ServiceProviderConfig',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: scimPublicHandler(async ({ query }) => {
    refuseFilter(query);
    return { status: 200, body: serviceProviderConfig(baseUrl()) };
  }),
});

app.http('scimSchemas', {
  route: 'scim/v2/Schemas/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: scimPublicHandler(async ({ params, query }) => {
    refuseFilter(query);
    if (!params.id)
      return {
        status: 200,
        body: list([CORE_USER_SCHEMA, SERVICE_USER_SCHEMA].map((id) => schemaResource(baseUrl(), id))),
      };
    const schema = schemaResource(baseUrl(), params.id);
    if (!schema) throw notFound();
    return { status: 200, body: schema };
  }),
});

app.http('scimResourceTypes', {
  route: 'scim/v2/ResourceTypes/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: scimPublicHandler(async ({ params, query }) => {
    refuseFilter(query);
    if (!params.id) return { status: 200, body: list([userResourceType(baseUrl())]) };
    if (params.id !== 'User') throw notFound();
    return { status: 200, body: userResourceType(baseUrl()) };
  }),
});
