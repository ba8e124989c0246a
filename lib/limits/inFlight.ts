/**
 * Requests in flight per key (a SCIM integration, a tenant's GraphQL callers), per instance. A rate
 * limit counts request starts; this counts what is still running, so a caller that holds its
 * requests open (a body it never sends, a slow upload) cannot take more than its share of the instance.
 */
export class InFlightLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** A release function when the key has room, otherwise undefined (refuse the request). */
  tryAcquire(key: string): (() => void) | undefined {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.max) return undefined;
    this.counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  inFlight(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/** Seconds a refused caller is told to wait: requests in flight end within seconds. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
