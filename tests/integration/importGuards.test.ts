import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';

type Gql = {
  data?: { importBusinessIdentities: Record<string, number> } | null;
  errors?: Array<{ extensions?: { code?: string } }>;
};
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
const person = (n: number) => ({ externalId: `G${n}`, affiliationType: 'OTHER', firstName: 'F', lastName: 'L' });

describe('import guards', () => {
  let stack: TestStack;
  const importSet = async (n: number) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: IMPORT,
        variables: { i: { source: 'Guarded', identities: Array.from({ length: n }, (_, i) => person(i)) } },
      }),
    });

  // GRAPHQL_MAX_BODY_BYTES by default.
  const MAX_BODY = 8 * 1024 * 1024;
  const paddedImport = async (padding: number) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      // JSON whitespace makes a body of the wanted size without a large set.
      body: `${' '.repeat(padding)}${JSON.stringify({ query: IMPORT, variables: { i: { source: 'Padded', identities: [person(1)] } } })}`,
    });

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        IMPORT_MAX_IDENTITIES: '10',
        IMPORT_MAX_DELETE_RATIO: '0.5',
        ASSOCIATION_MAX_PAIRS: '3',
      },
    });
  });
  afterAll(async () => stack?.stop());

  it('refuses a set larger than IMPORT_MAX_IDENTITIES', async () => {
    expect((await importSet(11)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_TOO_LARGE');
  });

  it('refuses an import that would delete more than IMPORT_MAX_DELETE_RATIO of the source, changing nothing', async () => {
    expect((await importSet(10)).body.data?.importBusinessIdentities.created).toBe(10);
    expect((await importSet(4)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_DELETE_LIMIT_EXCEEDED');
    expect((await importSet(10)).body.data?.importBusinessIdentities).toEqual({
      created: 0,
      updated: 0,
      deleted: 0,
      unchanged: 10,
    });
    expect((await importSet(5)).body.data?.importBusinessIdentities.deleted).toBe(5);
  });

  it('refuses an association list longer than ASSOCIATION_MAX_PAIRS, without echoing it', async () => {
    const associate = (n: number) =>
      call<{
        data?: { associateBusinessIdentities: { unknownExternalIds: string[] } } | null;
        errors?: Array<{ message: string; extensions?: { code?: string } }>;
      }>(`${stack.base}/graphql`, {
        method: 'POST',
        token: admin,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { unknownExternalIds } }',
          variables: {
            i: {
              source: 'Guarded',
              associations: Array.from({ length: n }, (_, i) => ({
                externalId: `Z${i}`,
                userPrincipalName: `distinctive.${i}@dev.example.com`,
              })),
            },
          },
        }),
      });
    const admin = await stack.token(DEV_CLIENTS.admin);
    const tooMany = await associate(4);
    expect(tooMany.body.errors?.[0]?.extensions?.code).toBe('ASSOCIATION_TOO_LARGE');
    expect(tooMany.text).not.toContain('distinctive');
    expect((await associate(3)).body.data?.associateBusinessIdentities.unknownExternalIds).toHaveLength(3);
  });

  it('accepts a body up to GRAPHQL_MAX_BODY_BYTES (8 MiB)', async () => {
    const res = await paddedImport(MAX_BODY - 1000);
    expect(res.status).toBe(200);
    expect(res.body.data?.importBusinessIdentities.created).toBe(1);
  });

  it('answers 413 USE_STAGED_IMPORT past GRAPHQL_MAX_BODY_BYTES, naming the staged import', async () => {
    const res = await paddedImport(MAX_BODY + 1);
    expect(res.status).toBe(413);
    expect(res.body.errors?.[0]?.extensions).toEqual({ code: 'USE_STAGED_IMPORT', bound: 'bodyBytes', max: MAX_BODY });
    expect(JSON.stringify(res.body)).toMatch(/startImport.*addImportPart/);
  });
});
