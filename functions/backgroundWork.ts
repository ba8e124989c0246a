import { app, type InvocationContext } from '@azure/functions';
import { services, workDeps } from '../lib/services';
import { BACKGROUND_QUEUE_NAME, parseBackgroundWork } from '../lib/background/backgroundWork';
import { runBackgroundWork } from '../lib/background/runWork';
import { loggerForQueueMessage, queuedMsOf } from '../lib/http/timer';
import { directoryAdvice } from '../lib/directory/directoryTrouble';

/**
 * One unit of background work from the background-work queue (planned by the timers): one tenant's
 * pending links or retention. Connection BACKGROUND_QUEUE: identity-based in Azure
 * (BACKGROUND_QUEUE__queueServiceUri), Azurite's connection string locally. A unit that keeps failing
 * ends in background-work-poison after maxDequeueCount (host.json).
 */
app.storageQueue('backgroundWork', {
  queueName: BACKGROUND_QUEUE_NAME,
  connection: 'BACKGROUND_QUEUE',
  handler: async (message: unknown, context: InvocationContext): Promise<void> => {
    const log = loggerForQueueMessage(context);
    const started = Date.now();
    // Since the unit was enqueued (or last put back): the alert on the oldest background message reads it.
    const queuedMs = queuedMsOf(context, started);
    const dequeueCount = Number(context.triggerMetadata?.dequeueCount ?? 0);
    let work;
    try {
      work = parseBackgroundWork(message);
    } catch (err) {
      log.error('background work message refused', { reason: (err as Error).message, dequeueCount });
      throw err;
    }
    const outcome = await runBackgroundWork(workDeps(services()), work);
    const durationMs = Date.now() - started;
    if ('deferred' in outcome) {
      log.warn('background work deferred', {
        kind: work.kind,
        tenantId: work.tenantId,
        reason: outcome.deferred.reason,
        advice: directoryAdvice(outcome.deferred.reason),
        delaySeconds: outcome.deferred.seconds,
        putBack: outcome.putBack,
        deferrals: work.deferrals ?? 0,
        queuedMs,
        durationMs,
      });
      return;
    }
    log.info('background work done', {
      kind: work.kind,
      tenantId: work.tenantId,
      ...outcome.result,
      continued: outcome.continued,
      dequeueCount,
      queuedMs,
      durationMs,
    });
  },
});
