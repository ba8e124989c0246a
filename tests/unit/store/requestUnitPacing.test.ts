import { PACING, RequestUnitPacer, type Admission, type PacerClock } from '../../../lib/store/requestUnitPacing';

/** A clock that moves only when the test moves it, firing the timers that fall due on the way. */
class FakeClock implements PacerClock {
  t = 0;
  private timers: Array<{ at: number; fn: () => void }> = [];
  now = (): number => this.t;
  setTimer = (fn: () => void, ms: number): void => void this.timers.push({ at: this.t + ms, fn });

  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settleMicrotasks();
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await settleMicrotasks();
  }
}

const settleMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `workers` loops of one tenant's bulk work, each sending an operation that costs `charge` as soon as it is
 * admitted (the store answers at once); returns what they were charged so far.
 */
function busy(
  pacer: RequestUnitPacer,
  tenant: string,
  charge: number,
  options: { workers?: number; kind?: string; units?: number; stop?: () => boolean } = {},
): { charged: () => number; operations: () => number } {
  let charged = 0;
  let operations = 0;
  const stop = options.stop ?? (() => false);
  for (let w = 0; w < (options.workers ?? 1); w++) {
    void (async () => {
      while (!stop()) {
        const a = await pacer.admit(tenant, options.kind ?? 'identities:create', options.units ?? 1);
        charged += charge;
        operations++;
        pacer.settle(a, { requestCharge: charge });
      }
    })();
  }
  return { charged: () => charged, operations: () => operations };
}

describe('request-unit pacing of bulk work', () => {
  it('a tenant spends at most its rate: a burst of half a second at once, then what the rate repays', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer(
      { tenantRequestUnitsPerSecond: 1000, instanceRequestUnitsPerSecond: 10_000 },
      clock,
    );
    let stop = false;
    const b = busy(pacer, 'B', 50, { workers: 4, stop: () => stop });
    await clock.advance(0);
    // At once: the burst (500 RU) and the operations admitted on it.
    expect(b.charged()).toBeLessThanOrEqual(1000 * PACING.burstSeconds + 4 * 50);
    await clock.advance(10_000);
    stop = true;
    // Ten seconds at 1,000 RU/s, plus the burst and at most one operation in hand per worker.
    expect(b.charged()).toBeGreaterThanOrEqual(9_500);
    expect(b.charged()).toBeLessThanOrEqual(10_000 + 500 + 4 * 50);
    expect(pacer.stats().B?.waited).toBeGreaterThan(0);
  });

  it('charges what the store reported: an operation that cost more than its estimate delays the next by its cost', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer({ tenantRequestUnitsPerSecond: 100, instanceRequestUnitsPerSecond: 100 }, clock);
    const batch = await pacer.admit('B', 'identities:batch', 100);
    // Estimated 10 RU per item; the store says 1,050 (the burst was 50).
    pacer.settle(batch, { requestCharge: 1050 });
    let next: Admission | undefined;
    void pacer.admit('B', 'identities:create').then((a) => (next = a));
    await clock.advance(9_900);
    expect(next).toBeUndefined();
    await clock.advance(200);
    expect(next?.waitedMs).toBeGreaterThanOrEqual(9_900);
  });

  it('operations sent at once reserve their estimate, so they do not all pass on one balance', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer({ tenantRequestUnitsPerSecond: 200, instanceRequestUnitsPerSecond: 200 }, clock);
    // Teach the pacer what a write costs.
    const first = await pacer.admit('B', 'identities:create');
    pacer.settle(first, { requestCharge: 50 });
    await clock.advance(2_000);
    const admitted: Admission[] = [];
    for (let i = 0; i < 32; i++) void pacer.admit('B', 'identities:create').then((a) => admitted.push(a));
    await clock.advance(0);
    // A burst of 100 RU at an estimate of about 18 RU: a handful, not 32.
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThan(10);
  });

  it('one tenant in debt does not delay another tenant', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer(
      { tenantRequestUnitsPerSecond: 100, instanceRequestUnitsPerSecond: 1_000 },
      clock,
    );
    const big = await pacer.admit('B', 'identities:batch', 100);
    pacer.settle(big, { requestCharge: 5_000 });
    const a = await pacer.admit('A', 'identities:create');
    expect(a.waitedMs).toBe(0);
  });

  it('tenants with bulk work at once share the instance budget equally', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer(
      { tenantRequestUnitsPerSecond: 1_000, instanceRequestUnitsPerSecond: 1_000 },
      clock,
    );
    let stop = false;
    const b = busy(pacer, 'B', 20, { workers: 8, stop: () => stop });
    const c = busy(pacer, 'C', 20, { workers: 1, stop: () => stop });
    await clock.advance(20_000);
    stop = true;
    const total = b.charged() + c.charged();
    // Together at most the instance's 1,000 RU/s (plus the bursts), each about half of it.
    expect(total).toBeLessThanOrEqual(20_000 + 2 * 500 + 9 * 20);
    expect(b.charged() / total).toBeGreaterThan(0.4);
    expect(c.charged() / total).toBeGreaterThan(0.4);
    expect(pacer.rateOf('B')).toBe(500);
  });

  it('on a 429: halves the tenant and instance rates, sends nothing before the retry-after, recovers gradually', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer(
      { tenantRequestUnitsPerSecond: 1_000, instanceRequestUnitsPerSecond: 2_000 },
      clock,
    );
    const a = await pacer.admit('B', 'identities:create');
    pacer.settle(a, { requestCharge: 0, throttledRetryAfterMs: 800 });
    expect(pacer.rateOf('B')).toBe(500);
    // Another tenant's bulk work is held too (the container is busy), at half the instance's rate.
    let other: Admission | undefined;
    void pacer.admit('C', 'identities:create').then((x) => (other = x));
    let next: Admission | undefined;
    void pacer.admit('B', 'identities:create').then((x) => (next = x));
    await clock.advance(790);
    expect(next).toBeUndefined();
    expect(other).toBeUndefined();
    await clock.advance(20);
    expect(next?.waitedMs).toBeGreaterThanOrEqual(790);
    expect(other).toBeDefined();
    // A twentieth of the configured rate back per second: full again after ten seconds.
    await clock.advance(4_190);
    expect(pacer.rateOf('B')).toBeCloseTo(750, 0);
    await clock.advance(6_000);
    expect(pacer.rateOf('B')).toBe(1_000);
  });

  it('operations throttled together halve the rate once; repeated throttling stops at a sixteenth', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer(
      { tenantRequestUnitsPerSecond: 1_600, instanceRequestUnitsPerSecond: 1_600 },
      clock,
    );
    const together = await Promise.all(Array.from({ length: 20 }, () => pacer.admit('B', 'identities:create')));
    for (const a of together) pacer.settle(a, { requestCharge: 0, throttledRetryAfterMs: 0 });
    expect(pacer.rateOf('B')).toBe(800);
    for (let i = 0; i < 10; i++) {
      await clock.advance(1_000);
      const a = await pacer.admit('B', 'identities:create');
      pacer.settle(a, { requestCharge: 0, throttledRetryAfterMs: 0 });
    }
    expect(pacer.rateOf('B')).toBeCloseTo(1_600 * PACING.minimumShare, 0);
  });

  it("admits one tenant's operations in the order they asked", async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer({ tenantRequestUnitsPerSecond: 10, instanceRequestUnitsPerSecond: 10 }, clock);
    const order: number[] = [];
    for (let i = 0; i < 5; i++)
      void pacer.admit('B', 'k').then((a) => {
        order.push(i);
        pacer.settle(a, { requestCharge: 10 });
      });
    await clock.advance(10_000);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('an operation the store did not report a charge for keeps its estimate charged', async () => {
    const clock = new FakeClock();
    const pacer = new RequestUnitPacer({ tenantRequestUnitsPerSecond: 10, instanceRequestUnitsPerSecond: 10 }, clock);
    const a = await pacer.admit('B', 'k', 3);
    pacer.settle(a, {});
    expect(pacer.stats().B?.charged).toBe(3 * PACING.firstEstimate);
  });
});
