import { app } from '@azure/functions';
import { handleHealth } from '../lib/http/health';

app.http('health', {
  route: 'health',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: handleHealth,
});
