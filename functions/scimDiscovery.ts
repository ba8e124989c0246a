import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { getResourceTypes, getSchemas, getServiceProviderConfig } from '../lib/http/scimDiscoveryHandlers';

app.http('scimServiceProviderConfig', {
  route: 'scim/v2/ServiceProviderConfig',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(getServiceProviderConfig),
});

app.http('scimSchemas', {
  route: 'scim/v2/Schemas/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(getSchemas),
});

app.http('scimResourceTypes', {
  route: 'scim/v2/ResourceTypes/{id?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(getResourceTypes),
});
