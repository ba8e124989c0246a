/** GET /health: no token, no store call; for monitors and the local stack's banner. */
import { startTestStack, call, type TestStack } from '../support/stack';
import { storeCounters } from '../../lib/store/metrics';
import fs from 'node:fs';
import path from 'node:path';

describe('GET /health', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('answers 200 without a token and without touching the store', async () => {
    const before = storeCounters();
    const r = await call(`${stack.base}/health`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', service: 'business-identity-provisioning' });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const after = storeCounters();
    expect(after.pointReads + after.queries + after.writes).toBe(before.pointReads + before.queries + before.writes);
    // It writes no log line either (monitors call it every minute); a refused SCIM call does, for the leak check.
    expect(stack.logs.filter((l) => l.includes('/health'))).toEqual([]);
    expect((await call(`${stack.base}/scim/v2/Users`)).status).toBe(401);
  });

  it('takes GET only (405 otherwise)', async () => {
    expect((await call(`${stack.base}/health`, { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('functions/ files import only lib/http and lib/services from the app', () => {
    const dir = path.resolve(__dirname, '../../functions');
    const text = fs.readFileSync(path.join(dir, 'health.ts'), 'utf8');
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.filter((i) => i?.startsWith('.')).sort()).toEqual([
      '../lib/http/health',
      '../lib/http/transportSecurity',
    ]);
  });
});
