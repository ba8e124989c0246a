import { app } from '@azure/functions';
import { createUser } from '../lib/http/scimUsersHandlers';

app.http('scimUsersCreate', {
  route: 'scim/v2/Users',
  methods: ['POST'],
  authLevel: 'anonymous',
  handler: createUser,
});
