import { Throughput } from '../../../../devhost/cosmos/throughput';

describe('local engine, serverless mode (the default): request priority is ignored', () => {
  it('is the default mode', () => {
    expect(new Throughput(100).mode).toBe('serverless');
  });

  it('keeps nothing free for high priority: low priority takes the whole budget and high priority is throttled after it', () => {
    let now = 0;
    const t = new Throughput(100, { now: () => now });
    // Second 1: high-priority requests use 40 RU (in provisioned mode that much would be kept for them).
    for (let i = 0; i < 4; i++) t.charge('db/c', 10, 'high');
    now = 1000;
    let low = 0;
    while (t.admit('db/c', 'low') === undefined) {
      t.charge('db/c', 10, 'low');
      low += 10;
    }
    expect(low).toBe(100);
    expect(t.admit('db/c', 'high')).toBe(1000);
    // The priority is still counted, so a test can tell whose requests were throttled.
    const usage = t.usage();
    expect(usage.lowRequests).toBe(10);
    expect(usage.lowThrottled).toBe(1);
    expect(usage.throttled).toBe(2);
  });

  it('makes high priority wait out the debt a large low-priority request left', () => {
    let now = 0;
    const t = new Throughput(400, { now: () => now });
    t.charge('db/c', 40, 'high');
    now = 1000;
    expect(t.admit('db/c', 'low')).toBeUndefined();
    t.charge('db/c', 1000, 'low');
    // Provisioned mode serves this high-priority request (see throughput.priority.test.ts); serverless does not.
    expect(t.admit('db/c', 'high')).toBe(2000);
  });

  it('changes mode while it runs', () => {
    let now = 0;
    const t = new Throughput(100, { mode: 'provisioned', now: () => now });
    for (let i = 0; i < 4; i++) t.charge('db/c', 10, 'high');
    now = 1000;
    const lowUntilRefused = () => {
      let low = 0;
      while (t.admit('db/c', 'low') === undefined) {
        t.charge('db/c', 10, 'low');
        low += 10;
      }
      return low;
    };
    // Provisioned: the 40 RU high priority used last second stay free for it.
    expect(lowUntilRefused()).toBe(60);
    t.mode = 'serverless';
    expect(lowUntilRefused()).toBe(40);
  });
});
