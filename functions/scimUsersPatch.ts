import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { patchUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersPatch', {
  route: 'scim/v2/Users/{id}',
  methods: ['PATCH'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(patchUser),
});
