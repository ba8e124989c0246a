import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { listUsers } from '../lib/http/scimUsersHandlers';

app.http('scimUsersList', {
  route: 'scim/v2/Users',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(listUsers),
});
