/** Token bucket per key (a SCIM integration, a tenant), per instance. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number = perSecond * 2,
    private readonly now: () => number = Date.now,
  ) {}

  private bucket(key: string): { tokens: number; at: number } {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    this.buckets.set(key, b);
    return b;
  }

  /** Takes one token; returns 0 when allowed, otherwise the seconds to wait. */
  take(key: string): number {
    const wait = this.waitFor(key);
    if (wait === 0) this.bucket(key).tokens -= 1;
    return wait;
  }

  /** 0 when the key has a token now, otherwise the seconds until it has one; takes nothing. */
  waitFor(key: string): number {
    const b = this.bucket(key);
    return b.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /**
   * Takes `units` tokens at once (an import's identities); returns 0 when allowed, otherwise the seconds
   * until the bucket holds that many. Nothing is taken when refused.
   */
  takeUnits(key: string, units: number): number {
    const b = this.bucket(key);
    if (b.tokens >= units) {
      b.tokens -= units;
      return 0;
    }
    return Math.max(1, Math.ceil((units - b.tokens) / this.perSecond));
  }

  /**
   * Takes `units` more tokens for work a request already admitted turned out to need (a SCIM jump that
   * read many ids): the bucket may go below zero, so the key's next requests wait for it, at most a
   * minute's worth.
   */
  charge(key: string, units: number): void {
    if (units <= 0) return;
    const b = this.bucket(key);
    b.tokens = Math.max(-this.perSecond * 60, b.tokens - units);
  }
}
