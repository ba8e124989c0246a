import { app } from '@azure/functions';
import { getUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersGet', {
  route: 'scim/v2/Users/{id}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: getUser,
});
