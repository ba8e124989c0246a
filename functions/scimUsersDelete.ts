import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { deleteUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersDelete', {
  route: 'scim/v2/Users/{id}',
  methods: ['DELETE'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(deleteUser),
});
