/**
 * What a browser may do with the service's answers: /graphql answers other origins only when
 * GRAPHQL_CORS_ORIGINS lists them (graphql-yoga's default copied any Origin with credentials allowed),
 * GraphiQL is served only where introspection is on, and the local stack (plain HTTP) sends no
 * Strict-Transport-Security (Azure does: tests/unit/http/transportSecurity.test.ts).
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';

const LISTED = 'https://admin.example.org';
const OTHER = 'https://evil.example';
const QUERY = JSON.stringify({ query: '{ scimIntegrations { id } }' });

describe.each([
  ['by default', {}],
  [
    'with GRAPHQL_CORS_ORIGINS and introspection off',
    { GRAPHQL_CORS_ORIGINS: `${LISTED}, http://localhost:5173`, GRAPHQL_INTROSPECTION: 'false' },
  ],
])('a browser of another origin, %s', (_how, env: Record<string, string>) => {
  let stack: TestStack;
  let admin: string;
  const listed = env.GRAPHQL_CORS_ORIGINS !== undefined;
  const post = (origin: string) =>
    call(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json', origin },
      body: QUERY,
    });
  const preflight = (origin: string) =>
    call(`${stack.base}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  beforeAll(async () => {
    stack = await startTestStack({ env });
    admin = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  it('gets no permission to read answers unless its origin is listed; never with credentials', async () => {
    for (const origin of [OTHER, 'null', `${LISTED}.evil.example`]) {
      const res = await post(origin);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect(pre.headers.get('access-control-allow-methods')).toBeNull();
    }
    const ok = await post(LISTED);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(listed ? LISTED : null);
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const pre = await preflight(LISTED);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(listed ? LISTED : null);
    if (listed) {
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
      // A refusal is readable too, so the page can show it.
      const refused = await call(`${stack.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: LISTED },
        body: QUERY,
      });
      expect(refused.headers.get('access-control-allow-origin')).toBe(LISTED);
    }
  });

  it('finds GraphiQL only where introspection is on', async () => {
    const introspection = env.GRAPHQL_INTROSPECTION !== 'false';
    const page = await call(`${stack.base}/console/graphiql.html`);
    if (introspection) expect(page.status).not.toBe(404);
    else expect(page.status).toBe(404);
    const browser = await fetch(`${stack.base}/graphql`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(browser.status).toBe(introspection ? 302 : 200);
  });

  it('sends no Strict-Transport-Security over the plain HTTP of the local stack', async () => {
    for (const path of ['/health', '/graphql', '/scim/v2/Users', '/scim/v2/ServiceProviderConfig', '/console/']) {
      const res = await call(`${stack.base}${path}`);
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
  });
});
