import { Throughput } from '../../../../devhost/cosmos/throughput';

describe('local engine, provisioned mode: priority-based execution', () => {
  it('without high-priority demand, low priority may use the whole budget', () => {
    let now = 0;
    const t = new Throughput(100, { mode: 'provisioned', now: () => now });
    for (let i = 0; i < 10; i++) {
      expect(t.admit('db/c', 'low')).toBeUndefined();
      t.charge('db/c', 10, 'low');
    }
    expect(t.admit('db/c', 'low')).toBe(1000);
    now = 1000;
    expect(t.admit('db/c', 'low')).toBeUndefined();
  });

  it('when the budget runs short, low priority is throttled first: what high priority used last second stays free for it', () => {
    let now = 0;
    const t = new Throughput(100, { mode: 'provisioned', now: () => now });
    // Second 1: high-priority requests use 40 RU.
    for (let i = 0; i < 4; i++) t.charge('db/c', 10, 'high');
    now = 1000;
    // Second 2: low priority gets the 60 RU nobody is expected to need...
    let low = 0;
    while (t.admit('db/c', 'low') === undefined) {
      t.charge('db/c', 10, 'low');
      low += 10;
    }
    expect(low).toBe(60);
    // ...and high priority is still served from the 40 kept for it.
    for (let i = 0; i < 4; i++) {
      expect(t.admit('db/c', 'high')).toBeUndefined();
      t.charge('db/c', 10, 'high');
    }
    expect(t.admit('db/c', 'high')).toBeDefined();
    // A refused low-priority request is told to come back in the next window.
    now = 1500;
    expect(t.admit('db/c', 'low')).toBe(500);
    const usage = t.usage();
    expect(usage.lowRequests).toBe(6);
    expect(usage.lowThrottled).toBe(2);
  });

  it('a container whose budget high priority alone exhausts throttles high priority too', () => {
    const t = new Throughput(100, { mode: 'provisioned', now: () => 0 });
    t.charge('db/c', 100, 'high');
    expect(t.admit('db/c', 'high')).toBe(1000);
    expect(t.admit('db/c', 'low')).toBe(1000);
  });
});

describe('local engine, provisioned mode: a large low-priority request', () => {
  it('does not make high priority wait for the debt it left; low priority pays it off', () => {
    let now = 0;
    const t = new Throughput(400, { mode: 'provisioned', now: () => now });
    t.charge('db/c', 40, 'high');
    now = 1000;
    // A transactional batch at low priority, admitted, charged far beyond the budget.
    expect(t.admit('db/c', 'low')).toBeUndefined();
    t.charge('db/c', 1000, 'low');
    expect(t.admit('db/c', 'high')).toBeUndefined();
    t.charge('db/c', 40, 'high');
    now = 2000;
    expect(t.admit('db/c', 'high')).toBeUndefined();
    expect(t.admit('db/c', 'low')).toBeDefined();
    now = 4000;
    expect(t.admit('db/c', 'low')).toBeUndefined();
  });
});
