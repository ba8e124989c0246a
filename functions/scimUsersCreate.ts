import { app } from '@azure/functions';
import { scimHandler } from '../lib/http/scimHttp';
import { scopeOf } from '../lib/http/scimActor';
import { userResult } from '../lib/scim/userResponse';
import { services } from '../lib/services';

app.http('scimUsersCreate', {
  route: 'scim/v2/Users',
  methods: ['POST'],
  authLevel: 'anonymous',
  handler: scimHandler(async (call) => {
    const { scope, actor } = scopeOf(call);
    const svc = services();
    const doc = await svc.scimUsers.create(scope, await call.body(), actor, call.log);
    call.log.info('user created', { userId: doc.id, linkStatus: doc.link.status });
    return userResult(doc, svc.settings.publicBaseUrl, call.query, 201);
  }),
});
