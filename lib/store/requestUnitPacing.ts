/**
 * Bulk work paced by request units, per tenant, in every Cosmos DB mode.
 *
 * Low priority (priority.ts) keeps bulk work behind SCIM and administrator requests only where the account
 * supports priority-based execution: not on a serverless account (the template's default), and only on a
 * best-effort basis elsewhere. So the store paces bulk work itself. Each tenant's low-priority operations
 * spend from that tenant's budget of request units per second, and all tenants' bulk work together from the
 * instance's budget, shared equally among the tenants that have bulk work at the moment: N tenants' bulk
 * work never takes more than the instance's budget of a container, whatever N.
 *
 * An operation is sent once its tenant's balance is not negative; an estimate of its charge (what operations
 * of its kind cost lately) is reserved meanwhile, so operations sent at once do not all pass on one balance,
 * and what the store reports it cost replaces the estimate when it answers. A costly operation (a batch)
 * therefore delays its tenant's next ones until its charge is paid off at the tenant's rate; other tenants
 * do not wait for it.
 *
 * When the store throttles bulk work (429), the container is busy: the tenant's rate and the instance's are
 * halved (at most once a second, however many operations were throttled together; never below a sixteenth),
 * no bulk work is sent before the store's retry-after has passed, and the rates recover by a twentieth of the
 * configured rate a second (additive increase, multiplicative decrease).
 *
 * Both budgets are the fleet's (BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT and BULK_REQUEST_UNITS_PER_SECOND, with
 * defaults for the account's mode): each instance paces against the share of each it leases
 * (lib/limits/fleetShares.ts), so k instances running one tenant's bulk work spend its budget once, not k times.
 *
 * High-priority operations never come here: SCIM and administrator requests do not wait for bulk work.
 */
import { FLEET_BUDGET, WHOLE_BUDGET, type ShareSource } from '../limits/fleetShares';

export interface PacingLimits {
  /** Request units a second one tenant's bulk work may spend (the fleet's budget with a share source). */
  tenantRequestUnitsPerSecond: number;
  /** Request units a second all tenants' bulk work together may spend (the fleet's budget with a share source). */
  instanceRequestUnitsPerSecond: number;
}

/** The key of the budget of all tenants' bulk work in the leases. */
const SERVICE_KEY = '_service';

/** Time in milliseconds (monotonic) and a one-shot timer: the real ones in the service, a fake one in tests. */
export interface PacerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): void;
}

export const REAL_CLOCK: PacerClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => void setTimeout(fn, ms),
};

/** The model's constants (exported for the tests and the docs). */
export const PACING = {
  /** A tenant with no debt may send this many seconds of its rate at once. */
  burstSeconds: 0.5,
  /** The lowest fraction of a configured rate throttling brings a rate down to. */
  minimumShare: 1 / 16,
  /** The fraction of the configured rate a throttled rate gains back per second. */
  recoveryPerSecond: 0.05,
  /** Throttling halves a rate at most once in this time (operations throttled together count once). */
  decreaseEveryMs: 1000,
  /** A tenant counts for the instance's share while it has bulk work, and this long after. */
  activeForMs: 1000,
  /** Request units reserved per unit of an operation of a kind not seen yet. */
  firstEstimate: 10,
  /** How quickly an estimate follows the charges of its kind. */
  estimateWeight: 0.2,
  /** A tenant without bulk work for this long is forgotten. */
  forgetAfterMs: 60_000,
} as const;

/** An operation allowed to go: hand it back to `settle` with what the store reported. */
export interface Admission {
  readonly tenant: string;
  readonly kind: string;
  readonly units: number;
  /** Request units reserved until the store reports the charge. */
  readonly reserved: number;
  /** How long the operation waited for its budget (0: sent at once). */
  readonly waitedMs: number;
}

export interface Outcome {
  /** What the store charged; undefined when it did not say (the reserved estimate stays charged). */
  requestCharge?: number;
  /** Set when the store throttled the operation: the wait it asked for (0 when its client already waited). */
  throttledRetryAfterMs?: number;
}

export interface TenantPacingStats {
  /** Operations sent, and how many of them waited for the budget first. */
  admitted: number;
  waited: number;
  waitedMs: number;
  /** Request units the store reported for them. */
  charged: number;
  /** Operations the store throttled. */
  throttled: number;
}

interface Waiter {
  resolve: (admission: Admission) => void;
  kind: string;
  units: number;
  since: number;
}

interface TenantPace {
  tenant: string;
  balance: number;
  refilledAt: number;
  /** The fraction of the configured tenant rate the tenant has now (1 unless throttled lately). */
  share: number;
  decreasedAt: number;
  pausedUntil: number;
  inFlight: number;
  lastActive: number;
  waiters: Waiter[];
  /** When the timer that will admit the next waiter fires. */
  timerAt?: number;
  stats: TenantPacingStats;
}

export class RequestUnitPacer {
  private readonly tenants = new Map<string, TenantPace>();
  private readonly estimates = new Map<string, number>();
  private readonly instance: { share: number; decreasedAt: number; pausedUntil: number; recoveredAt: number };
  private forgottenAt: number;

  constructor(
    readonly limits: PacingLimits,
    private readonly clock: PacerClock = REAL_CLOCK,
    /** The fleet's shares of the budgets (default: this instance has them whole). */
    private readonly fleet: ShareSource = WHOLE_BUDGET,
  ) {
    const t = clock.now();
    this.instance = { share: 1, decreasedAt: -Infinity, pausedUntil: -Infinity, recoveredAt: t };
    this.forgottenAt = t;
  }

  /**
   * Resolves when `tenant`'s bulk operation of `kind` (`units` items: a batch's operations, else 1) may be sent.
   * Operations of one tenant go in the order they asked.
   */
  admit(tenant: string, kind: string, units = 1): Promise<Admission> {
    const t = this.clock.now();
    this.forgetIdle(t);
    const pace = this.paceOf(tenant, t);
    this.refill(pace, t);
    if (pace.waiters.length === 0 && this.ready(pace, t))
      return Promise.resolve(this.reserve(tenant, pace, kind, units, 0, t));
    return new Promise<Admission>((resolve) => {
      pace.waiters.push({ resolve, kind, units, since: t });
      this.schedule(tenant, pace, t);
    });
  }

  /** Charges what the store reported for an admitted operation (call it once, also when the operation failed). */
  settle(admission: Admission, outcome: Outcome): void {
    const t = this.clock.now();
    const pace = this.paceOf(admission.tenant, t);
    this.refill(pace, t);
    const charge = outcome.requestCharge ?? admission.reserved;
    pace.balance += admission.reserved - charge;
    pace.inFlight = Math.max(0, pace.inFlight - 1);
    pace.lastActive = t;
    pace.stats.charged += charge;
    if (outcome.requestCharge !== undefined && admission.units > 0) {
      const before = this.estimateOf(admission.kind);
      this.estimates.set(
        admission.kind,
        before + PACING.estimateWeight * (outcome.requestCharge / admission.units - before),
      );
    }
    if (outcome.throttledRetryAfterMs !== undefined) {
      pace.stats.throttled++;
      this.backOff(pace, t, outcome.throttledRetryAfterMs);
    }
    if (pace.waiters.length > 0) this.pump(admission.tenant);
  }

  /** The request units a second `tenant`'s bulk work may spend now. */
  rateOf(tenant: string): number {
    const t = this.clock.now();
    const pace = this.paceOf(tenant, t);
    this.refill(pace, t);
    return this.rate(pace, t);
  }

  /** What the pacer did for each tenant it remembers. */
  stats(): Record<string, TenantPacingStats> {
    return Object.fromEntries([...this.tenants].map(([tenant, pace]) => [tenant, { ...pace.stats }]));
  }

  private paceOf(tenant: string, t: number): TenantPace {
    let pace = this.tenants.get(tenant);
    if (!pace) {
      pace = {
        tenant,
        balance: 0,
        refilledAt: t,
        share: 1,
        decreasedAt: -Infinity,
        pausedUntil: -Infinity,
        inFlight: 0,
        lastActive: t,
        waiters: [],
        stats: { admitted: 0, waited: 0, waitedMs: 0, charged: 0, throttled: 0 },
      };
      this.tenants.set(tenant, pace);
      pace.balance = this.burst(this.rate(pace, t));
    }
    return pace;
  }

  private active(pace: TenantPace, t: number): boolean {
    return pace.waiters.length > 0 || pace.inFlight > 0 || t - pace.lastActive < PACING.activeForMs;
  }

  /** The tenant's rate now: its share of its own (as throttling left it), at most an equal part of the instance's. */
  private rate(pace: TenantPace, t: number): number {
    let active = 0;
    for (const other of this.tenants.values()) if (other === pace || this.active(other, t)) active++;
    const own =
      this.limits.tenantRequestUnitsPerSecond *
      pace.share *
      this.fleet.fraction(FLEET_BUDGET.bulkTenantRequestUnits, pace.tenant);
    const instance =
      (this.limits.instanceRequestUnitsPerSecond *
        this.instance.share *
        this.fleet.fraction(FLEET_BUDGET.bulkServiceRequestUnits, SERVICE_KEY)) /
      Math.max(1, active);
    return Math.min(own, instance);
  }

  private burst(rate: number): number {
    return rate * PACING.burstSeconds;
  }

  private refill(pace: TenantPace, t: number): void {
    const seconds = Math.max(0, t - pace.refilledAt) / 1000;
    pace.share = Math.min(1, pace.share + PACING.recoveryPerSecond * seconds);
    const instanceSeconds = Math.max(0, t - this.instance.recoveredAt) / 1000;
    this.instance.share = Math.min(1, this.instance.share + PACING.recoveryPerSecond * instanceSeconds);
    this.instance.recoveredAt = Math.max(this.instance.recoveredAt, t);
    const rate = this.rate(pace, t);
    pace.balance = Math.min(this.burst(rate), pace.balance + rate * seconds);
    pace.refilledAt = Math.max(pace.refilledAt, t);
  }

  private ready(pace: TenantPace, t: number): boolean {
    return t >= pace.pausedUntil && t >= this.instance.pausedUntil && pace.balance >= 0;
  }

  private reserve(
    tenant: string,
    pace: TenantPace,
    kind: string,
    units: number,
    waitedMs: number,
    t: number,
  ): Admission {
    const reserved = this.estimateOf(kind) * units;
    pace.balance -= reserved;
    pace.inFlight++;
    pace.lastActive = t;
    pace.stats.admitted++;
    if (waitedMs > 0) {
      pace.stats.waited++;
      pace.stats.waitedMs += waitedMs;
    }
    return { tenant, kind, units, reserved, waitedMs };
  }

  private estimateOf(kind: string): number {
    return this.estimates.get(kind) ?? PACING.firstEstimate;
  }

  /** Milliseconds until the tenant's next operation may go (at least 1). */
  private waitMs(pace: TenantPace, t: number): number {
    const rate = this.rate(pace, t);
    const debt = pace.balance < 0 ? (-pace.balance / rate) * 1000 : 0;
    return Math.max(1, Math.ceil(Math.max(pace.pausedUntil - t, this.instance.pausedUntil - t, debt)));
  }

  private schedule(tenant: string, pace: TenantPace, t: number): void {
    const at = t + this.waitMs(pace, t);
    if (pace.timerAt !== undefined && pace.timerAt <= at && pace.timerAt > t) return;
    pace.timerAt = at;
    this.clock.setTimer(() => {
      if (pace.timerAt === at) pace.timerAt = undefined;
      this.pump(tenant);
    }, at - t);
  }

  /** Admits the tenant's waiters its budget allows now, in order; sets a timer for the rest. */
  private pump(tenant: string): void {
    const pace = this.tenants.get(tenant);
    if (!pace || pace.waiters.length === 0) return;
    const t = this.clock.now();
    this.refill(pace, t);
    while (pace.waiters.length > 0 && this.ready(pace, t)) {
      const next = pace.waiters.shift()!;
      next.resolve(this.reserve(tenant, pace, next.kind, next.units, t - next.since, t));
    }
    if (pace.waiters.length > 0) this.schedule(tenant, pace, t);
  }

  private backOff(pace: TenantPace, t: number, retryAfterMs: number): void {
    if (t - pace.decreasedAt >= PACING.decreaseEveryMs) {
      pace.share = Math.max(PACING.minimumShare, pace.share / 2);
      pace.decreasedAt = t;
    }
    if (t - this.instance.decreasedAt >= PACING.decreaseEveryMs) {
      this.instance.share = Math.max(PACING.minimumShare, this.instance.share / 2);
      this.instance.decreasedAt = t;
    }
    const until = t + Math.max(0, retryAfterMs);
    pace.pausedUntil = Math.max(pace.pausedUntil, until);
    this.instance.pausedUntil = Math.max(this.instance.pausedUntil, until);
    // The balance a lower rate allows.
    pace.balance = Math.min(pace.balance, this.burst(this.rate(pace, t)));
  }

  private forgetIdle(t: number): void {
    if (t - this.forgottenAt < PACING.forgetAfterMs) return;
    this.forgottenAt = t;
    for (const [tenant, pace] of this.tenants)
      if (pace.waiters.length === 0 && pace.inFlight === 0 && t - pace.lastActive >= PACING.forgetAfterMs)
        this.tenants.delete(tenant);
  }
}
