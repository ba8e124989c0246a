/**
 * Budgets of the fleet: three instances (each its own limiters and its own leases) over one in-memory store and
 * one fake clock, each offered far more than the budget. Together they are admitted the budget once, not three
 * times; a stopped instance's share goes to the others within the lease time; a failing store leaves each its
 * last share (never the whole budget); an idle key costs no store request.
 */
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { FleetShares, LEASES_ID, leaseHolderId, type LeaseClock, type LeaseDoc } from '../../../lib/store/fleetLeases';
import { RequestUnitPacer, type PacerClock } from '../../../lib/store/requestUnitPacing';
import { ScimAdmission } from '../../../lib/limits/scimAdmission';
import { FLEET_BUDGET } from '../../../lib/limits/fleetShares';

const RENEW_MS = 1_000;
const LEASE_MS = 3_000;

/** A clock that moves only when the test moves it, firing the timers that fall due on the way. */
class FakeClock implements LeaseClock, PacerClock {
  t = 1_767_225_600_000;
  private timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  now = (): number => this.t;
  setTimer = (fn: () => void, ms: number): { cancel(): void } => {
    const timer = { at: this.t + ms, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  };

  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const next = this.timers.filter((x) => !x.cancelled && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await settle();
  }
}

/** Lets the memory store answer (each request on a later turn) and what follows a lease's read and write run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function fleetOf(mem: MemoryStore, clock: FakeClock, n: number): FleetShares[] {
  return Array.from(
    { length: n },
    (_, i) =>
      new FleetShares(() => mem.store.collection<LeaseDoc>('leases'), {
        renewMs: RENEW_MS,
        leaseMs: LEASE_MS,
        instanceId: `instance-${i}`,
        clock,
      }),
  );
}

/** Each instance offered `perStep` requests every 10 ms for `seconds`: how many each admitted. */
async function offer(clock: FakeClock, admit: Array<() => boolean>, seconds: number, perStep = 4): Promise<number[]> {
  const accepted = admit.map(() => 0);
  for (let step = 0; step < seconds * 100; step++) {
    admit.forEach((tryOne, i) => {
      for (let r = 0; r < perStep; r++) if (tryOne()) accepted[i]!++;
    });
    await clock.advance(10);
  }
  return accepted;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** One integration's SCIM admission on each instance (its budget `perSecond`; the tenant's far above it). */
function integrationAdmissionsOf(fleet: FleetShares[], clock: FakeClock, perSecond: number): Array<() => boolean> {
  const limits = {
    integrationPerSecond: perSecond,
    tenantPerSecond: 10_000,
    integrationInFlight: 1000,
    tenantInFlight: 1000,
  };
  return fleet.map((f) => {
    const admission = new ScimAdmission(limits, clock.now, f);
    return () => {
      const admitted = admission.admit('tenant-a', 'integration-1');
      if (!('release' in admitted)) return false;
      admitted.release();
      return true;
    };
  });
}

describe('budgets of the fleet, by leased shares', () => {
  let mem: MemoryStore;
  let clock: FakeClock;
  let fleet: FleetShares[];
  beforeEach(() => {
    mem = createMemoryStore();
    clock = new FakeClock();
    fleet = fleetOf(mem, clock, 3);
  });
  afterEach(() => fleet.forEach((f) => f.stop()));

  it("holds an integration's SCIM budget for three instances together (at most 1.25 times, not 3 times)", async () => {
    const seconds = 30;
    const accepted = await offer(clock, integrationAdmissionsOf(fleet, clock, 50), seconds);
    expect(sum(accepted)).toBeLessThanOrEqual(1.25 * 50 * seconds);
    expect(sum(accepted)).toBeGreaterThanOrEqual(0.8 * 50 * seconds);
    // Each instance serves about a third.
    for (const n of accepted) expect(n).toBeGreaterThan(0.2 * 50 * seconds);
  });

  it("holds a tenant's SCIM budget for three instances, each serving other integrations of it", async () => {
    const limits = {
      integrationPerSecond: 10_000,
      tenantPerSecond: 100,
      integrationInFlight: 1000,
      tenantInFlight: 1000,
    };
    const admissions = fleet.map((f) => new ScimAdmission(limits, clock.now, f));
    const seconds = 30;
    const accepted = await offer(
      clock,
      admissions.map((a, i) => () => {
        const admitted = a.admit('tenant-a', `integration-${i}`);
        if (!('release' in admitted)) return false;
        admitted.release();
        return true;
      }),
      seconds,
    );
    expect(sum(accepted)).toBeLessThanOrEqual(1.25 * 100 * seconds);
    expect(sum(accepted)).toBeGreaterThanOrEqual(0.8 * 100 * seconds);
  });

  it("holds a tenant's bulk request units for three instances together", async () => {
    const pacers = fleet.map(
      (f) =>
        new RequestUnitPacer({ tenantRequestUnitsPerSecond: 1_000, instanceRequestUnitsPerSecond: 2_500 }, clock, f),
    );
    let charged = 0;
    let running = true;
    for (const pacer of pacers)
      for (let w = 0; w < 5; w++)
        void (async () => {
          while (running) {
            const admission = await pacer.admit('tenant-a', 'identities:create');
            charged += 10;
            pacer.settle(admission, { requestCharge: 10 });
          }
        })();
    const seconds = 30;
    for (let s = 0; s < seconds * 10; s++) await clock.advance(100);
    running = false;
    expect(charged).toBeLessThanOrEqual(1.25 * 1_000 * seconds);
    expect(charged).toBeGreaterThanOrEqual(0.8 * 1_000 * seconds);
  });

  it("gives a stopped instance's share to the others within the lease time and one renewal", async () => {
    const use = (f: FleetShares) => f.fraction(FLEET_BUDGET.scimTenant, 'tenant-a');
    for (let i = 0; i < 30; i++) {
      fleet.forEach(use);
      await clock.advance(100);
    }
    expect(fleet.map(use)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    // As if killed: the third renews no more.
    fleet[2]!.stop();
    const survivors = fleet.slice(0, 2);
    let takenOverAfter = Infinity;
    for (let ms = 100; ms <= 10_000; ms += 100) {
      survivors.forEach(use);
      await clock.advance(100);
      if (survivors.every((f) => use(f) === 1 / 2)) {
        takenOverAfter = ms;
        break;
      }
    }
    expect(takenOverAfter).toBeLessThanOrEqual(LEASE_MS + RENEW_MS);
    // And not before the stopped instance's lease could have ended (it may still be admitting).
    expect(takenOverAfter).toBeGreaterThanOrEqual(LEASE_MS - RENEW_MS);
  });

  it('keeps the last share when the store fails or throttles lease writes, never the whole budget', async () => {
    const use = (f: FleetShares) => f.fraction(FLEET_BUDGET.scimTenant, 'tenant-a');
    for (let i = 0; i < 30; i++) {
      fleet.forEach(use);
      await clock.advance(100);
    }
    expect(use(fleet[0]!)).toBe(1 / 3);
    const down = mem.faults.add({ ops: ['read', 'write'], container: 'leases', status: 503, count: Infinity });
    for (let i = 0; i < 100; i++) {
      use(fleet[0]!);
      await clock.advance(100);
      expect(use(fleet[0]!)).toBeLessThanOrEqual(1 / 3);
    }
    expect(down.hits).toBeGreaterThan(0);
    down.remove();

    // An instance alone (its share the whole budget) whose lease writes are throttled falls back to half.
    const alone = fleetOf(createMemoryStore(), clock, 1)[0]!;
    const useAlone = () => alone.fraction(FLEET_BUDGET.scimTenant, 'tenant-b');
    for (let i = 0; i < 20; i++) {
      useAlone();
      await clock.advance(100);
    }
    expect(useAlone()).toBe(1);
    const throttledStore = createMemoryStore();
    const throttled = new FleetShares(() => throttledStore.store.collection<LeaseDoc>('leases'), {
      renewMs: RENEW_MS,
      leaseMs: LEASE_MS,
      instanceId: 'alone',
      clock,
    });
    // Its first lease is written, then every lease write is throttled.
    const useThrottled = () => throttled.fraction(FLEET_BUDGET.scimTenant, 'tenant-c');
    useThrottled();
    await clock.advance(100);
    expect(useThrottled()).toBe(1);
    const fault = throttledStore.faults.add({ ops: ['write'], container: 'leases', status: 429, count: Infinity });
    for (let i = 0; i < 30; i++) {
      useThrottled();
      await clock.advance(100);
    }
    expect(fault.hits).toBeGreaterThan(0);
    expect(useThrottled()).toBe(1 / 2);
    alone.stop();
    throttled.stop();
  });

  it('makes no store request for an idle key, and a bounded number per second for an active one', async () => {
    const [one] = fleet;
    await clock.advance(10_000);
    expect(mem.requests({ container: 'leases' })).toBe(0);
    // Active for 10 s: one write a renewal (10), and at the start a read, the first write and one early renewal.
    for (let i = 0; i < 100; i++) {
      one!.fraction(FLEET_BUDGET.scimTenant, 'tenant-a');
      await clock.advance(100);
    }
    const active = mem.requests({ container: 'leases' });
    expect(active).toBeGreaterThanOrEqual(9);
    expect(active).toBeLessThanOrEqual(13);
    // Idle from now on: at most the renewal already under way.
    await clock.advance(1_500);
    const afterIdle = mem.requests({ container: 'leases' });
    await clock.advance(30_000);
    expect(mem.requests({ container: 'leases' })).toBe(afterIdle);
    expect(one!.heldKeys()).toBe(0);
  });

  it("keeps a tenant's leases in one document, an integration's under its tenant, and names each process apart", async () => {
    const [one] = fleet;
    one!.fraction(FLEET_BUDGET.scimTenant, 'tenant-a');
    one!.fraction(FLEET_BUDGET.scimIntegration, 'tenant-a|integration-1');
    await clock.advance(100);
    const doc = mem.document<LeaseDoc>('leases', 'tenant-a', LEASES_ID);
    expect(Object.keys(doc!.leases).sort()).toEqual(['scim-integration|integration-1', 'scim-tenant']);
    expect(Object.keys(doc!.leases['scim-tenant']!)).toEqual(['instance-0']);
    expect(mem.documents('leases')).toHaveLength(1);
    const a = leaseHolderId({ WEBSITE_INSTANCE_ID: 'abcdef0123456789abcdef' });
    const b = leaseHolderId({ WEBSITE_INSTANCE_ID: 'abcdef0123456789abcdef' });
    expect(a.startsWith('abcdef0123456789-')).toBe(true);
    expect(a).not.toBe(b);
  });
});
