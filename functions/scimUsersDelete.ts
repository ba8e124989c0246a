import { app } from '@azure/functions';
import { deleteUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersDelete', {
  route: 'scim/v2/Users/{id}',
  methods: ['DELETE'],
  authLevel: 'anonymous',
  handler: deleteUser,
});
