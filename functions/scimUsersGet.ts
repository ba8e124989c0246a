import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { getUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersGet', {
  route: 'scim/v2/Users/{id}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(getUser),
});
