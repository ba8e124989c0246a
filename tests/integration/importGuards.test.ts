import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../lib/devhost/devData';

type Gql = { data?: { importBusinessIdentities: Record<string, number> } | null; errors?: Array<{ extensions?: { code?: string } }> };
const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
const person = (n: number) => ({ externalId: `G${n}`, affiliationType: 'OTHER', firstName: 'F', lastName: 'L' });

describe('import guards', () => {
  let stack: TestStack;
  const importSet = async (n: number) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: IMPORT, variables: { i: { source: 'Guarded', identities: Array.from({ length: n }, (_, i) => person(i)) } } }),
    });

  beforeAll(async () => {
    stack = await startTestStack({ env: { IMPORT_MAX_IDENTITIES: '10', IMPORT_MAX_DELETE_RATIO: '0.5' } });
  });
  afterAll(async () => stack?.stop());

  it('refuses a set larger than IMPORT_MAX_IDENTITIES', async () => {
    expect((await importSet(11)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_TOO_LARGE');
  });

  it('refuses an import that would delete more than IMPORT_MAX_DELETE_RATIO of the source, changing nothing', async () => {
    expect((await importSet(10)).body.data?.importBusinessIdentities.created).toBe(10);
    expect((await importSet(4)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_DELETE_LIMIT_EXCEEDED');
    expect((await importSet(10)).body.data?.importBusinessIdentities).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 10 });
    expect((await importSet(5)).body.data?.importBusinessIdentities.deleted).toBe(5);
  });
});
