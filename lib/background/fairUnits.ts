/**
 * The units of background work of one instance (BACKGROUND_UNITS_PER_INSTANCE), shared fairly among the
 * tenants whose work waits. The Functions host hands the queue function up to batchSize + newBatchThreshold
 * messages at once (24), far more than an instance's memory holds steps of large imports, and in no order of
 * tenants; so a message waits here for a unit, and when one frees it goes to the tenant running the fewest
 * units, the one served longest ago among equals (deficit round robin over the waiting tenants, every unit
 * costing the same). One unit is kept for a tenant that runs none: a tenant with four jobs does not take all
 * units while another tenant's job waits behind its steps, however long they take (each tenant's writes are
 * paced by its own request-unit budget, so a step may take a minute).
 *
 * A tenant has at most `maxWaiting` messages waiting here; one more is put back on the queue by the caller
 * (it comes back later), so a tenant with many messages cannot hold all of the host's invocations either.
 * A message that waited `maxWaitMs` without a unit is put back too: its invocation must end well inside the
 * function's time limit (10 minutes), which counts the wait.
 * The decision is `nextTenant`, pure; `FairUnits` only keeps the counts and wakes the waiting.
 */

/** A tenant with work waiting: units it runs now, and when it was last given one (a counter, lower is longer ago). */
export interface WaitingTenant {
  tenantId: string;
  running: number;
  lastServed: number;
}

/**
 * Which waiting tenant gets the next unit, or undefined when none may: a unit must be free, and a tenant that
 * runs a unit already takes one only while more than the reserved one is free. Fewest running first, then the
 * one served longest ago.
 */
export function nextTenant(
  waiting: readonly WaitingTenant[],
  units: { total: number; running: number },
): string | undefined {
  const free = units.total - units.running;
  if (free <= 0) return undefined;
  const reserve = units.total > 1 ? 1 : 0;
  let best: WaitingTenant | undefined;
  for (const t of waiting) {
    if (t.running > 0 && free <= reserve) continue;
    if (!best || t.running < best.running || (t.running === best.running && t.lastServed < best.lastServed)) best = t;
  }
  return best?.tenantId;
}

interface TenantState {
  running: number;
  lastServed: number;
  /** Wakes a waiting message with its unit. */
  waiting: Array<() => void>;
}

/** The timer a wait is bounded with (a test passes its own). */
export interface WaitTimer {
  start(ms: number, expired: () => void): () => void;
}

const REAL_TIMER: WaitTimer = {
  start: (ms, expired) => {
    const timer = setTimeout(expired, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** How long a message waits for a unit at most, by default: several steps of a large import, well inside 10 minutes. */
export const MAX_WAIT_MS = 3 * 60_000;

export type UnitRun<T> = { ran: true; value: T } | { ran: false };

export class FairUnits {
  private readonly tenants = new Map<string, TenantState>();
  private running = 0;
  private served = 0;

  constructor(
    /** BACKGROUND_UNITS_PER_INSTANCE */
    readonly units: number,
    /** Messages of one tenant that may wait here at once. */
    readonly maxWaiting: number = units,
    /** A message waits for a unit at most this long. */
    readonly maxWaitMs: number = MAX_WAIT_MS,
    private readonly timer: WaitTimer = REAL_TIMER,
  ) {}

  /** Units running now, and messages waiting for one (for logs and tests). */
  get counts(): { running: number; waiting: number } {
    let waiting = 0;
    for (const t of this.tenants.values()) waiting += t.waiting.length;
    return { running: this.running, waiting };
  }

  /**
   * Runs `work` in a unit once the tenant's turn comes; `{ ran: false }` without running it when the tenant
   * has `maxWaiting` messages waiting already, or after `maxWaitMs` without a unit (the caller puts the
   * message back on the queue).
   */
  async run<T>(tenantId: string, work: () => Promise<T>): Promise<UnitRun<T>> {
    const tenant = this.tenant(tenantId);
    if (tenant.waiting.length >= this.maxWaiting) return { ran: false };
    const gotUnit = await new Promise<boolean>((resolve) => {
      const wake = () => {
        stop();
        resolve(true);
      };
      const stop = this.timer.start(this.maxWaitMs, () => {
        const at = tenant.waiting.indexOf(wake);
        if (at < 0) return;
        tenant.waiting.splice(at, 1);
        if (tenant.running === 0 && tenant.waiting.length === 0) this.tenants.delete(tenantId);
        resolve(false);
      });
      tenant.waiting.push(wake);
      this.dispatch();
    });
    if (!gotUnit) return { ran: false };
    try {
      return { ran: true, value: await work() };
    } finally {
      tenant.running--;
      this.running--;
      if (tenant.running === 0 && tenant.waiting.length === 0) this.tenants.delete(tenantId);
      this.dispatch();
    }
  }

  private tenant(tenantId: string): TenantState {
    let t = this.tenants.get(tenantId);
    if (!t) this.tenants.set(tenantId, (t = { running: 0, lastServed: -1, waiting: [] }));
    return t;
  }

  /** Hands free units to waiting tenants, in their turn. */
  private dispatch(): void {
    for (;;) {
      const waiting: WaitingTenant[] = [];
      for (const [tenantId, t] of this.tenants)
        if (t.waiting.length > 0) waiting.push({ tenantId, running: t.running, lastServed: t.lastServed });
      const next = nextTenant(waiting, { total: this.units, running: this.running });
      const t = next === undefined ? undefined : this.tenants.get(next);
      const wake = t?.waiting.shift();
      if (!t || !wake) return;
      t.running++;
      t.lastServed = this.served++;
      this.running++;
      wake();
    }
  }
}
