import { generateKeyPairSync } from 'node:crypto';
import { createSigningKeys, KeysUnavailableError, type SigningKeysOptions } from '../../../lib/auth/signingKeys';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const JWK = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' };
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

function keys(over: Partial<SigningKeysOptions> = {}) {
  const clock = { t: T0 };
  const state = { failing: false, body: { keys: [JWK] } as unknown, fetches: 0 };
  const signingKeys = createSigningKeys({
    jwksUri: 'https://login.example/common/discovery/v2.0/keys',
    fetchJwks: async () => {
      state.fetches++;
      await new Promise((r) => setImmediate(r));
      if (state.failing) throw new Error('unavailable');
      return state.body;
    },
    maxAgeMs: 24 * 3600_000,
    refreshIntervalMs: 60_000,
    failureBackoffMs: 30_000,
    failureReportIntervalMs: 10_000,
    now: () => clock.t,
    ...over,
  });
  return { signingKeys, clock, state };
}

const failureOf = async (p: Promise<unknown>): Promise<KeysUnavailableError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof KeysUnavailableError) return err;
    throw err;
  }
  throw new Error('expected KeysUnavailableError');
};

describe('signing keys: fetches are bounded', () => {
  it('three look-ups while the endpoint fails cause one fetch', async () => {
    const { signingKeys, clock, state } = keys();
    state.failing = true;
    for (let i = 0; i < 3; i++) {
      await failureOf(signingKeys.getKey('k1'));
      clock.t += 1_000;
    }
    expect(state.fetches).toBe(1);
  });

  it.each([
    [0, 30_000],
    [0.999, 35_994],
  ])('the back-off after a failure is 30 s plus up to a fifth more (random %p: %p ms)', async (r, backoffMs) => {
    const { signingKeys, clock, state } = keys({ random: () => r });
    state.failing = true;
    await failureOf(signingKeys.getKey('k1'));
    state.failing = false;
    clock.t = T0 + backoffMs - 1;
    await failureOf(signingKeys.getKey('k1'));
    expect(state.fetches).toBe(1);
    clock.t = T0 + backoffMs;
    await expect(signingKeys.getKey('k1')).resolves.toBeDefined();
    expect(state.fetches).toBe(2);
  });

  it('callers of different new ids at the same time share one fetch', async () => {
    const { signingKeys, state } = keys();
    const found = await Promise.all(['k1', 'x1', 'x2', 'x3'].map((kid) => signingKeys.getKey(kid)));
    expect(found.map((k) => k !== undefined)).toEqual([true, false, false, false]);
    expect(state.fetches).toBe(1);
  });

  it('a body that is not a key set is a failed fetch: the keys held stay in use', async () => {
    const { signingKeys, clock, state } = keys({ maxAgeMs: 1000 });
    const key = await signingKeys.getKey('k1');
    state.body = { keys: 'nope' };
    clock.t += 2000;
    expect(await signingKeys.getKey('k1')).toBe(key);
    expect(await signingKeys.getKey('k1')).toBe(key);
    expect(state.fetches).toBe(2);
  });

  it('a key object is made once per fetched set, not per look-up', async () => {
    const { signingKeys } = keys();
    const first = await signingKeys.getKey('k1');
    expect(await signingKeys.getKey('k1')).toBe(first);
  });
});
