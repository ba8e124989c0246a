import { withThrottleRetry } from '../../../lib/util/concurrency';
import { StoreError } from '../../../lib/store/errors';

/** A store call throttled `times` times (each naming a wait of `retryAfterMs`), then answered; its tries' times from now. */
function throttled(times: number, retryAfterMs: number) {
  const from = Date.now();
  const tries: number[] = [];
  const fn = async () => {
    tries.push(Date.now() - from);
    if (tries.length <= times) throw new StoreError('throttled', 'throttled', retryAfterMs);
    return 'done';
  };
  return { fn, tries };
}

describe('withThrottleRetry', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  const settle = async <T>(p: Promise<T>) => {
    const outcome = p.then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    await jest.runAllTimersAsync();
    return outcome;
  };

  it('tries a given number of times, each after the wait the store names', async () => {
    const call = throttled(2, 500);
    expect(await settle(withThrottleRetry(call.fn, 3))).toEqual({ ok: true, v: 'done' });
    expect(call.tries).toEqual([0, 500, 1000]);
    const short = throttled(5, 500);
    const failed = await settle(withThrottleRetry(short.fn, 3));
    expect(failed.ok).toBe(false);
    expect(short.tries).toHaveLength(3);
  });

  it('with a time budget, tries while a new try can start within it, however many tries that is', async () => {
    const call = throttled(50, 100);
    expect(await settle(withThrottleRetry(call.fn, { withinMs: 10_000 }))).toEqual({ ok: true, v: 'done' });
    expect(call.tries).toHaveLength(51);
    const endless = throttled(Infinity, 1000);
    const failed = await settle(withThrottleRetry(endless.fn, { withinMs: 5_000 }));
    expect(failed.ok).toBe(false);
    expect(endless.tries).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });

  it('passes any other failure on at once', async () => {
    let tries = 0;
    const failed = await settle(
      withThrottleRetry(
        async () => {
          tries++;
          throw new StoreError('unavailable', 'down');
        },
        { withinMs: 60_000 },
      ),
    );
    expect(failed.ok).toBe(false);
    expect(tries).toBe(1);
  });
});
