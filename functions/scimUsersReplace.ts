import { app } from '@azure/functions';
import { replaceUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersReplace', {
  route: 'scim/v2/Users/{id}',
  methods: ['PUT'],
  authLevel: 'anonymous',
  handler: replaceUser,
});
