import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { handleHealth } from '../lib/http/health';

app.http('health', {
  route: 'health',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(handleHealth),
});
