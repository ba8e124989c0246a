import { app } from '@azure/functions';
import { getResourceTypes, getSchemas, getServiceProviderConfig } from '../lib/http/scimDiscoveryHandlers';

app.http('scimServiceProviderConfig', {
  route: 'scim/v2/ServiceProviderConfig',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: getServiceProviderConfig,
});

app.http('scimSchemas', {
  route: 'scim/v2/Schemas/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: getSchemas,
});

app.http('scimResourceTypes', {
  route: 'scim/v2/ResourceTypes/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: getResourceTypes,
});
