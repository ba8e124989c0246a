import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { handleConsole } from '../lib/http/consoleHttp';

/** The administrator console: a single-page application that signs in with Entra ID and calls GraphQL. */
app.http('console', {
  route: 'console/{*path}',
  methods: ['GET', 'HEAD'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(handleConsole),
});
