import { app } from '@azure/functions';
import { handleGraphQL } from '../lib/http/graphqlHttp';

app.http('graphql', {
  route: 'graphql',
  methods: ['GET', 'POST'],
  authLevel: 'anonymous',
  handler: handleGraphQL,
});
