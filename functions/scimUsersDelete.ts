import { app } from '@azure/functions';
import { scimHandler } from '../lib/http/scimHttp';
import { scopeOf } from '../lib/http/scimActor';
import { services } from '../lib/services';

app.http('scimUsersDelete', {
  route: 'scim/v2/Users/{id}',
  methods: ['DELETE'],
  authLevel: 'anonymous',
  handler: scimHandler(async (call) => {
    const { scope, actor } = scopeOf(call);
    await services().scimUsers.delete(scope, call.params.id ?? '', call.header('if-match'), actor);
    call.log.info('user deleted', { userId: call.params.id });
    return { status: 204 };
  }),
});
