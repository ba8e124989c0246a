import { app, type InvocationContext, type Timer } from '@azure/functions';
import { services } from '../lib/services';
import { resolvePendingLinks } from '../lib/links/pendingLinks';
import { loggerForTimer } from '../lib/http/timer';

/** Every 5 minutes (RESOLVE_PENDING_LINKS_SCHEDULE): links pending identities whose directory user now exists. */
app.timer('resolvePendingLinks', {
  schedule: '%RESOLVE_PENDING_LINKS_SCHEDULE%',
  handler: async (_timer: Timer, context: InvocationContext): Promise<void> => {
    const log = loggerForTimer(context);
    const svc = services();
    const started = Date.now();
    const result = await resolvePendingLinks(svc.store, svc.directory, svc.claims, svc.settings.pendingLinkBatchLimit);
    log.info('pending links run finished', { ...result, durationMs: Date.now() - started });
  },
});
