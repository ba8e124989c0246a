/** The handlers of the timers that plan background work and of the queue trigger that does it. */
import type { InvocationContext, Timer } from '@azure/functions';
import { importJobDeps, services, workDeps } from '../services';
import { BACKGROUND_POISON_QUEUE_NAME, BACKGROUND_QUEUE_NAME, parseBackgroundWork } from '../background/backgroundWork';
import { runBackgroundWork } from '../background/runWork';
import { planPendingLinks, planRetention } from '../background/planner';
import { resumeImportJobs } from '../imports/importJob';
import { directoryAdvice } from '../directory/directoryTrouble';
import { loggerForQueueMessage, loggerForTimer, queuedMsOf } from './timer';
import { DefaultAzureCredential } from '@azure/identity';
import { connect } from '../background/workQueue';
import { PEEK_MAX, measureBackgroundQueues, type BackgroundQueueReport } from '../background/queueMeasure';
import { publishMetric } from '../background/metricsPublisher';

export { BACKGROUND_QUEUE_NAME };

const ORPHAN_CLAIMS_PER_RUN = 1000;

/** Does one unit of background work from the background-work queue. */
export async function doBackgroundWork(message: unknown, context: InvocationContext): Promise<void> {
  const log = loggerForQueueMessage(context);
  const started = Date.now();
  // Since the unit was enqueued (or last put back): how long it waited, for investigations (the stall alert reads
  // the queue measurement, measureBackgroundQueueRun).
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
  if ('waitingFull' in outcome) {
    log.info('background work put back', {
      kind: work.kind,
      tenantId: work.tenantId,
      reason: 'no unit of this instance for it now (its tenant has enough waiting, or it waited its longest)',
      delaySeconds: outcome.delaySeconds,
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
}

/** Plans one unit of pending-link work per registered tenant, and repairs orphan link claims. */
export async function planPendingLinksRun(_timer: Timer, context: InvocationContext): Promise<void> {
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
}

/** Plans one unit of retention work per identity partition with identities inactive past the retention period. */
export async function planRetentionRun(_timer: Timer, context: InvocationContext): Promise<void> {
  const log = loggerForTimer(context);
  const svc = services();
  const started = Date.now();
  const planned = await planRetention(svc.store, svc.workQueue, svc.settings.retentionInactiveDays);
  log.info('retention planned', {
    units: planned.units,
    inactiveDays: svc.settings.retentionInactiveDays,
    durationMs: Date.now() - started,
  });
}

/** Hands staged imports' jobs that stopped (a crash, a lost message) to the queue again. */
export async function resumeImportsRun(_timer: Timer, context: InvocationContext): Promise<void> {
  const log = loggerForTimer(context);
  const svc = services();
  const started = Date.now();
  const result = await resumeImportJobs(importJobDeps(svc));
  if (result.listed > 0) log.info('import jobs examined', { ...result, durationMs: Date.now() - started });
}

/**
 * Every minute: peeks the background-work queue and its poison queue and reports the age of the oldest visible
 * unit and the units on the poison queue, as custom metrics (METRICS_RESOURCE_ID) and as one log line. The
 * stall alert fires on the metric when work waits and nothing takes it, whatever the consumer does or logs; a
 * peek that fails (a lost queue role, which stops the consumer too) sends MeasurementFailures instead.
 */
export async function measureBackgroundQueueRun(_timer: Timer, context: InvocationContext): Promise<void> {
  const log = loggerForTimer(context);
  const svc = services();
  const queueSettings = svc.settings.backgroundQueue;
  const now = new Date();
  const { resourceId, region } = svc.settings.metrics;
  const credential = resourceId && region ? new DefaultAzureCredential() : undefined;
  let fields: BackgroundQueueReport;
  try {
    fields = await measureBackgroundQueues(
      {
        peek: async (name) =>
          (
            await connect(queueSettings, name)
              .peekMessages({ numberOfMessages: PEEK_MAX })
              .catch((err: unknown) => {
                // A queue not created yet (the local stack creates the poison queue on first use) holds nothing.
                if ((err as { statusCode?: number }).statusCode === 404) return { peekedMessageItems: [] };
                throw err;
              })
          ).peekedMessageItems,
        publish:
          credential && resourceId && region
            ? (metric, value) => publishMetric({ resourceId, region }, credential, fetch, metric, value, now)
            : undefined,
        now,
      },
      BACKGROUND_QUEUE_NAME,
      BACKGROUND_POISON_QUEUE_NAME,
    );
  } catch (err) {
    log.error('background queue measurement failed', { reason: (err as Error).message });
    throw err;
  }
  // A line a minute while work waits; an empty queue only at debug (the metrics carry the numbers either way).
  if (fields.visible > 0 || fields.poisonMessages > 0) log.info('background queue measured', { ...fields });
  else log.debug('background queue measured', { ...fields });
}
