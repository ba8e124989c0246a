/**
 * Refusals paced under a flood. A refusal is cheap but not free (the request is parsed, a token's signature
 * checked), and a client that sends again as soon as it is refused can keep an instance's main thread busy
 * with them, at the expense of every other customer's requests. So while refusals of one kind are rare
 * they are answered at once; past a free allowance per second, each is answered after a pause, which slows a
 * client that waits for its answers (a retry loop, a brute-force script) to a few requests a second. At most
 * `maxHeld` answers wait at a time (beyond that they go at once), so the pauses cost bounded memory.
 * An open flood from many connections is for the platform's front end (see docs/security.md). The busy
 * refusals' allowance is the fleet's per tenant (leased shares, fleetShares.ts); the authentication refusals'
 * protects one instance's CPU and stays the instance's own.
 */
import { RateLimiter, type ShareOf } from './rateLimiter';

export interface RefusalPacing {
  /** Refusals per second per key answered at once, and how many of them may come together. */
  freePerSecond: number;
  freeBurst: number;
  pauseMs: number;
  /**
   * Each pause is drawn from pauseMs × (1 ± jitter). Without it, the answers held in one second are all sent in
   * the same instant a second later, and a flood's clients, which send again as soon as they are answered, come
   * back as one wave each second: a burst of work every other customer's requests queue behind.
   */
  jitter?: number;
  maxHeld: number;
}

/** Invalid or missing tokens, for the whole instance (a forger can name any tenant, so there is no better key). */
export const AUTHENTICATION_PACING: RefusalPacing = {
  freePerSecond: 20,
  freeBurst: 100,
  pauseMs: 1000,
  jitter: 0.5,
  maxHeld: 1000,
};
/** A tenant's callers over a budget or bound in flight, or of a disabled or unknown integration (per tenant). */
export const BUSY_PACING: RefusalPacing = {
  freePerSecond: 5,
  freeBurst: 20,
  pauseMs: 1000,
  jitter: 0.5,
  maxHeld: 1000,
};

export class RefusalPacer {
  private readonly free: RateLimiter;
  private held = 0;

  /**
   * With `share`, the allowance is the fleet's for each key, and this instance has its part of it. `random`
   * (0 ≤ x < 1) draws each pause's place within the jitter.
   */
  constructor(
    private readonly pacing: RefusalPacing,
    share?: ShareOf,
    private readonly random: () => number = Math.random,
  ) {
    this.free = new RateLimiter(pacing.freePerSecond, pacing.freeBurst, Date.now, share);
  }

  /** Resolves when a refusal of `key` may be sent: at once within the allowance, after the pause beyond it. */
  async pace(key: string): Promise<void> {
    if (this.free.take(key) === 0 || this.held >= this.pacing.maxHeld) return;
    this.held++;
    try {
      const jitter = this.pacing.jitter ?? 0;
      const pause = this.pacing.pauseMs * (1 - jitter + 2 * jitter * this.random());
      await new Promise((resolve) => setTimeout(resolve, pause));
    } finally {
      this.held--;
    }
  }
}
