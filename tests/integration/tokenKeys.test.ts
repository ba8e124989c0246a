import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { resetStoreCounters, storeCounters } from '../../lib/store/metrics';

type Gql = { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };

const RANDOM_TENANT = '33333333-3333-4333-8333-333333333333';
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

describe('token keys: the signature is checked with Entra common keys before registration; one answer for every invalid token', () => {
  let stack: TestStack;
  const scimUsers = (token: string) => call(`${stack.base}/scim/v2/Users`, { token });
  const gql = (token: string) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
    });
  const claimsOf = (tenantId: string) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: stack.idp.issuer(tenantId),
      aud: SERVICE_APP_ID_URI,
      tid: tenantId,
      azp: DEV_CLIENTS.admin.clientId,
      roles: ['Admin'],
      idtyp: 'app',
      iat: now,
      nbf: now,
      exp: now + 3600,
    };
  };
  const signedOf = (tenantId: string) =>
    stack.idp.mintAppToken({
      tenantId,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      roles: ['Admin'],
    });
  /** Signed with another key under the stand-in's key id: a forgery. */
  const forgedOf = (tenantId: string, kid = kidOf(signedOf(DEV_TENANT_ID))) =>
    jwt.sign(claimsOf(tenantId), attacker, { algorithm: 'RS256', keyid: kid });
  const kidOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('forged tokens of the registered tenant, an unregistered one and a random one are answered alike, without a store read', async () => {
    // Warm the key cache with one valid token.
    expect((await scimUsers(await stack.token(DEV_CLIENTS.scim))).status).toBe(200);
    resetStoreCounters();
    const forged = [DEV_TENANT_ID, UNREGISTERED_TENANT_ID, RANDOM_TENANT].map((t) => forgedOf(t));
    const scim = await Promise.all(forged.map(scimUsers));
    const graphql = await Promise.all(forged.map(gql));
    expect(storeCounters().pointReads + storeCounters().queries).toBe(0);
    for (const [i, res] of scim.entries()) expectScimError(res, 401, undefined, forged[i] ?? '');
    expect(new Set(scim.map((r) => JSON.stringify([r.body.detail, r.headers.get('www-authenticate')]))).size).toBe(1);
    for (const res of graphql) {
      expect(res.status).toBe(200);
      expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
    }
    expect(new Set(graphql.map((r) => r.text)).size).toBe(1);
  });

  it('a correctly signed token of an unregistered tenant gets the same answer as a forged one', async () => {
    const [forged, unregistered, random] = await Promise.all([
      scimUsers(forgedOf(DEV_TENANT_ID)),
      scimUsers(signedOf(UNREGISTERED_TENANT_ID)),
      scimUsers(signedOf(RANDOM_TENANT)),
    ]);
    expect(unregistered.status).toBe(401);
    expect(unregistered.body.detail).toBe(forged.body.detail);
    expect(random.body.detail).toBe(forged.body.detail);
    const answers = await Promise.all([gql(forgedOf(RANDOM_TENANT)), gql(signedOf(UNREGISTERED_TENANT_ID))]);
    expect(answers[0]?.text).toBe(answers[1]?.text);
  });

  it('one key set serves every tenant: tokens of many tenants fetch the common keys, never a tenant key set', async () => {
    const tenants = Array.from(
      { length: 20 },
      (_, i) => `5555${String(i).padStart(4, '0')}-5555-4555-8555-555555555555`,
    );
    await Promise.all(tenants.map((t) => scimUsers(signedOf(t))));
    for (const t of [...tenants, DEV_TENANT_ID]) expect(stack.idp.jwksRequests(t)).toBe(0);
    expect(stack.idp.jwksRequests('common')).toBe(1);
  });

  it('an outage of the key endpoint: 401 / AUTH_NOT_AUTHENTICATED for a key not held, no fetch for it; held keys still work', async () => {
    stack.idp.failJwks('common', true);
    try {
      const before = stack.logs.length;
      const fetches = stack.idp.jwksRequests('common');
      const rotated = forgedOf(DEV_TENANT_ID, 'rotated-key');
      const burst = await Promise.all([
        ...Array.from({ length: 5 }, () => scimUsers(rotated)),
        ...Array.from({ length: 5 }, () => gql(rotated)),
      ]);
      for (const res of burst.slice(0, 5)) expectScimError(res, 401, undefined, rotated);
      for (const res of burst.slice(5)) {
        expect((res.body as Gql).errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
        expect(res.text).not.toContain('Unexpected error');
      }
      // The set was fetched less than a refresh interval ago: an id it does not hold causes no fetch.
      expect(stack.idp.jwksRequests('common')).toBe(fetches);
      const lines = stack.logs.slice(before);
      expect(lines.filter((l) => /"level":"error"|failed \(invocation/.test(l))).toEqual([]);
      expect((await scimUsers(await stack.token(DEV_CLIENTS.scim))).status).toBe(200);
    } finally {
      stack.idp.failJwks('common', false);
    }
  });
  it('forged tokens with made-up key ids cause no key fetch while the set is fresh (at most one per refresh interval)', async () => {
    const before = stack.idp.jwksRequests('common');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => scimUsers(forgedOf(RANDOM_TENANT, `made-up-${i}`))),
    );
    for (const res of answers) expect(res.status).toBe(401);
    expect(stack.idp.jwksRequests('common') - before).toBeLessThanOrEqual(1);
  });
});
