import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';

describe('local stack', () => {
  let stack: TestStack;
  const logs: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ log: (_level, message) => logs.push(message) });
  });
  afterAll(async () => stack?.stop());

  it('issues a token over HTTP and a function answers with it', async () => {
    const token = await stack.token(DEV_CLIENTS.scim);
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.aud).toBe('api://business-identity-service');
    expect(claims.tid).toBe(DEV_TENANT_ID);

    const res = await call(`${stack.base}/scim/v2/ServiceProviderConfig`, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
    expect(res.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 100 },
      etag: { supported: true },
      bulk: { supported: false },
    });
  });

  it('rejects a wrong client secret at the identity-provider stand-in', async () => {
    const res = await call(`${stack.idp.url}/${DEV_TENANT_ID}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEV_CLIENTS.scim.clientId,
        client_secret: 'not-the-secret',
        scope: SERVICE_SCOPE,
      }).toString(),
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.text).not.toContain('not-the-secret');
  });

  it('serves the schemas with the attribute characteristics', async () => {
    const res = await call<{
      Resources: Array<{ id: string; attributes: Array<{ name: string; mutability: string; required: boolean }> }>;
    }>(`${stack.base}/scim/v2/Schemas`);
    expect(res.status).toBe(200);
    const ext = res.body.Resources.find((r) => r.id === 'urn:ietf:params:scim:schemas:extension:service:2.0:User');
    expect(ext?.attributes.find((a) => a.name === 'directoryLinkStatus')?.mutability).toBe('readOnly');
    expect(ext?.attributes.find((a) => a.name === 'affiliationType')?.required).toBe(true);
    const one = await call(`${stack.base}/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User`);
    expect(one.status).toBe(200);
    const rt = await call(`${stack.base}/scim/v2/ResourceTypes/User`);
    expect(rt.body).toMatchObject({ endpoint: '/Users', schemaExtensions: [{ required: true }] });
    expect((await call(`${stack.base}/scim/v2/ResourceTypes/Group`)).status).toBe(404);
  });

  it('answers unknown routes with 404 JSON', async () => {
    const res = await call(`${stack.base}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
  });

  it('runs a timer through the admin route and logs it', async () => {
    const res = await call(`${stack.base}/admin/functions/retention`, { method: 'POST', json: {} });
    expect(res.status).toBe(202);
    await waitFor(() => logs.some((l) => l.includes("Executed 'retention'")));
    expect((await call(`${stack.base}/admin/functions/noSuchTimer`, { method: 'POST' })).status).toBe(404);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
