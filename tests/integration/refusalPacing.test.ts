import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';
import { AUTHENTICATION_PACING } from '../../lib/limits/refusalPacing';

describe('refusals paced under a flood', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('answers invalid tokens beyond the allowance after the pause, alike, while valid callers are served at once', async () => {
    // A token signed by the identity provider's key but altered: its signature no longer matches.
    const valid = await stack.token(DEV_CLIENTS.scim);
    const forged = `${valid.slice(0, -8)}AAAAAAAA`;
    const flood = AUTHENTICATION_PACING.freeBurst + 60;
    const timed = async (token: string, path = '/scim/v2/Users') => {
      const started = performance.now();
      const res = await call(`${stack.base}${path}`, { token });
      return { status: res.status, text: res.text, ms: performance.now() - started };
    };
    // Once before the flood, so what a first request costs (keys fetched, code compiled) is not counted as a pause.
    expect((await timed(valid, '/scim/v2/Users?count=1')).status).toBe(200);
    const refusals = Promise.all(Array.from({ length: flood }, () => timed(forged)));
    // While refusals wait out their pause, a valid caller is answered without one.
    await new Promise((r) => setTimeout(r, 100));
    const served = await timed(valid, '/scim/v2/Users?count=1');
    const answers = await refusals;

    expect(served.status).toBe(200);
    expect(served.ms).toBeLessThan(AUTHENTICATION_PACING.pauseMs);
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1);
    expect(answers[0]!.status).toBe(401);
    // The burst is answered at once; the rest (the allowance refills 20 a second) after the pause, which is
    // spread over pauseMs ± jitter.
    const shortestPause = AUTHENTICATION_PACING.pauseMs * (1 - (AUTHENTICATION_PACING.jitter ?? 0));
    const paused = answers.filter((a) => a.ms >= shortestPause);
    expect(paused.length).toBeGreaterThanOrEqual(flood - AUTHENTICATION_PACING.freeBurst - 20);
    expect(paused.length).toBeLessThan(flood);
  });
});
