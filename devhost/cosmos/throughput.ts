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
 *
 * The account's mode decides what a request's priority (header `x-ms-cosmos-priority-level`) does.
 * `serverless`, the template's default account: nothing. Azure does not support priority-based execution on
 * serverless accounts (https://learn.microsoft.com/azure/cosmos-db/priority-based-execution, "Limitations"),
 * so every request spends from the same budget in the order it comes; the priority is only counted.
 * `provisioned`, priority-based execution: when the budget runs short, low-priority requests are throttled
 * first. Nothing is reserved while no high-priority request comes (low priority may use the whole
 * budget); once high-priority requests used part of the last window, a low-priority request is admitted
 * only while that much of the current window is still free for them. What low-priority requests took
 * beyond their share (a large batch admitted near the end of its share) is paid off by later low-priority
 * requests only: high-priority requests do not wait for it.
 */
export type Priority = 'high' | 'low';

/** What kind of account the engine stands for: whether request priority is honoured (see above). */
export type CosmosMode = 'serverless' | 'provisioned';

export const COSMOS_MODES: readonly CosmosMode[] = ['serverless', 'provisioned'];
export interface ContainerUsage {
  /** Request units charged to admitted requests. */
  charged: number;
  /** Requests admitted (charged). */
  requests: number;
  /** Requests refused with 429. */
  throttled: number;
  /** Low-priority requests admitted, and refused with 429. */
  lowRequests: number;
  lowThrottled: number;
  /** Request units charged to admitted low-priority requests. */
  lowCharged: number;
}

export interface ThroughputUsage extends ContainerUsage {
  byContainer: Record<string, ContainerUsage>;
}

interface Bucket extends ContainerUsage {
  windowStart: number;
  used: number;
  /** Charges of high-priority requests in the current window, and in the last one (their expected demand). */
  highUsed: number;
  highLastWindow: number;
  /** Charges of low-priority requests in the current window, and the part of the carried debt that is theirs. */
  lowUsed: number;
  lowDebt: number;
}

export class Throughput {
  private readonly buckets = new Map<string, Bucket>();

  /** The account's mode; a benchmark may change it while the engine runs. */
  mode: CosmosMode;
  private readonly now: () => number;

  /** `ruPerSecond` undefined or 0: unlimited (charges are still counted). */
  constructor(
    readonly ruPerSecond: number | undefined,
    options: { mode?: CosmosMode; now?: () => number } = {},
  ) {
    this.mode = options.mode ?? 'serverless';
    this.now = options.now ?? (() => performance.now());
  }

  private bucket(container: string): Bucket {
    const t = this.now();
    let b = this.buckets.get(container);
    if (!b) {
      b = {
        windowStart: t,
        used: 0,
        highUsed: 0,
        highLastWindow: 0,
        lowUsed: 0,
        lowDebt: 0,
        charged: 0,
        requests: 0,
        throttled: 0,
        lowRequests: 0,
        lowThrottled: 0,
        lowCharged: 0,
      };
      this.buckets.set(container, b);
    }
    if (this.ruPerSecond && t >= b.windowStart + 1000) {
      const windows = Math.floor((t - b.windowStart) / 1000);
      b.windowStart += windows * 1000;
      b.used = Math.max(0, b.used - windows * this.ruPerSecond);
      b.lowDebt = Math.min(b.used, b.lowDebt + b.lowUsed);
      b.lowUsed = 0;
      b.highLastWindow = windows === 1 ? b.highUsed : 0;
      b.highUsed = 0;
    }
    return b;
  }

  /** Undefined when the request may run; else the milliseconds to wait before retrying it. */
  admit(container: string, priority: Priority = 'high'): number | undefined {
    if (!this.ruPerSecond) return undefined;
    const b = this.bucket(container);
    if (this.mode === 'serverless') {
      if (b.used < this.ruPerSecond) return undefined;
      if (priority === 'low') b.lowThrottled++;
    } else if (priority === 'low') {
      // What high-priority requests are expected to need of this window is kept free for them.
      const keptForHigh = Math.max(0, b.highLastWindow - b.highUsed);
      if (b.used + keptForHigh < this.ruPerSecond) return undefined;
      b.lowThrottled++;
    } else {
      const lowBeyondShare = b.lowDebt + Math.max(0, b.lowUsed - Math.max(0, this.ruPerSecond - b.highLastWindow));
      if (b.used - lowBeyondShare < this.ruPerSecond) return undefined;
    }
    b.throttled++;
    if (b.used < this.ruPerSecond) return Math.max(1, Math.ceil(b.windowStart + 1000 - this.now()));
    // The window in which the debt is paid off, then its start.
    const windows = Math.floor(b.used / this.ruPerSecond);
    return Math.max(1, Math.ceil(b.windowStart + windows * 1000 - this.now()));
  }

  charge(container: string, ru: number, priority: Priority = 'high'): void {
    const b = this.bucket(container);
    b.charged += ru;
    b.requests++;
    if (priority === 'low') {
      b.lowRequests++;
      b.lowCharged += ru;
      b.lowUsed += ru;
    } else b.highUsed += ru;
    if (this.ruPerSecond) b.used += ru;
  }

  usage(): ThroughputUsage {
    const total: ThroughputUsage = {
      charged: 0,
      requests: 0,
      throttled: 0,
      lowRequests: 0,
      lowThrottled: 0,
      lowCharged: 0,
      byContainer: {},
    };
    for (const [name, b] of this.buckets) {
      const { charged, requests, throttled, lowRequests, lowThrottled, lowCharged } = b;
      total.byContainer[name] = { charged, requests, throttled, lowRequests, lowThrottled, lowCharged };
      total.charged += charged;
      total.requests += requests;
      total.throttled += throttled;
      total.lowRequests += lowRequests;
      total.lowThrottled += lowThrottled;
      total.lowCharged += lowCharged;
    }
    return total;
  }
}
