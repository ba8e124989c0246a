import { app } from '@azure/functions';
import { patchUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersPatch', {
  route: 'scim/v2/Users/{id}',
  methods: ['PATCH'],
  authLevel: 'anonymous',
  handler: patchUser,
});
