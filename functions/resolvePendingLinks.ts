import { app, type InvocationContext, type Timer } from '@azure/functions';
import { services } from '../lib/services';
import { planPendingLinks } from '../lib/background/planner';
import { loggerForTimer } from '../lib/http/timer';

const ORPHAN_CLAIMS_PER_RUN = 1000;

/**
 * Every 5 minutes (RESOLVE_PENDING_LINKS_SCHEDULE): plans one unit of pending-link work per registered
 * tenant on the background-work queue (done by backgroundWork), and repairs orphan link claims.
 */
app.timer('resolvePendingLinks', {
  schedule: '%RESOLVE_PENDING_LINKS_SCHEDULE%',
  handler: async (_timer: Timer, context: InvocationContext): Promise<void> => {
    const log = loggerForTimer(context);
    const svc = services();
    const started = Date.now();
    const planned = await planPendingLinks(svc.tenants, svc.workQueue);
    const orphans = await svc.claims.repairOrphans(ORPHAN_CLAIMS_PER_RUN);
    log.info('pending links planned', {
      units: planned.units,
      orphanClaimsExamined: orphans.examined,
      orphanClaimsRemoved: orphans.removed,
      durationMs: Date.now() - started,
    });
  },
});
