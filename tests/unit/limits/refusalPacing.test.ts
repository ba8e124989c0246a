import { RefusalPacer } from '../../../lib/limits/refusalPacing';

/** Whether the promise has settled after the timers due so far ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await jest.advanceTimersByTimeAsync(0);
  return done;
}

describe('RefusalPacer', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('answers refusals at once within the allowance, after the pause beyond it', async () => {
    const pacer = new RefusalPacer({ freePerSecond: 2, freeBurst: 3, pauseMs: 1000, maxHeld: 10 });
    for (let i = 0; i < 3; i++) expect(await settled(pacer.pace('a'))).toBe(true);
    const paused = pacer.pace('a');
    expect(await settled(paused)).toBe(false);
    await jest.advanceTimersByTimeAsync(999);
    expect(await settled(paused)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(paused)).toBe(true);
    // The allowance comes back with time (2 a second).
    expect(await settled(pacer.pace('a'))).toBe(true);
  });

  it('keeps each key to its own allowance', async () => {
    const pacer = new RefusalPacer({ freePerSecond: 1, freeBurst: 1, pauseMs: 1000, maxHeld: 10 });
    expect(await settled(pacer.pace('a'))).toBe(true);
    expect(await settled(pacer.pace('a'))).toBe(false);
    expect(await settled(pacer.pace('b'))).toBe(true);
  });

  it('spreads the pauses over pauseMs ± jitter, so that answers held together are not sent together', async () => {
    const draws = [0, 0.5, 0.999];
    const pacer = new RefusalPacer(
      { freePerSecond: 0.001, freeBurst: 1, pauseMs: 1000, jitter: 0.5, maxHeld: 10 },
      undefined,
      () => draws.shift() ?? 0,
    );
    await pacer.pace('a');
    const held = [pacer.pace('a'), pacer.pace('a'), pacer.pace('a')];
    await jest.advanceTimersByTimeAsync(499);
    expect(await Promise.all(held.map(settled))).toEqual([false, false, false]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await Promise.all(held.map(settled))).toEqual([true, false, false]);
    await jest.advanceTimersByTimeAsync(500);
    expect(await Promise.all(held.map(settled))).toEqual([true, true, false]);
    await jest.advanceTimersByTimeAsync(499);
    expect(await Promise.all(held.map(settled))).toEqual([true, true, true]);
  });

  it('pauses the refusals of a flood by a second on average, half to one and a half', async () => {
    const pacer = new RefusalPacer({ freePerSecond: 0.001, freeBurst: 1, pauseMs: 1000, jitter: 0.5, maxHeld: 1000 });
    await pacer.pace('a');
    const ended: number[] = [];
    const started = Date.now();
    const held = Array.from({ length: 400 }, () => pacer.pace('a').then(() => ended.push(Date.now() - started)));
    await jest.advanceTimersByTimeAsync(1500);
    await Promise.all(held);
    expect(Math.min(...ended)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...ended)).toBeLessThanOrEqual(1500);
    const mean = ended.reduce((a, b) => a + b, 0) / ended.length;
    expect(mean).toBeGreaterThan(900);
    expect(mean).toBeLessThan(1100);
    // Not one wave: the answers end over most of the second they may take.
    expect(Math.max(...ended) - Math.min(...ended)).toBeGreaterThan(800);
  });

  it('holds at most maxHeld refusals; the others go at once, and a place frees when a pause ends', async () => {
    const pacer = new RefusalPacer({ freePerSecond: 0.5, freeBurst: 1, pauseMs: 1000, maxHeld: 2 });
    await pacer.pace('a');
    const held = [pacer.pace('a'), pacer.pace('a')];
    expect(await settled(held[0]!)).toBe(false);
    expect(await settled(held[1]!)).toBe(false);
    expect(await settled(pacer.pace('a'))).toBe(true);
    await jest.advanceTimersByTimeAsync(1000);
    expect(await settled(Promise.all(held))).toBe(true);
    expect(await settled(pacer.pace('a'))).toBe(false);
  });
});
