import { app } from '@azure/functions';
import { scimPublicHandler } from '../lib/http/scimHttp';
import { ScimError } from '../lib/scim/errors';
import { scimMethodsOf } from '../lib/scim/endpoints';

/**
 * Every other request under /scim/v2 (the hosts route the more specific templates of the other
 * SCIM functions first): 404 for paths the service does not serve, 405 for methods a served path
 * does not take, both as SCIM Error bodies. No token is needed to learn that a path does not exist.
 */
app.http('scimFallback', {
  route: 'scim/v2/{*path}',
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: scimPublicHandler(async ({ params, method }) => {
    const allowed = scimMethodsOf(params.path ?? '');
    if (allowed === undefined || allowed.includes(method))
      throw new ScimError(404, undefined, 'The SCIM API does not serve this path');
    throw new ScimError(405, undefined, `This path takes ${allowed.join(', ')}`, { allow: allowed.join(', ') });
  }),
});
