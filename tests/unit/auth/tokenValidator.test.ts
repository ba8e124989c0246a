import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import {
  createTokenValidator,
  MAX_CALLER_NAME,
  parseBearer,
  TokenValidationError,
  type TokenFailure,
  type TokenValidatorOptions,
} from '../../../lib/auth/tokenValidator';

const ENTRA = 'https://login.microsoftonline.com';
const LOCAL = 'http://127.0.0.1:7072';
const APP_ID_URI = 'api://business-identity-service';
const SERVICE_CLIENT_ID = '0b9e5d4c-3a21-4f10-9e8d-7c6b5a493827';
const TENANT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const OTHER_TENANT = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const CLIENT = 'AAAAAAAA-0000-4000-8000-000000000001';
const OID = 'c0ffee00-1111-4222-8333-444455556666';
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const SEC = Math.floor(T0 / 1000);

interface Pair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}
const rsa = (): Pair => generateKeyPairSync('rsa', { modulusLength: 2048 });
const k1 = rsa();
const k2 = rsa();
const attacker = rsa();

const jwkOf = (pair: Pair, kid: string) => ({
  ...pair.publicKey.export({ format: 'jwk' }),
  kid,
  use: 'sig',
  kty: 'RSA',
});
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Default claims of an app token; an override of undefined removes the claim. */
function claims(over: Record<string, unknown> = {}, tenant = TENANT, authority = ENTRA): Record<string, unknown> {
  const all: Record<string, unknown> = {
    iss: `${authority}/${tenant}/v2.0`,
    aud: APP_ID_URI,
    tid: tenant,
    azp: CLIENT,
    oid: OID,
    iat: SEC,
    nbf: SEC,
    exp: SEC + 3600,
    idtyp: 'app',
    ver: '2.0',
    roles: ['Admin', 'Reader'],
    ...over,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
}

const sign = (payload: Record<string, unknown>, pair: Pair = k1, kid = 'k1') =>
  jwt.sign(payload, pair.privateKey, { algorithm: 'RS256', keyid: kid });

/** A token with the given header, signed (or not) by hand, for algorithms the validator must refuse. */
function handMade(header: Record<string, unknown>, payload: Record<string, unknown>, secret?: string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  if (secret === undefined) return `${input}.`;
  const digest = `sha${String(header.alg).slice(2)}`;
  return `${input}.${createHmac(digest, secret).update(input).digest('base64url')}`;
}

interface Harness {
  validate: (header: string | undefined | null) => ReturnType<ReturnType<typeof createTokenValidator>['validate']>;
  fetches: string[];
  jwks: Map<string, unknown[]>;
  clock: { t: number };
  fail: { next: boolean };
}

function harness(over: Partial<TokenValidatorOptions> = {}): Harness {
  const fetches: string[] = [];
  // Entra publishes one key set for every tenant.
  const jwks = new Map<string, unknown[]>([['common', [jwkOf(k1, 'k1')]]]);
  const clock = { t: T0 };
  const fail = { next: false };
  const authority = over.authority ?? ENTRA;
  const validator = createTokenValidator({
    authority,
    audiences: [APP_ID_URI, SERVICE_CLIENT_ID],
    now: () => clock.t,
    fetchJwks: async (uri) => {
      fetches.push(uri);
      // A tick, so that concurrent callers really overlap with the fetch.
      await new Promise((r) => setImmediate(r));
      if (fail.next) throw new Error('JWKS endpoint unavailable');
      const tenant = uri.slice(authority.length + 1).split('/')[0] ?? '';
      return { keys: jwks.get(tenant) ?? [] };
    },
    ...over,
  });
  return { validate: (h) => validator.validate(h), fetches, jwks, clock, fail };
}

async function rejection(p: Promise<unknown>): Promise<TokenValidationError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TokenValidationError) return err;
    throw err;
  }
  throw new Error('expected a TokenValidationError');
}

async function expectFailure(p: Promise<unknown>, failure: TokenFailure): Promise<void> {
  expect((await rejection(p)).failure).toBe(failure);
}

const bearer = (token: string) => `Bearer ${token}`;
const COMMON_KEYS = `${ENTRA}/common/discovery/v2.0/keys`;

describe('parseBearer', () => {
  it.each([undefined, null, '', '   '])('missing for %p', (h) => {
    expect(() => parseBearer(h)).toThrow(expect.objectContaining({ failure: 'missing' }));
  });

  it.each(['Basic xyz', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearertoken', 'Token abc', 'Bearer a,b'])(
    'malformed for %p',
    (h) => {
      expect(() => parseBearer(h)).toThrow(expect.objectContaining({ failure: 'malformed' }));
    },
  );

  it('accepts the scheme in any case and returns the token alone', () => {
    expect(parseBearer('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(parseBearer('bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(parseBearer('BEARER abc.def.ghi')).toBe('abc.def.ghi');
  });
});

describe('createTokenValidator', () => {
  describe('valid tokens', () => {
    it("returns the caller of an app token and fetches Entra's common key set once", async () => {
      const h = harness();
      const caller = await h.validate(bearer(sign(claims())));
      expect(caller).toEqual({
        tenantId: TENANT,
        clientId: CLIENT.toLowerCase(),
        roles: ['Admin', 'Reader'],
        kind: 'app',
        objectId: OID,
        scopes: [],
      });
      await h.validate(bearer(sign(claims())));
      expect(h.fetches).toEqual([COMMON_KEYS]);
    });

    it('accepts the service client id as audience, and an audience array containing an accepted one', async () => {
      const h = harness();
      await expect(h.validate(bearer(sign(claims({ aud: SERVICE_CLIENT_ID }))))).resolves.toMatchObject({
        kind: 'app',
      });
      await expect(
        h.validate(bearer(sign(claims({ aud: ['https://graph.microsoft.com', APP_ID_URI] })))),
      ).resolves.toMatchObject({ kind: 'app' });
    });

    it('defaults roles to [] and drops non-string roles; no oid means no objectId', async () => {
      const h = harness();
      const { roles: _r, oid: _o, ...rest } = claims();
      expect(await h.validate(bearer(sign(rest)))).toEqual({
        tenantId: TENANT,
        clientId: CLIENT.toLowerCase(),
        roles: [],
        kind: 'app',
        scopes: [],
      });
      expect((await h.validate(bearer(sign(claims({ roles: ['Admin', 7, null] }))))).roles).toEqual(['Admin']);
    });

    it('reports a user token (scp) as kind user', async () => {
      const h = harness();
      const caller = await h.validate(bearer(sign(claims({ scp: 'user_impersonation', idtyp: undefined }))));
      expect(caller).toMatchObject({ kind: 'user', objectId: OID, clientId: CLIENT.toLowerCase() });
    });

    it("keeps a user token's display name (name), without control characters and bounded; an app token's none", async () => {
      const h = harness();
      const user = (name: unknown) => bearer(sign(claims({ scp: 'Console.Admin', idtyp: undefined, name })));
      expect((await h.validate(user('Ada\u0007 Lovelace'))).name).toBe('Ada  Lovelace');
      expect((await h.validate(user('x'.repeat(300)))).name).toHaveLength(MAX_CALLER_NAME);
      expect((await h.validate(user(7))).name).toBeUndefined();
      expect((await h.validate(bearer(sign(claims({ name: 'App' }))))).name).toBeUndefined();
    });

    it('reports the delegated scopes of a user token', async () => {
      const h = harness();
      const caller = await h.validate(bearer(sign(claims({ scp: 'Console.Admin  other', idtyp: undefined }))));
      expect(caller.scopes).toEqual(['Console.Admin', 'other']);
    });

    it('reports idtyp user without scp as kind user', async () => {
      const h = harness();
      expect((await h.validate(bearer(sign(claims({ idtyp: 'user' }))))).kind).toBe('user');
    });

    it('accepts a v1 token (sts.windows.net issuer, appid) against the real authority', async () => {
      const h = harness();
      const v1 = claims({ iss: `https://sts.windows.net/${TENANT}/`, azp: undefined, appid: CLIENT, ver: '1.0' });
      expect(await h.validate(bearer(sign(v1)))).toMatchObject({
        tenantId: TENANT,
        clientId: CLIENT.toLowerCase(),
        kind: 'app',
      });
      expect(h.fetches).toEqual([COMMON_KEYS]);
    });

    it('works against the local stand-in authority', async () => {
      const h = harness({ authority: LOCAL });
      await h.validate(bearer(sign(claims({}, TENANT, LOCAL))));
      expect(h.fetches).toEqual([`${LOCAL}/common/discovery/v2.0/keys`]);
    });

    it('compares the tenant id case-insensitively and reports it in lower case', async () => {
      const h = harness();
      const upper = TENANT.toUpperCase();
      const caller = await h.validate(bearer(sign(claims({ tid: upper, iss: `${ENTRA}/${upper}/v2.0` }))));
      expect(caller.tenantId).toBe(TENANT);
      expect(h.fetches).toEqual([COMMON_KEYS]);
    });
  });

  describe('header and format', () => {
    it.each([undefined, null, ''])('missing for %p', async (header) => {
      await expectFailure(harness().validate(header), 'missing');
    });

    it.each([
      'Basic xyz',
      'Bearer garbage',
      'Bearer not.a.token',
      'Bearer a.b.c.d',
      'Bearer ..',
      `Bearer ${b64([1])}.${b64({})}.x`,
      `Bearer ${b64({ alg: 'RS256' })}.${b64('x')}.x`,
    ])('malformed for %p', async (header) => {
      const h = harness();
      await expectFailure(h.validate(header), 'malformed');
      expect(h.fetches).toEqual([]);
    });

    it('unsupported_algorithm for an unsigned alg none token, without fetching keys', async () => {
      const h = harness();
      await expectFailure(h.validate(bearer(handMade({ alg: 'none', typ: 'JWT' }, claims()))), 'unsupported_algorithm');
      await expectFailure(h.validate(bearer(handMade({ typ: 'JWT' }, claims()))), 'unsupported_algorithm');
      expect(h.fetches).toEqual([]);
    });

    it('unsupported_algorithm for HS256 signed with the PEM public key as the secret', async () => {
      const h = harness();
      const pem = k1.publicKey.export({ format: 'pem', type: 'spki' }).toString();
      await expectFailure(
        h.validate(bearer(handMade({ alg: 'HS256', typ: 'JWT', kid: 'k1' }, claims(), pem))),
        'unsupported_algorithm',
      );
      expect(h.fetches).toEqual([]);
    });

    it.each(['HS384', 'HS512', 'ES256', 'ES384', 'PS256', 'PS512', 'RS384', 'RS512', 'rs256'])(
      'unsupported_algorithm for %s',
      async (alg) => {
        const token = `${b64({ alg, kid: 'k1' })}.${b64(claims())}.${Buffer.from('sig').toString('base64url')}`;
        await expectFailure(harness().validate(bearer(token)), 'unsupported_algorithm');
      },
    );

    it('malformed for an RS256 token without kid', async () => {
      const token = jwt.sign(claims(), k1.privateKey, { algorithm: 'RS256' });
      await expectFailure(harness().validate(bearer(token)), 'malformed');
    });
  });

  describe('signature and claims', () => {
    it('invalid_signature for a token signed by another key under the same kid', async () => {
      await expectFailure(harness().validate(bearer(sign(claims(), attacker, 'k1'))), 'invalid_signature');
    });

    it('invalid_signature for a payload changed after signing', async () => {
      const [head, , sig] = sign(claims()).split('.');
      const tampered = `${head}.${b64(claims({ roles: ['Admin', 'Owner'] }))}.${sig}`;
      await expectFailure(harness().validate(bearer(tampered)), 'invalid_signature');
    });

    it('expired beyond the skew; accepted within it', async () => {
      const h = harness();
      await expectFailure(h.validate(bearer(sign(claims({ exp: SEC - 301 })))), 'expired');
      await expect(h.validate(bearer(sign(claims({ exp: SEC - 299 }))))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('honours a custom clock skew', async () => {
      const h = harness({ clockSkewSeconds: 0 });
      await expectFailure(h.validate(bearer(sign(claims({ exp: SEC - 1 })))), 'expired');
    });

    it('not_yet_valid when nbf is in the future beyond the skew; accepted within it', async () => {
      const h = harness();
      await expectFailure(h.validate(bearer(sign(claims({ nbf: SEC + 301 })))), 'not_yet_valid');
      await expect(h.validate(bearer(sign(claims({ nbf: SEC + 299 }))))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('malformed for a token without exp', async () => {
      await expectFailure(harness().validate(bearer(sign(claims({ exp: undefined })))), 'malformed');
    });

    it('malformed for a token that names no client application', async () => {
      await expectFailure(harness().validate(bearer(sign(claims({ azp: undefined })))), 'malformed');
    });

    it.each([
      ['https://graph.microsoft.com'],
      [['https://graph.microsoft.com']],
      [undefined],
      ['API://BUSINESS-IDENTITY-SERVICE'],
    ])('wrong_audience for aud %p', async (aud) => {
      await expectFailure(harness().validate(bearer(sign(claims({ aud })))), 'wrong_audience');
    });
  });

  describe('issuer', () => {
    it.each([
      ['another tenant than tid', `${ENTRA}/${OTHER_TENANT}/v2.0`],
      ['another authority', `https://evil.example/${TENANT}/v2.0`],
      ['a v1 issuer of another tenant', `https://sts.windows.net/${OTHER_TENANT}/`],
      ['no version suffix', `${ENTRA}/${TENANT}`],
      ['a longer path', `${ENTRA}/${TENANT}/v2.0/extra`],
      ['a tenant prefix', `${ENTRA}/x${TENANT}/v2.0`],
      ['missing', undefined],
    ])('wrong_issuer for %s, without fetching keys', async (_what, iss) => {
      const h = harness();
      await expectFailure(h.validate(bearer(sign(claims({ iss })))), 'wrong_issuer');
      expect(h.fetches).toEqual([]);
    });

    it.each([
      ['common'],
      ['organizations'],
      ['3f2504e0-4f89-41d3-9a0c'],
      ['3f2504e0x4f89-41d3-9a0c-0305e82c3301'],
      [undefined],
      [42],
    ])('wrong_issuer for tid %p', async (tid) => {
      const h = harness();
      await expectFailure(
        h.validate(bearer(sign(claims({ tid, iss: `${ENTRA}/${String(tid)}/v2.0` })))),
        'wrong_issuer',
      );
      expect(h.fetches).toEqual([]);
    });

    it('refuses the v1 issuer when the authority is not the real Entra endpoint', async () => {
      const h = harness({ authority: LOCAL });
      await expectFailure(
        h.validate(bearer(sign(claims({ iss: `https://sts.windows.net/${TENANT}/` }, TENANT, LOCAL)))),
        'wrong_issuer',
      );
    });
  });

  describe('cheap checks first', () => {
    it('refuses an expired token, one for another API, one without exp and one not yet valid before any key work', async () => {
      const h = harness();
      const verify = jest.spyOn(jwt, 'verify');
      try {
        const cases: Array<[string, TokenFailure]> = [
          [sign(claims({ exp: SEC - 3600 }), k2, 'unknown-kid'), 'expired'],
          [sign(claims({ aud: 'api://another-api' }), attacker, 'k1'), 'wrong_audience'],
          [sign(claims({ exp: undefined }), attacker, 'made-up'), 'malformed'],
          [sign(claims({ nbf: SEC + 3600 }), attacker, 'k1'), 'not_yet_valid'],
        ];
        for (const [token, failure] of cases) await expectFailure(h.validate(bearer(token)), failure);
        expect(h.fetches).toEqual([]);
        expect(verify).not.toHaveBeenCalled();
      } finally {
        verify.mockRestore();
      }
    });

    it('refuses a key id the fresh set does not hold before any signature work', async () => {
      const h = harness();
      await h.validate(bearer(sign(claims())));
      const verify = jest.spyOn(jwt, 'verify');
      try {
        await expectFailure(h.validate(bearer(sign(claims(), attacker, 'made-up'))), 'unknown_key');
        expect(verify).not.toHaveBeenCalled();
        expect(h.fetches).toHaveLength(1);
      } finally {
        verify.mockRestore();
      }
    });
  });

  describe('signing keys', () => {
    it('one key set serves every tenant: tokens of two tenants cost one fetch', async () => {
      const h = harness();
      await h.validate(bearer(sign(claims())));
      await h.validate(bearer(sign(claims({}, OTHER_TENANT))));
      expect(h.fetches).toEqual([COMMON_KEYS]);
    });

    it('an unknown kid fetches the set again at most once per refresh interval; in between unknown_key without a fetch', async () => {
      const h = harness({ jwksRefreshIntervalMs: 60_000 });
      await h.validate(bearer(sign(claims())));
      // The set was fetched a moment ago: a made-up id waits for the next interval.
      await expectFailure(h.validate(bearer(sign(claims(), k2, 'nope-1'))), 'unknown_key');
      expect(h.fetches).toHaveLength(1);
      h.clock.t += 60_000;
      await expectFailure(h.validate(bearer(sign(claims(), k2, 'nope-2'))), 'unknown_key');
      expect(h.fetches).toHaveLength(2);
      for (let i = 3; i < 50; i++)
        await expectFailure(h.validate(bearer(sign(claims(), k2, `nope-${i}`))), 'unknown_key');
      expect(h.fetches).toHaveLength(2);
      // A known key is still served from the cache.
      await expect(h.validate(bearer(sign(claims())))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('a flood of unknown kids is refused at once: no validation waits for a refresh, one fetch per interval', async () => {
      const h = harness();
      const settledWithin = async (ms: number, n: number) => {
        const all = Promise.allSettled(
          Array.from({ length: n }, (_, i) => h.validate(bearer(sign(claims(), k2, `flood-${h.clock.t}-${i}`)))),
        );
        const late = new Promise<'late'>((r) => setTimeout(() => r('late'), ms).unref());
        return Promise.race([all, late]);
      };
      const first = await settledWithin(2000, 200);
      expect(first).not.toBe('late');
      expect((first as PromiseSettledResult<unknown>[]).every((r) => r.status === 'rejected')).toBe(true);
      expect(h.fetches).toHaveLength(1);
      h.clock.t += 61_000;
      const next = await settledWithin(2000, 200);
      expect(next).not.toBe('late');
      expect(h.fetches).toHaveLength(2);
      // A known key is served all the while.
      await expect(h.validate(bearer(sign(claims(), k1, 'k1')))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('picks up a rotated key that appears after the first fetch, once the refresh interval has passed', async () => {
      const h = harness({ jwksRefreshIntervalMs: 60_000 });
      await h.validate(bearer(sign(claims())));
      h.jwks.set('common', [jwkOf(k1, 'k1'), jwkOf(k2, 'k2')]);
      h.clock.t += 60_000;
      await expect(h.validate(bearer(sign(claims(), k2, 'k2')))).resolves.toMatchObject({ tenantId: TENANT });
      await h.validate(bearer(sign(claims(), k2, 'k2')));
      expect(h.fetches).toHaveLength(2);
    });

    it('drops a key Entra no longer publishes when the set is fetched again', async () => {
      const h = harness({ jwksCacheMaxAgeMs: 3600_000 });
      await h.validate(bearer(sign(claims())));
      h.jwks.set('common', [jwkOf(k2, 'k2')]);
      h.clock.t += 3600_000;
      await expectFailure(h.validate(bearer(sign(claims()))), 'unknown_key');
      await expect(h.validate(bearer(sign(claims(), k2, 'k2')))).resolves.toMatchObject({ tenantId: TENANT });
      expect(h.fetches).toHaveLength(2);
    });

    it('20 concurrent validations on a cold cache share one fetch', async () => {
      const h = harness();
      const callers = await Promise.all(Array.from({ length: 20 }, () => h.validate(bearer(sign(claims())))));
      expect(callers.every((c) => c.tenantId === TENANT)).toBe(true);
      expect(h.fetches).toHaveLength(1);
    });

    it('keeps serving a cached key while the endpoint fails', async () => {
      const h = harness();
      await h.validate(bearer(sign(claims())));
      h.fail.next = true;
      await expect(h.validate(bearer(sign(claims())))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('keeps serving a cached key past its max age while the endpoint fails, without a fetch per token', async () => {
      const h = harness({ jwksCacheMaxAgeMs: 3600_000 });
      await h.validate(bearer(sign(claims())));
      h.fail.next = true;
      h.clock.t += 3600_000;
      for (let i = 0; i < 3; i++)
        await expect(h.validate(bearer(sign(claims({ n: i }))))).resolves.toMatchObject({ tenantId: TENANT });
      expect(h.fetches).toHaveLength(2);
    });

    it('a failed fetch is remembered about 30 s: tokens in that window are keys_unavailable at once, without another fetch', async () => {
      const h = harness({ jwksFailureRetryMs: 10_000 });
      h.fail.next = true;
      const token = bearer(sign(claims()));
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => rejection(h.validate(token))));
      expect(concurrent.map((e) => e.failure)).toEqual(Array(5).fill('keys_unavailable'));
      expect(concurrent.filter((e) => e.keys?.fetchFailed)).toHaveLength(1);
      expect(h.fetches).toHaveLength(1);
      // Three more tokens in the window: refused at once, no fetch, nothing new to report.
      for (let i = 0; i < 3; i++) {
        h.clock.t += 9_000;
        const err = await rejection(h.validate(bearer(sign(claims({ n: i })))));
        expect([err.failure, err.keys]).toEqual(['keys_unavailable', { fetchFailed: false }]);
      }
      expect(h.fetches).toHaveLength(1);
      // The endpoint is back, but the failure is still remembered: no fetch before the back-off (30 s + jitter) ends.
      h.fail.next = false;
      expect((await rejection(h.validate(token))).failure).toBe('keys_unavailable');
      expect(h.fetches).toHaveLength(1);
      h.clock.t += 10_000; // 37 s after the failure: past the longest back-off (36 s)
      await expect(h.validate(token)).resolves.toMatchObject({ tenantId: TENANT });
      expect(h.fetches).toHaveLength(2);
    });

    it('an outage that lasts is tried again once per back-off and reported then', async () => {
      const h = harness({ jwksFailureRetryMs: 10_000 });
      h.fail.next = true;
      const token = bearer(sign(claims()));
      expect((await rejection(h.validate(token))).keys).toEqual({ fetchFailed: true });
      h.clock.t += 37_000;
      expect((await rejection(h.validate(token))).keys).toEqual({ fetchFailed: true });
      expect((await rejection(h.validate(token))).keys).toEqual({ fetchFailed: false });
      expect(h.fetches).toHaveLength(2);
    });

    it('ignores JWKS entries that are not RSA signing keys', async () => {
      const h = harness();
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
      const short = generateKeyPairSync('rsa', { modulusLength: 1024 });
      h.jwks.set('common', [
        { ...ec, kid: 'ec' },
        { ...jwkOf(k2, 'enc'), use: 'enc' },
        jwkOf(short, 'short'),
        { kty: 'RSA', kid: 'junk', n: 'AA', e: 'AQAB' },
        'x',
        jwkOf(k1, 'k1'),
      ]);
      await expectFailure(h.validate(bearer(sign(claims(), k2, 'enc'))), 'unknown_key');
      await expect(h.validate(bearer(sign(claims())))).resolves.toMatchObject({ tenantId: TENANT });
    });
  });

  describe('tenant registration', () => {
    it('is asked only for a token with a valid signature, expiry and audience', async () => {
      const asked: string[] = [];
      const h = harness({ isRegisteredTenant: async (t) => (asked.push(t), t === TENANT) });
      // Forged tokens of a registered and of an unregistered tenant fail alike, without a lookup.
      const forged = [sign(claims(), attacker, 'k1'), sign(claims({}, OTHER_TENANT), attacker, 'k1')];
      const failures = await Promise.all(forged.map((t) => rejection(h.validate(bearer(t)))));
      expect(failures.map((e) => [e.failure, e.message])).toEqual([
        ['invalid_signature', failures[0]?.message],
        ['invalid_signature', failures[0]?.message],
      ]);
      await expectFailure(h.validate(bearer(sign(claims({ exp: SEC - 3600 }, OTHER_TENANT)))), 'expired');
      await expectFailure(h.validate(bearer(sign(claims({ aud: 'api://other' }, OTHER_TENANT)))), 'wrong_audience');
      await expectFailure(h.validate(bearer(sign(claims({}, OTHER_TENANT), k2, 'random-kid'))), 'unknown_key');
      expect(asked).toEqual([]);
      await expectFailure(h.validate(bearer(sign(claims({}, OTHER_TENANT)))), 'unregistered_tenant');
      expect(asked).toEqual([OTHER_TENANT]);
      await expect(h.validate(bearer(sign(claims())))).resolves.toMatchObject({ tenantId: TENANT });
    });

    it('checks the issuer before registration: a token whose issuer is not its tenant asks nothing', async () => {
      const asked: string[] = [];
      const h = harness({ isRegisteredTenant: async (t) => (asked.push(t), true) });
      await expectFailure(h.validate(bearer(sign(claims({ iss: `${ENTRA}/${OTHER_TENANT}/v2.0` })))), 'wrong_issuer');
      expect(asked).toEqual([]);
    });
  });

  describe('hygiene', () => {
    it('error messages and stacks never contain the token or its parts', async () => {
      const h = harness();
      const pem = k1.publicKey.export({ format: 'pem', type: 'spki' }).toString();
      const tokens = [
        'garbage-token-value',
        sign(claims({ exp: SEC - 3600 })),
        sign(claims({ nbf: SEC + 3600 })),
        sign(claims({ aud: 'https://graph.microsoft.com' })),
        sign(claims({ iss: `${ENTRA}/${OTHER_TENANT}/v2.0` })),
        sign(claims(), attacker, 'k1'),
        sign(claims(), k2, 'unknown-kid'),
        handMade({ alg: 'none' }, claims()),
        handMade({ alg: 'HS256', kid: 'k1' }, claims(), pem),
      ];
      for (const token of tokens) {
        const err = await rejection(h.validate(`Bearer ${token}`));
        const text = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
        expect(text).not.toContain(token);
        for (const part of token.split('.').filter((p) => p.length >= 8)) expect(text).not.toContain(part);
      }
    });

    it('never logs', async () => {
      const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
        jest.spyOn(console, m).mockImplementation(() => undefined),
      );
      try {
        const h = harness();
        await h.validate(bearer(sign(claims())));
        await rejection(h.validate(bearer(sign(claims(), attacker, 'k1'))));
        await rejection(h.validate('Basic xyz'));
        for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });
  });
});
