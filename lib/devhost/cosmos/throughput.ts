/**
 * Request units per container: what each container was charged, and, with a budget, throttling
 * like a Cosmos DB container with that many RU/s (a serverless container serves at most 5,000 RU/s:
 * https://learn.microsoft.com/azure/cosmos-db/serverless-performance).
 *
 * The budget is a bucket per container holding at most one second of request units, refilled
 * continuously. A request is admitted while the bucket is above zero and then takes its whole
 * charge (a large batch may take it below zero); while it is at or below zero, requests are refused
 * with the time until it is above zero again.
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
  balance: number;
  at: number;
}

export class Throughput {
  private readonly buckets = new Map<string, Bucket>();

  /** `ruPerSecond` undefined or 0: unlimited (charges are still counted). */
  constructor(
    readonly ruPerSecond: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private bucket(container: string): Bucket {
    let b = this.buckets.get(container);
    if (!b) {
      b = { balance: this.ruPerSecond ?? 0, at: this.now(), charged: 0, requests: 0, throttled: 0 };
      this.buckets.set(container, b);
    }
    if (this.ruPerSecond) {
      const t = this.now();
      b.balance = Math.min(this.ruPerSecond, b.balance + ((t - b.at) * this.ruPerSecond) / 1000);
      b.at = t;
    }
    return b;
  }

  /** Undefined when the request may run; else the milliseconds to wait before retrying it. */
  admit(container: string): number | undefined {
    if (!this.ruPerSecond) return undefined;
    const b = this.bucket(container);
    if (b.balance > 0) return undefined;
    b.throttled++;
    return Math.max(1, Math.ceil((-b.balance * 1000) / this.ruPerSecond));
  }

  charge(container: string, ru: number): void {
    const b = this.bucket(container);
    b.charged += ru;
    b.requests++;
    if (this.ruPerSecond) b.balance -= ru;
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
