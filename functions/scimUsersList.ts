import { app } from '@azure/functions';
import { listUsers } from '../lib/http/scimUsersHandlers';

app.http('scimUsersList', {
  route: 'scim/v2/Users',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: listUsers,
});
