import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { scimFallback } from '../lib/http/scimDiscoveryHandlers';

/**
 * Every other request under /scim/v2 (the hosts route the more specific templates of the other
 * SCIM functions first): 404 for paths the service does not serve, 405 for methods a served path
 * does not take, both as SCIM Error bodies.
 */
app.http('scimFallback', {
  route: 'scim/v2/{*path}',
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(scimFallback),
});
