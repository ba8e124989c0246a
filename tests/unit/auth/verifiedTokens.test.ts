import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createTokenValidator, TokenValidationError, type TokenValidator } from '../../../lib/auth/tokenValidator';
import { rememberVerifiedTokens } from '../../../lib/auth/verifiedTokens';

const AUTHORITY = 'http://127.0.0.1:7072';
const AUDIENCE = 'api://business-identity-service';
const TENANT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const SEC = Math.floor(T0 / 1000);
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });

const token = (over: Record<string, unknown> = {}, key = pair.privateKey) =>
  jwt.sign(
    {
      iss: `${AUTHORITY}/${TENANT}/v2.0`,
      aud: AUDIENCE,
      tid: TENANT,
      azp: `aaaaaaaa-0000-4000-8000-00000000000${String(over.n ?? 1)}`,
      iat: SEC,
      nbf: SEC,
      exp: SEC + 3600,
      idtyp: 'app',
      roles: ['Reader'],
      ...over,
    },
    key,
    { algorithm: 'RS256', keyid: 'k1' },
  );

function setup(maxEntries?: number) {
  const clock = { t: T0 };
  const registered = new Set([TENANT]);
  const isRegisteredTenant = async (tenantId: string) => registered.has(tenantId);
  const real = createTokenValidator({
    authority: AUTHORITY,
    audiences: [AUDIENCE],
    now: () => clock.t,
    isRegisteredTenant,
    fetchJwks: async () => ({ keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' }] }),
  });
  const verified = { count: 0 };
  const counting: TokenValidator = {
    validate: (h) => {
      verified.count++;
      return real.validate(h);
    },
  };
  const validator = rememberVerifiedTokens(counting, { isRegisteredTenant, maxEntries, now: () => clock.t });
  return { validator, clock, registered, verified };
}

async function failureOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TokenValidationError) return err.failure;
    throw err;
  }
  return 'accepted';
}

describe('remembered verified tokens', () => {
  it('verifies a token once and answers the same caller until it expires, then verifies again', async () => {
    const { validator, clock, verified } = setup();
    const t = token();
    const first = await validator.validate(`Bearer ${t}`);
    const second = await validator.validate(`Bearer ${t}`);
    expect(second).toEqual(first);
    expect(verified.count).toBe(1);
    clock.t = T0 + 3600_000; // exp: no longer remembered; the full check (with its clock skew) decides
    await validator.validate(`Bearer ${t}`);
    expect(verified.count).toBe(2);
    clock.t = T0 + 3600_000 + 301_000;
    expect(await failureOf(validator.validate(`Bearer ${t}`))).toBe('expired');
  });

  it('still refuses a remembered token once its tenant is no longer registered', async () => {
    const { validator, registered, verified } = setup();
    const t = token();
    await validator.validate(`Bearer ${t}`);
    registered.delete(TENANT);
    expect(await failureOf(validator.validate(`Bearer ${t}`))).toBe('unregistered_tenant');
    expect(verified.count).toBe(1);
  });

  it('remembers no refused token, and a changed signature is a different token', async () => {
    const { validator, verified } = setup();
    const good = token();
    await validator.validate(`Bearer ${good}`);
    const [head, body] = good.split('.');
    const forged = `${head}.${body}.${token({}, attacker.privateKey).split('.')[2]}`;
    expect(await failureOf(validator.validate(`Bearer ${forged}`))).toBe('invalid_signature');
    expect(await failureOf(validator.validate(`Bearer ${forged}`))).toBe('invalid_signature');
    expect(verified.count).toBe(3);
    expect(await failureOf(validator.validate('Bearer'))).toBe('malformed');
  });

  it('keeps at most maxEntries tokens, dropping the oldest', async () => {
    const { validator, verified } = setup(2);
    const [a, b, c] = [token({ n: 1 }), token({ n: 2 }), token({ n: 3 })];
    for (const t of [a, b, c]) await validator.validate(`Bearer ${t}`);
    expect(verified.count).toBe(3);
    await validator.validate(`Bearer ${c}`);
    await validator.validate(`Bearer ${b}`);
    expect(verified.count).toBe(3);
    await validator.validate(`Bearer ${a}`);
    expect(verified.count).toBe(4);
  });

  it('drops the least recently used token: one used again survives the eviction', async () => {
    const { validator, verified } = setup(2);
    const [a, b, c] = [token({ n: 1 }), token({ n: 2 }), token({ n: 3 })];
    await validator.validate(`Bearer ${a}`);
    await validator.validate(`Bearer ${b}`);
    await validator.validate(`Bearer ${a}`); // a is now the most recently used
    expect(verified.count).toBe(2);
    await validator.validate(`Bearer ${c}`); // evicts b, not a
    expect(verified.count).toBe(3);
    await validator.validate(`Bearer ${a}`);
    expect(verified.count).toBe(3);
    await validator.validate(`Bearer ${b}`);
    expect(verified.count).toBe(4);
  });
});

describe('remembered verified tokens: insert and eviction cost', () => {
  /** An unsigned token with an exp: the cache decodes only its payload (the inner validator is a stand-in here). */
  const unsigned = (i: number, exp: number) =>
    `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ i, exp })).toString('base64url')}.sig`;

  it('inserting into a full cache evicts one entry without walking the others', async () => {
    const clock = { t: T0 };
    let verified = 0;
    const inner: TokenValidator = {
      validate: async () => {
        verified++;
        return { tenantId: TENANT, clientId: 'c', roles: [], kind: 'app', scopes: [] };
      },
    };
    const max = 5_000;
    const validator = rememberVerifiedTokens(inner, { maxEntries: max, now: () => clock.t });
    // Every entry but the last expires soon: a cache that sweeps expired entries on insert would walk them all.
    for (let i = 0; i < max; i++)
      await validator.validate(`Bearer ${unsigned(i, i === max - 1 ? SEC + 3600 : SEC + 60)}`);
    clock.t += 120_000;
    const walks = [
      jest.spyOn(Map.prototype, 'forEach'),
      jest.spyOn(Map.prototype, 'entries'),
      jest.spyOn(Map.prototype, 'values'),
      jest.spyOn(Map.prototype, Symbol.iterator),
    ];
    const keys = jest.spyOn(Map.prototype, 'keys');
    try {
      await validator.validate(`Bearer ${unsigned(max, SEC + 3600)}`);
      for (const walk of walks) expect(walk).not.toHaveBeenCalled();
      expect(keys).toHaveBeenCalledTimes(1);
    } finally {
      for (const spy of [...walks, keys]) spy.mockRestore();
    }
    expect(verified).toBe(max + 1);
    // Only the least recently used entry went: the newest long-lived one is still remembered.
    await validator.validate(`Bearer ${unsigned(max - 1, SEC + 3600)}`);
    expect(verified).toBe(max + 1);
  });
});
