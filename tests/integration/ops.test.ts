import { startTestStack, call, type TestStack } from '../support/stack';
import { runOps } from '../../scripts/ops';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../lib/devhost/devData';
import { services } from '../../lib/services';

describe('operator command: tenants', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('registers, lists and removes a tenant against the store; a registered tenant is then accepted', async () => {
    const env = { COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT, COSMOS_KEY: stack.env.COSMOS_KEY, COSMOS_DATABASE: stack.env.COSMOS_DATABASE };
    const token = await stack.token(DEV_CLIENTS.otherAdmin);
    const gql = () => call<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${stack.base}/graphql`, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ scimIntegrations { id } }' }) });
    expect((await gql()).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');

    expect(await runOps(['tenant', 'register', UNREGISTERED_TENANT_ID.toUpperCase()], env)).toEqual({ code: 0, out: [`registered ${UNREGISTERED_TENANT_ID}`] });
    expect((await runOps(['tenant', 'register', UNREGISTERED_TENANT_ID], env)).out).toEqual([`${UNREGISTERED_TENANT_ID} was already registered`]);
    const listed = await runOps(['tenant', 'list'], env);
    expect(listed.out.map((l) => l.split('\t')[0])).toEqual([DEV_TENANT_ID, UNREGISTERED_TENANT_ID].sort());
    services().tenants.clearCache();
    expect((await gql()).body.errors).toBeUndefined();

    expect((await runOps(['tenant', 'remove', UNREGISTERED_TENANT_ID], env)).out).toEqual([`removed ${UNREGISTERED_TENANT_ID}`]);
    services().tenants.clearCache();
    expect((await gql()).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');
  });

  it('refuses bad arguments with exit code 2', async () => {
    expect((await runOps(['tenant', 'register', 'not-a-guid'], {})).code).toBe(2);
    expect((await runOps(['nonsense'], {})).code).toBe(2);
  });
});
