import { app } from '@azure/functions';
import { scimHandler } from '../lib/http/scimHttp';
import { scopeOf } from '../lib/http/scimActor';
import { userResult } from '../lib/scim/userResponse';
import { services } from '../lib/services';

app.http('scimUsersReplace', {
  route: 'scim/v2/Users/{id}',
  methods: ['PUT'],
  authLevel: 'anonymous',
  handler: scimHandler(async (call) => {
    const { scope, actor } = scopeOf(call);
    const svc = services();
    const doc = await svc.scimUsers.replace(
      scope,
      call.params.id ?? '',
      await call.body(),
      call.header('if-match'),
      actor,
      call.log,
    );
    return userResult(doc, svc.settings.publicBaseUrl, call.query);
  }),
});
