import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError } from '../support/scim';
import { DEV_CLIENTS, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

type Gql = { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };

const RANDOM_TENANT = '33333333-3333-4333-8333-333333333333';
const OUTAGE_TENANT = '44444444-4444-4444-8444-444444444444';

describe('token keys: registration is checked before any key fetch; a failed fetch is 401', () => {
  let stack: TestStack;
  const scimUsers = (token: string) => call(`${stack.base}/scim/v2/Users`, { token });
  const gql = (token: string) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
    });
  const tokenOf = (tenantId: string) =>
    stack.idp.mintAppToken({
      tenantId,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      roles: ['Admin'],
    });

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it.each([
    ['a random tenant', RANDOM_TENANT],
    ['the unregistered dev tenant', UNREGISTERED_TENANT_ID],
  ])(
    'a correctly signed token of %s makes no outbound key fetch: SCIM 401, GraphQL AUTH_NOT_AUTHENTICATED',
    async (_what, tenantId) => {
      const token = tokenOf(tenantId);
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, () => scimUsers(token)),
        ...Array.from({ length: 4 }, () => gql(token)),
      ]);
      for (const res of answers.slice(0, 4)) expectScimError(res, 401, undefined, token);
      for (const res of answers.slice(4)) {
        expect(res.status).toBe(200);
        expect((res.body as Gql).errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
      }
      expect(stack.idp.jwksRequests(tenantId)).toBe(0);
    },
  );

  it('a registered tenant whose key endpoint fails: 401 / AUTH_NOT_AUTHENTICATED, one fetch and one log line for a burst', async () => {
    await services().tenants.register(OUTAGE_TENANT);
    stack.idp.failJwks(OUTAGE_TENANT, true);
    try {
      const token = tokenOf(OUTAGE_TENANT);
      const before = stack.logs.length;
      const first = await scimUsers(token);
      expectScimError(first, 401, undefined, token);
      const burst = await Promise.all([
        ...Array.from({ length: 5 }, () => scimUsers(token)),
        ...Array.from({ length: 5 }, () => gql(token)),
      ]);
      for (const res of burst.slice(0, 5)) expectScimError(res, 401, undefined, token);
      for (const res of burst.slice(5)) {
        expect(res.status).toBe(200);
        expect((res.body as Gql).errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
        expect(res.text).not.toContain('Unexpected error');
      }
      expect(stack.idp.jwksRequests(OUTAGE_TENANT)).toBe(1);
      const lines = stack.logs.slice(before);
      expect(lines.filter((l) => l.includes('signing keys'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('signing keys'))[0]).toContain(OUTAGE_TENANT);
      expect(lines.filter((l) => /"level":"error"|failed \(invocation/.test(l))).toEqual([]);
    } finally {
      stack.idp.failJwks(OUTAGE_TENANT, false);
      await services().tenants.remove(OUTAGE_TENANT);
    }
  });
});
