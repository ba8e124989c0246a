import { app, type InvocationContext, type Timer } from '@azure/functions';
import { services } from '../lib/services';
import { purgeExpiredSensitiveData } from '../lib/identities/retention';
import { loggerForTimer } from '../lib/http/timer';

/** Daily: deletes sensitive lists of identities inactive for RETENTION_INACTIVE_DAYS (default 90). */
app.timer('retention', {
  schedule: '%RETENTION_SCHEDULE%',
  handler: async (_timer: Timer, context: InvocationContext): Promise<void> => {
    const log = loggerForTimer(context);
    const svc = services();
    const started = Date.now();
    const result = await purgeExpiredSensitiveData(svc.store, svc.settings.retentionInactiveDays);
    log.info('retention run finished', { ...result, inactiveDays: svc.settings.retentionInactiveDays, durationMs: Date.now() - started });
  },
});
