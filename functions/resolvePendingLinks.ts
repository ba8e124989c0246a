import { app } from '@azure/functions';
import { planPendingLinksRun } from '../lib/triggers/backgroundHandlers';

/**
 * Every 5 minutes (RESOLVE_PENDING_LINKS_SCHEDULE): plans one unit of pending-link work per registered
 * tenant on the background-work queue (done by backgroundWork), and repairs orphan link claims.
 */
app.timer('resolvePendingLinks', {
  schedule: '%RESOLVE_PENDING_LINKS_SCHEDULE%',
  handler: planPendingLinksRun,
});
