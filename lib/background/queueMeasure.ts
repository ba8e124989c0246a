/**
 * The background-work queue seen from outside the consumer: a timer peeks it every minute and reports how long
 * the oldest visible message has waited, so a stall in which nothing runs at all (a broken role, a disabled
 * function, a consumer that fails before it logs) still shows. The numbers go to Azure Monitor as custom
 * metrics (the alerts in infra/modules/diagnostics.bicep read them), not as log lines a daily cap would stop.
 */

/** What a peek returns of a message that matters here (Storage returns each message's insertion time). */
export interface PeekedMessage {
  insertedOn?: Date;
}

export interface QueueMeasurement {
  /** Messages the peek returned (Storage returns at most 32). */
  visible: number;
  /** Seconds since the oldest of them was inserted; 0 when the queue showed none. */
  oldestAgeSeconds: number;
}

/** Storage's largest peek. */
export const PEEK_MAX = 32;

/**
 * The age of the oldest visible message among those peeked. A peeked message is visible: nobody holds it.
 * A unit put back with a delay (a throttled directory) counts from its new insertion, delay included.
 */
export function measureQueue(peeked: readonly PeekedMessage[], now: Date): QueueMeasurement {
  let oldest = Number.POSITIVE_INFINITY;
  for (const m of peeked) {
    const at = m.insertedOn?.getTime();
    if (at !== undefined && Number.isFinite(at)) oldest = Math.min(oldest, at);
  }
  const ageMs = Number.isFinite(oldest) ? Math.max(0, now.getTime() - oldest) : 0;
  return { visible: peeked.length, oldestAgeSeconds: Math.floor(ageMs / 1000) };
}

/** Namespace of the service's custom metrics (the metric alerts name it). */
export const METRIC_NAMESPACE = 'background-work';

/**
 * OldestMessageAgeSeconds and PoisonMessages every minute; MeasurementFailures (1) when a peek fails, e.g. the
 * app identity lost its queue role: the consumer cannot read either then, and the stall metric would be missing
 * rather than high, which no threshold sees.
 */
export type QueueMetricName = 'OldestMessageAgeSeconds' | 'PoisonMessages' | 'MeasurementFailures';

/** One value of a custom metric, as the Azure Monitor custom-metrics REST API takes it. */
export function customMetricBody(metric: QueueMetricName, value: number, time: Date): unknown {
  return {
    time: time.toISOString(),
    data: {
      baseData: {
        metric,
        namespace: METRIC_NAMESPACE,
        dimNames: [],
        series: [{ dimValues: [], min: value, max: value, sum: value, count: 1 }],
      },
    },
  };
}

/** The regional ingestion endpoint of a resource's custom metrics. */
export function customMetricsUrl(region: string, resourceId: string): string {
  return `https://${region}.monitoring.azure.com${resourceId.startsWith('/') ? '' : '/'}${resourceId}/metrics`;
}

/** What one measurement of the background-work queue and its poison queue found. */
export interface BackgroundQueueReport {
  visible: number;
  oldestAgeSeconds: number;
  poisonMessages: number;
  /** Whether the numbers went to Azure Monitor (false where no metrics target is configured). */
  published: boolean;
}

export interface BackgroundQueueMeasureDeps {
  /** The messages a peek of the named queue returns ([] for a queue not created yet). */
  peek(queue: string): Promise<readonly PeekedMessage[]>;
  /** Sends one value of a custom metric; undefined where no metrics target is configured. */
  publish?: (metric: QueueMetricName, value: number) => Promise<void>;
  now: Date;
}

/**
 * Peeks the work queue and the poison queue and sends what it found. A failed peek sends MeasurementFailures
 * (best effort: its own failure is not reported over the peek's) and then fails with the peek's error.
 */
export async function measureBackgroundQueues(
  deps: BackgroundQueueMeasureDeps,
  workQueue: string,
  poisonQueue: string,
): Promise<BackgroundQueueReport> {
  const measure = async (name: string) => measureQueue(await deps.peek(name), deps.now);
  let work: QueueMeasurement;
  let poison: QueueMeasurement;
  try {
    [work, poison] = await Promise.all([measure(workQueue), measure(poisonQueue)]);
  } catch (err) {
    await deps.publish?.('MeasurementFailures', 1).catch(() => undefined);
    throw err;
  }
  if (deps.publish) {
    await deps.publish('OldestMessageAgeSeconds', work.oldestAgeSeconds);
    await deps.publish('PoisonMessages', poison.visible);
  }
  return {
    visible: work.visible,
    oldestAgeSeconds: work.oldestAgeSeconds,
    poisonMessages: poison.visible,
    published: deps.publish !== undefined,
  };
}
