/**
 * The background-queue measurement behind the stall alert: the age of the oldest visible message from a peek,
 * and the custom-metric request that carries it to Azure Monitor.
 */
import {
  METRIC_NAMESPACE,
  PEEK_MAX,
  customMetricBody,
  customMetricsUrl,
  measureBackgroundQueues,
  measureQueue,
  type PeekedMessage,
  type QueueMetricName,
} from '../../../lib/background/queueMeasure';

const now = new Date('2026-12-01T12:00:00.000Z');
const ago = (seconds: number) => ({ insertedOn: new Date(now.getTime() - seconds * 1000) });

describe('measureQueue', () => {
  it('reports the oldest visible message, in whole seconds, whatever the order of the peek', () => {
    expect(measureQueue([ago(30), ago(1250.9), ago(2)], now)).toEqual({ visible: 3, oldestAgeSeconds: 1250 });
  });

  it('an empty queue has waited nothing', () => {
    expect(measureQueue([], now)).toEqual({ visible: 0, oldestAgeSeconds: 0 });
  });

  it('a message without an insertion time counts as visible but not as old', () => {
    expect(measureQueue([{}, ago(60)], now)).toEqual({ visible: 2, oldestAgeSeconds: 60 });
    expect(measureQueue([{ insertedOn: new Date('not a date') }], now)).toEqual({ visible: 1, oldestAgeSeconds: 0 });
  });

  it('a clock behind the queue never reports a negative age', () => {
    expect(measureQueue([ago(-5)], now).oldestAgeSeconds).toBe(0);
  });

  it('peeks as much as Storage returns', () => {
    expect(PEEK_MAX).toBe(32);
  });
});

describe('the custom metric', () => {
  it('is one value of a metric of the background-work namespace, at the measurement time', () => {
    expect(customMetricBody('OldestMessageAgeSeconds', 905, now)).toEqual({
      time: '2026-12-01T12:00:00.000Z',
      data: {
        baseData: {
          metric: 'OldestMessageAgeSeconds',
          namespace: METRIC_NAMESPACE,
          dimNames: [],
          series: [{ dimValues: [], min: 905, max: 905, sum: 905, count: 1 }],
        },
      },
    });
    expect(METRIC_NAMESPACE).toBe('background-work');
  });

  it('goes to the regional endpoint of the resource', () => {
    const id = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/components/appi-x';
    expect(customMetricsUrl('westeurope', id)).toBe(`https://westeurope.monitoring.azure.com${id}/metrics`);
  });
});

describe('one measurement of the work queue and its poison queue', () => {
  const queues: Record<string, readonly PeekedMessage[]> = { work: [ago(30), ago(1000)], poison: [ago(5)] };
  const recorder = () => {
    const sent: Array<[QueueMetricName, number]> = [];
    return { sent, publish: async (metric: QueueMetricName, value: number) => void sent.push([metric, value]) };
  };

  it('sends the oldest age of the work queue and the count of the poison queue', async () => {
    const { sent, publish } = recorder();
    const report = await measureBackgroundQueues(
      { peek: async (q) => queues[q] ?? [], publish, now },
      'work',
      'poison',
    );
    expect(report).toEqual({ visible: 2, oldestAgeSeconds: 1000, poisonMessages: 1, published: true });
    expect(sent).toEqual([
      ['OldestMessageAgeSeconds', 1000],
      ['PoisonMessages', 1],
    ]);
  });

  it('without a metrics target it measures and sends nothing', async () => {
    const report = await measureBackgroundQueues({ peek: async (q) => queues[q] ?? [], now }, 'work', 'poison');
    expect(report.published).toBe(false);
  });

  it('a failed peek (a lost queue role) sends MeasurementFailures instead, and fails with the peek error', async () => {
    const { sent, publish } = recorder();
    const denied = Object.assign(new Error('AuthorizationPermissionMismatch'), { statusCode: 403 });
    await expect(
      measureBackgroundQueues(
        { peek: async (q) => (q === 'work' ? Promise.reject(denied) : []), publish, now },
        'work',
        'poison',
      ),
    ).rejects.toBe(denied);
    expect(sent).toEqual([['MeasurementFailures', 1]]);
  });

  it('a failure to send MeasurementFailures does not hide the peek error', async () => {
    const denied = new Error('AuthorizationPermissionMismatch');
    await expect(
      measureBackgroundQueues(
        { peek: () => Promise.reject(denied), publish: () => Promise.reject(new Error('403 metrics')), now },
        'work',
        'poison',
      ),
    ).rejects.toBe(denied);
  });
});
