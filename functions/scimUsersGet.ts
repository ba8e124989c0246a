import { app } from '@azure/functions';
import { scimHandler } from '../lib/http/scimHttp';
import { scopeOf } from '../lib/http/scimActor';
import { userResult } from '../lib/scim/userResponse';
import { etagOf } from '../lib/scim/userResource';
import { isNotModified } from '../lib/scim/ifMatch';
import { services } from '../lib/services';

app.http('scimUsersGet', {
  route: 'scim/v2/Users/{id}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: scimHandler(async (call) => {
    const svc = services();
    const doc = await svc.scimUsers.get(scopeOf(call).scope, call.params.id ?? '');
    if (isNotModified(call.header('if-none-match'), doc.version))
      return { status: 304, headers: { etag: etagOf(doc) } };
    return userResult(doc, svc.settings.publicBaseUrl, call.query);
  }),
});
