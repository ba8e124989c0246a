/**
 * Sends the background-queue measurement to the Azure Monitor metrics store of a resource (the Application
 * Insights component), with the app's managed identity (Monitoring Metrics Publisher on that component). Metrics
 * there are neither sampled nor stopped by the Log Analytics daily cap, so the stall and poison alerts keep
 * working when logs stop.
 */
import type { TokenCredential } from '@azure/identity';
import { customMetricBody, customMetricsUrl, type QueueMetricName } from './queueMeasure';

/** Token audience of the custom-metrics endpoint. */
export const MONITORING_SCOPE = 'https://monitoring.azure.com/.default';

export interface MetricsTarget {
  resourceId: string;
  region: string;
}

export type Fetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<{
  ok: boolean;
  status: number;
}>;

export class MetricsPublishError extends Error {
  constructor(readonly status: number) {
    super(`custom metric refused with status ${status}`);
    this.name = 'MetricsPublishError';
  }
}

export async function publishMetric(
  target: MetricsTarget,
  credential: TokenCredential,
  fetchFn: Fetch,
  metric: QueueMetricName,
  value: number,
  time: Date,
): Promise<void> {
  const token = await credential.getToken(MONITORING_SCOPE);
  if (!token) throw new MetricsPublishError(401);
  const response = await fetchFn(customMetricsUrl(target.region, target.resourceId), {
    method: 'POST',
    headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(customMetricBody(metric, value, time)),
  });
  if (!response.ok) throw new MetricsPublishError(response.status);
}
