/**
 * The instance's units of background work shared among tenants: the pure choice of the next tenant, and the
 * order in which waiting messages get a unit (no clock: work is a promise the test settles).
 */
import { FairUnits, nextTenant } from '../../../lib/background/fairUnits';

/** Work the test ends when it likes, and which tells when it started. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('nextTenant', () => {
  it('gives a free unit to the tenant running the fewest, then to the one served longest ago', () => {
    const waiting = [
      { tenantId: 'A', running: 2, lastServed: 1 },
      { tenantId: 'B', running: 0, lastServed: 5 },
      { tenantId: 'C', running: 0, lastServed: 3 },
    ];
    expect(nextTenant(waiting, { total: 4, running: 2 })).toBe('C');
    expect(nextTenant(waiting.slice(0, 2), { total: 4, running: 2 })).toBe('B');
  });

  it('keeps the last free unit for a tenant that runs none', () => {
    expect(nextTenant([{ tenantId: 'A', running: 3, lastServed: 0 }], { total: 4, running: 3 })).toBeUndefined();
    expect(nextTenant([{ tenantId: 'A', running: 2, lastServed: 0 }], { total: 4, running: 2 })).toBe('A');
    expect(nextTenant([{ tenantId: 'B', running: 0, lastServed: 0 }], { total: 4, running: 3 })).toBe('B');
    // One unit in all: nothing to keep.
    expect(nextTenant([{ tenantId: 'A', running: 0, lastServed: 0 }], { total: 1, running: 0 })).toBe('A');
    expect(nextTenant([{ tenantId: 'A', running: 0, lastServed: 0 }], { total: 1, running: 1 })).toBeUndefined();
  });
});

describe('FairUnits', () => {
  it("starts another tenant's message at once while one tenant's four long ones hold what it may", async () => {
    const units = new FairUnits(4, 8);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const submit = (tenant: string, name: string) => {
      const g = gate();
      gates.set(name, g);
      return units.run(tenant, async () => {
        started.push(name);
        await g.done;
        return name;
      });
    };
    const a = ['A1', 'A2', 'A3', 'A4'].map((n) => submit('A', n));
    await turn();
    expect(started).toEqual(['A1', 'A2', 'A3']);
    const b = submit('B', 'B1');
    await turn();
    expect(started).toEqual(['A1', 'A2', 'A3', 'B1']);
    gates.get('B1')?.open();
    await expect(b).resolves.toEqual({ ran: true, value: 'B1' });
    await turn();
    // The freed unit stays kept for a tenant that runs none; A's fourth message gets the unit of one of its own.
    expect(started).toEqual(['A1', 'A2', 'A3', 'B1']);
    gates.get('A1')?.open();
    await a[0];
    await turn();
    expect(started).toEqual(['A1', 'A2', 'A3', 'B1', 'A4']);
    for (const g of gates.values()) g.open();
    await Promise.all(a);
    expect(units.counts).toEqual({ running: 0, waiting: 0 });
  });

  it('serves waiting tenants in turn when a unit frees: each tenant once before any twice', async () => {
    const units = new FairUnits(2, 8);
    const started: string[] = [];
    const gates: Array<() => void> = [];
    const submit = (tenant: string, name: string) =>
      units.run(tenant, async () => {
        started.push(name);
        await new Promise<void>((resolve) => gates.push(resolve));
      });
    const all = [submit('A', 'A1'), submit('A', 'A2'), submit('A', 'A3'), submit('B', 'B1'), submit('C', 'C1')];
    await turn();
    expect(started).toEqual(['A1', 'B1']);
    gates.shift()?.();
    await turn();
    expect(started).toEqual(['A1', 'B1', 'C1']);
    gates.shift()?.();
    await turn();
    expect(started).toEqual(['A1', 'B1', 'C1', 'A2']);
    while (gates.length > 0) {
      gates.shift()?.();
      await turn();
    }
    await Promise.all(all);
    expect(started).toEqual(['A1', 'B1', 'C1', 'A2', 'A3']);
  });

  it("refuses a tenant's message past its waiting bound without running it; a unit's failure frees the unit", async () => {
    const units = new FairUnits(1, 1);
    let release!: () => void;
    const first = units.run('A', () => new Promise<void>((resolve) => (release = resolve)));
    await turn();
    const second = units.run('A', () => Promise.resolve('second'));
    await expect(units.run('A', () => Promise.resolve('third'))).resolves.toEqual({ ran: false });
    release();
    await first;
    await expect(second).resolves.toEqual({ ran: true, value: 'second' });
    await expect(units.run('A', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    await expect(units.run('B', () => Promise.resolve(1))).resolves.toEqual({ ran: true, value: 1 });
    expect(units.counts).toEqual({ running: 0, waiting: 0 });
  });

  it('gives up on a message that waited its longest for a unit, without running it; the others keep their turn', async () => {
    const expiries: Array<() => void> = [];
    const timer = {
      start: (_ms: number, expired: () => void) => {
        expiries.push(expired);
        return () => undefined;
      },
    };
    const units = new FairUnits(1, 4, 1_000, timer);
    let release!: () => void;
    const first = units.run('A', () => new Promise<void>((resolve) => (release = resolve)));
    const late = units.run('B', () => Promise.resolve('late'));
    const next = units.run('C', () => Promise.resolve('next'));
    await turn();
    expect(units.counts).toEqual({ running: 1, waiting: 2 });
    expiries[1]?.();
    await expect(late).resolves.toEqual({ ran: false });
    expect(units.counts).toEqual({ running: 1, waiting: 1 });
    release();
    await first;
    await expect(next).resolves.toEqual({ ran: true, value: 'next' });
    // A wait that ended with its unit is not given up afterwards.
    expiries[2]?.();
    expect(units.counts).toEqual({ running: 0, waiting: 0 });
  });
});
