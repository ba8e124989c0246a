import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { replaceUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersReplace', {
  route: 'scim/v2/Users/{id}',
  methods: ['PUT'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(replaceUser),
});
