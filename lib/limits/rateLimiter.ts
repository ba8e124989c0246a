/**
 * Token bucket per key (a SCIM integration, a tenant). With a share (lib/limits/fleetShares.ts) the bucket
 * holds this instance's part of a fleet budget: its rate and its burst are the budget's times the fraction the
 * instance has of the key now, so the instances serving a key together stay within the budget.
 */
export type ShareOf = (key: string) => number;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number; fraction: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number = perSecond * 2,
    private readonly now: () => number = Date.now,
    /** The fraction of the budget this instance has for a key (1: the whole budget, one instance alone). */
    private readonly share: ShareOf = () => 1,
  ) {}

  private bucket(key: string): { tokens: number; at: number; rate: number; burst: number } {
    const t = this.now();
    const fraction = this.share(key);
    const rate = this.perSecond * fraction;
    const burst = this.burst * fraction;
    const b = this.buckets.get(key) ?? { tokens: burst, at: t, fraction };
    // The bucket holds this instance's part of the fleet's: when its part changes, so do its tokens (and debt).
    if (fraction !== b.fraction) {
      b.tokens *= fraction / b.fraction;
      b.fraction = fraction;
    }
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate);
    b.at = t;
    this.buckets.set(key, b);
    return Object.assign(b, { rate, burst });
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
    return b.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / b.rate));
  }

  /**
   * Takes `units` tokens at once (an import's identities); returns 0 when allowed, otherwise the seconds
   * until the bucket holds that many. Nothing is taken when refused. When `units` is more than this
   * instance's part of the burst, a full bucket lets them go (the balance goes below zero and the key's next
   * ones wait for it), so a request the whole budget allows is never refused for good.
   */
  takeUnits(key: string, units: number): number {
    const b = this.bucket(key);
    const needed = Math.min(units, b.burst);
    if (b.tokens >= needed) {
      b.tokens -= units;
      return 0;
    }
    return Math.max(1, Math.ceil((needed - b.tokens) / b.rate));
  }

  /**
   * Takes `units` more tokens for work a request already admitted turned out to need (a SCIM jump that
   * read many ids): the bucket may go below zero, so the key's next requests wait for it, at most a
   * minute's worth.
   */
  charge(key: string, units: number): void {
    if (units <= 0) return;
    const b = this.bucket(key);
    b.tokens = Math.max(-b.rate * 60, b.tokens - units);
  }
}
