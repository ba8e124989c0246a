/**
 * An integration's SCIM budget holds for the fleet, not per instance: two instances of the service (two
 * processes over one store) flooded through both together accept the budget, not twice it; once one stops, its
 * lease lapses and the other has the whole budget again.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { startSecondInstance, type SecondInstance } from '../support/secondInstance';
import { DEV_CLIENTS } from '../../devhost/devData';

const WINDOW_MS = 6_000;
const SENDERS = 16;

describe('a SCIM budget on two instances', () => {
  let stack: TestStack;
  let second: SecondInstance | undefined;

  /** Requests of the dev integration sent for the window through `base`: how many were not refused with 429. */
  const flood = async (base: string, token: string, until: number): Promise<number> => {
    let accepted = 0;
    const sender = async () => {
      while (Date.now() < until) {
        // An id that cannot exist: answered 404 after admission, without a store request.
        const res = await call(`${base}/scim/v2/Users/no%23such`, { token });
        if (res.status !== 429) {
          expect(res.status).toBe(404);
          accepted++;
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    return accepted;
  };
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        SCIM_RATE_LIMIT_PER_SECOND: '20',
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: '20',
        LOG_LEVEL: 'warn',
      },
    });
    second = await startSecondInstance(stack);
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await stack?.stop();
  });

  it('accepts through both together at most the budget, not twice it; a stopped one leaves the whole budget to the other', async () => {
    const token = await stack.token(DEV_CLIENTS.scim);
    const alone = await flood(stack.base, token, Date.now() + WINDOW_MS);
    // Budgets and refusal allowances refill; the leases lapse.
    await pause(5_000);
    // Both instances take their leases (and the fleet's burst) first; then the window is counted.
    const warm = Date.now() + 1_000;
    await Promise.all([flood(stack.base, token, warm), flood(second!.base, token, warm)]);
    const until = Date.now() + WINDOW_MS;
    const [first, other] = await Promise.all([flood(stack.base, token, until), flood(second!.base, token, until)]);
    // A budget of 20/s with bursts of 40: about 40 + 20 per second of the window alone; together, the burst
    // already spent, about 20 per second (each instance alone would take that much: twice it together).
    expect(alone).toBeGreaterThanOrEqual(80);
    expect(first + other).toBeLessThanOrEqual(1.25 * 20 * (WINDOW_MS / 1000 + 1));
    // Each instance served a part of it.
    expect(first).toBeGreaterThan(0.2 * alone);
    expect(other).toBeGreaterThan(0.2 * alone);

    // The second stops (its lease is not given back: it lapses); the first has the whole budget again.
    await second!.stop();
    second = undefined;
    await pause(5_000);
    const after = await flood(stack.base, token, Date.now() + WINDOW_MS);
    expect(after).toBeGreaterThanOrEqual(0.8 * alone);
  }, 90_000);
});
