import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { handleGraphQL } from '../lib/http/graphqlHttp';

app.http('graphql', {
  route: 'graphql',
  methods: ['GET', 'POST', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(handleGraphQL),
});
