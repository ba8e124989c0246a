/**
 * Sending the background-queue measurement to Azure Monitor's custom-metrics endpoint with the app's identity.
 */
import { customMetricBody } from '../../../lib/background/queueMeasure';
import { MONITORING_SCOPE, MetricsPublishError, publishMetric } from '../../../lib/background/metricsPublisher';

const now = new Date('2026-12-01T12:00:00.000Z');

describe('publishMetric', () => {
  it('is posted with a token for Azure Monitor, and a refusal is an error without the token in it', async () => {
    const calls: Array<{ url: string; init: { method: string; headers: Record<string, string>; body: string } }> = [];
    const scopes: string[] = [];
    const credential = {
      getToken: async (scope: string | string[]) => {
        scopes.push(String(scope));
        return { token: 'tok-123', expiresOnTimestamp: now.getTime() + 3600_000 };
      },
    };
    const target = { resourceId: '/subscriptions/s/rg/appi', region: 'swedencentral' };
    await publishMetric(
      target,
      credential,
      async (url, init) => {
        calls.push({ url, init });
        return { ok: true, status: 200 };
      },
      'PoisonMessages',
      2,
      now,
    );
    expect(scopes).toEqual([MONITORING_SCOPE]);
    expect(calls[0]?.url).toBe('https://swedencentral.monitoring.azure.com/subscriptions/s/rg/appi/metrics');
    expect(calls[0]?.init.method).toBe('POST');
    expect(calls[0]?.init.headers.authorization).toBe('Bearer tok-123');
    expect(JSON.parse(calls[0]?.init.body ?? '{}')).toEqual(customMetricBody('PoisonMessages', 2, now));

    const refused = publishMetric(
      target,
      credential,
      async () => ({ ok: false, status: 403 }),
      'PoisonMessages',
      0,
      now,
    );
    await expect(refused).rejects.toBeInstanceOf(MetricsPublishError);
    await expect(refused).rejects.toMatchObject({ status: 403 });
    await expect(refused).rejects.not.toThrow(/tok-123/);
  });
});
