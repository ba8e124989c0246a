import { startTestStack, call, type TestStack } from '../support/stack';
import { runOps } from '../../scripts/ops';
import { opsTarget } from '../../scripts/opsTarget';
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

  it('works with no settings against the local stack (its port from DEV_COSMOS_PORT), and says so on stderr', async () => {
    const port = new URL(stack.env.COSMOS_ENDPOINT ?? '').port;
    const listed = await runOps(['tenant', 'list'], { DEV_COSMOS_PORT: port });
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => l.split('\t')[0])).toContain(DEV_TENANT_ID);
    expect(listed.notes).toEqual([`No COSMOS_ENDPOINT set: using the local stack of \`npm start\` at http://localhost:${port}`]);
  });

  it('works with only the local endpoint set (plain http on loopback takes the local key)', async () => {
    const listed = await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT });
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => l.split('\t')[0])).toContain(DEV_TENANT_ID);
    expect(listed.notes).toBeUndefined();
  });

  it('refuses plain http to anything but loopback, without repeating the value', async () => {
    for (const endpoint of ['http://cosmos-secretive.example.com:8081', 'http://10.1.2.3:8081', 'ftp://127.0.0.1/']) {
      const refused = await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: endpoint });
      expect(refused.code).toBe(2);
      expect(refused.out.join('\n')).toMatch(/COSMOS_ENDPOINT/);
      expect(refused.out.join('\n')).not.toContain(new URL(endpoint).host || 'ftp://');
    }
    expect((await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: 'not a url' })).code).toBe(2);
  });

  it('reaches an Azure account over https with COSMOS_KEY or, without it, the signed-in identity', () => {
    expect(opsTarget({ COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/' }).store).toEqual({ endpoint: 'https://cosmos-abc.documents.azure.com:443', key: undefined, database: 'business-identities' });
    expect(opsTarget({ COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/', COSMOS_KEY: 'k', COSMOS_DATABASE: 'd' }).store).toEqual({ endpoint: 'https://cosmos-abc.documents.azure.com:443', key: 'k', database: 'd' });
    expect(opsTarget({ COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/' }).note).toBeUndefined();
  });

  it('refuses bad arguments with exit code 2', async () => {
    expect((await runOps(['tenant', 'register', 'not-a-guid'], {})).code).toBe(2);
    expect((await runOps(['nonsense'], {})).code).toBe(2);
  });
});
