/**
 * The background-queue measurement behind the stall alert: the age of the oldest visible message from a peek,
 * and the custom-metric request that carries it to Azure Monitor.
 */
import {
  METRIC_NAMESPACE,
  PEEK_MAX,
  customMetricBody,
  customMetricsUrl,
  measureQueue,
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
