import { app, type InvocationContext, type Timer } from '@azure/functions';
import { services } from '../lib/services';
import { planRetention } from '../lib/background/planner';
import { loggerForTimer } from '../lib/http/timer';

/**
 * Daily (RETENTION_SCHEDULE): plans one unit of retention work per tenant with identities inactive for
 * RETENTION_INACTIVE_DAYS (default 90) that still hold sensitive lists; backgroundWork deletes them.
 */
app.timer('retention', {
  schedule: '%RETENTION_SCHEDULE%',
  handler: async (_timer: Timer, context: InvocationContext): Promise<void> => {
    const log = loggerForTimer(context);
    const svc = services();
    const started = Date.now();
    const planned = await planRetention(svc.store, svc.workQueue, svc.settings.retentionInactiveDays);
    log.info('retention planned', {
      units: planned.units,
      inactiveDays: svc.settings.retentionInactiveDays,
      durationMs: Date.now() - started,
    });
  },
});
