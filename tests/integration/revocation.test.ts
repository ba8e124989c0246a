import http from 'node:http';
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { CLIENT_LOOKUP_TTL_MS, ScimIntegrations } from '../../lib/integrations/scimIntegrations';
import { TENANT_LOOKUP_TTL_MS, TenantRegistry } from '../../lib/tenants/tenantRegistry';

const SYSTEM = { tenantId: DEV_TENANT_ID, kind: 'system' as const, id: 'revocation-test' };
const LATE_TENANT = '55555555-5555-4555-8555-555555555555';

/** A request with the given raw headers (repeated names stay repeated on the wire, unlike fetch). */
function rawRequest(
  url: string,
  method: string,
  headers: string[],
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // With raw headers node:http adds no Host header itself.
    const req = http.request(url, { method, headers: ['Host', new URL(url).host, ...headers] }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('revocation reaches every instance within seconds', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it(`a disabled integration is seen by another instance within ${CLIENT_LOOKUP_TTL_MS} ms`, async () => {
    const clock = { t: Date.now() };
    // Another instance: its own cache over the same store, on a clock the test moves.
    const other = new ScimIntegrations(services().store, services().audit, () => clock.t);
    const mine = services().integrations;
    const before = await other.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId);
    expect(before?.enabled).toBe(true);
    await mine.setEnabled(DEV_TENANT_ID, before!.id, false, SYSTEM);
    try {
      expect((await mine.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))?.enabled).toBe(false); // this instance: at once
      expectScimError(
        await call(`${stack.base}/scim/v2/Users`, { token: await stack.token(DEV_CLIENTS.scim2) }),
        403,
        undefined,
      );
      clock.t += CLIENT_LOOKUP_TTL_MS;
      expect((await other.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))?.enabled).toBe(false);
      expect(CLIENT_LOOKUP_TTL_MS).toBeLessThanOrEqual(5_000);
    } finally {
      await mine.setEnabled(DEV_TENANT_ID, before!.id, true, SYSTEM);
    }
  });

  it(`a removed tenant (and a new one) is seen by another instance within ${TENANT_LOOKUP_TTL_MS} ms`, async () => {
    const clock = { t: Date.now() };
    const other = new TenantRegistry(services().store, () => clock.t);
    expect(await other.isRegistered(LATE_TENANT)).toBe(false);
    await services().tenants.register(LATE_TENANT);
    clock.t += TENANT_LOOKUP_TTL_MS;
    expect(await other.isRegistered(LATE_TENANT)).toBe(true);
    await services().tenants.remove(LATE_TENANT);
    clock.t += TENANT_LOOKUP_TTL_MS;
    expect(await other.isRegistered(LATE_TENANT)).toBe(false);
    expect(TENANT_LOOKUP_TTL_MS).toBeLessThanOrEqual(5_000);
  });
});

describe('more than one Authorization header is 400', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('SCIM: 400 as a SCIM Error whichever header comes first, and one header still works', async () => {
    const good = `Bearer ${await stack.token(DEV_CLIENTS.scim)}`;
    for (const pair of [
      [good, 'Bearer x.y.z'],
      ['Bearer x.y.z', good],
      [good, good],
    ]) {
      const res = await rawRequest(`${stack.base}/scim/v2/Users`, 'GET', [
        'Authorization',
        pair[0]!,
        'Authorization',
        pair[1]!,
      ]);
      expect(res.status).toBe(400);
      const body = JSON.parse(res.text) as { schemas: string[]; status: string };
      expect(body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400' });
      expect(res.text).not.toContain(good.slice(7, 40));
    }
    expect((await rawRequest(`${stack.base}/scim/v2/Users`, 'GET', ['Authorization', good])).status).toBe(200);
  });

  it('GraphQL: 400 with a BAD_REQUEST error, nothing run', async () => {
    const good = `Bearer ${await stack.token(DEV_CLIENTS.admin)}`;
    const body = JSON.stringify({ query: '{ scimIntegrations { id } }' });
    const res = await rawRequest(
      `${stack.base}/graphql`,
      'POST',
      ['Authorization', good, 'Authorization', good, 'Content-Type', 'application/json'],
      body,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      errors: [{ message: 'Send exactly one Authorization header', extensions: { code: 'BAD_REQUEST' } }],
    });
    const single = await call(`${stack.base}/graphql`, {
      method: 'POST',
      headers: { authorization: good, 'content-type': 'application/json' },
      body,
    });
    expect(single.status).toBe(200);
  });

  it('a comma-joined header (what the Functions host passes on) is refused the same way', async () => {
    const good = `Bearer ${await stack.token(DEV_CLIENTS.scim)}`;
    expectScimError(
      await call(`${stack.base}/scim/v2/Users`, { headers: { authorization: `${good}, Bearer x.y.z` } }),
      400,
      undefined,
    );
  });
});
