import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { createUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersCreate', {
  route: 'scim/v2/Users',
  methods: ['POST'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(createUser),
});
