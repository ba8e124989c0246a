/**
 * Request units per container: what each container was charged, and, with a budget, throttling
 * like a Cosmos DB container with that many RU/s (a serverless container serves at most 5,000 RU/s:
 * https://learn.microsoft.com/azure/cosmos-db/serverless-performance).
 *
 * As Cosmos DB does (https://learn.microsoft.com/azure/cosmos-db/nosql/troubleshoot-request-rate-too-large:
 * when the operations of a second consume more than the RU/s, it answers 429; the RU available are
 * reset every second), each container has a budget per one-second window: a request is admitted
 * while the window's charges are below the budget and then counts its whole charge; beyond, requests
 * are refused until the next window. What an admitted request took beyond the budget counts against
 * the next window, so the rate over time never exceeds the budget.
 */
export interface ContainerUsage {
  /** Request units charged to admitted requests. */
  charged: number;
  /** Requests admitted (charged). */
  requests: number;
  /** Requests refused with 429. */
  throttled: number;
}

export interface ThroughputUsage extends ContainerUsage {
  byContainer: Record<string, ContainerUsage>;
}

interface Bucket extends ContainerUsage {
  windowStart: number;
  used: number;
}

export class Throughput {
  private readonly buckets = new Map<string, Bucket>();

  /** `ruPerSecond` undefined or 0: unlimited (charges are still counted). */
  constructor(
    readonly ruPerSecond: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private bucket(container: string): Bucket {
    const t = this.now();
    let b = this.buckets.get(container);
    if (!b) {
      b = { windowStart: t, used: 0, charged: 0, requests: 0, throttled: 0 };
      this.buckets.set(container, b);
    }
    if (this.ruPerSecond && t >= b.windowStart + 1000) {
      const windows = Math.floor((t - b.windowStart) / 1000);
      b.windowStart += windows * 1000;
      b.used = Math.max(0, b.used - windows * this.ruPerSecond);
    }
    return b;
  }

  /** Undefined when the request may run; else the milliseconds to wait before retrying it. */
  admit(container: string): number | undefined {
    if (!this.ruPerSecond) return undefined;
    const b = this.bucket(container);
    if (b.used < this.ruPerSecond) return undefined;
    b.throttled++;
    // The window in which the debt is paid off, then its start.
    const windows = Math.floor(b.used / this.ruPerSecond);
    return Math.max(1, Math.ceil(b.windowStart + windows * 1000 - this.now()));
  }

  charge(container: string, ru: number): void {
    const b = this.bucket(container);
    b.charged += ru;
    b.requests++;
    if (this.ruPerSecond) b.used += ru;
  }

  usage(): ThroughputUsage {
    const total: ThroughputUsage = { charged: 0, requests: 0, throttled: 0, byContainer: {} };
    for (const [name, b] of this.buckets) {
      total.byContainer[name] = { charged: b.charged, requests: b.requests, throttled: b.throttled };
      total.charged += b.charged;
      total.requests += b.requests;
      total.throttled += b.throttled;
    }
    return total;
  }
}
