import { app } from '@azure/functions';
import { withTransportSecurity } from '../lib/http/transportSecurity';
import { handleActivityExport } from '../lib/http/activityExportHttp';

/** The activity selection as a CSV or JSON-lines download (streamed; authenticated as GraphQL). */
app.http('activityExport', {
  route: 'activity/export',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: withTransportSecurity(handleActivityExport),
});
