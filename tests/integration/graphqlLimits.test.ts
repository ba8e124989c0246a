import v8 from 'node:v8';
import vm from 'node:vm';
import { startTestStack, call, type TestStack } from '../support/stack';
import { largeGraphQLBody, postStreamed } from '../../scripts/bench/streamedPost';
import { DEV_CLIENTS } from '../../devhost/devData';
import { MAX_TOKENS } from '../../lib/graphql/limits';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

const MB = 1024 * 1024;
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const inUse = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const ASSOCIATE = (alias: string) =>
  `${alias}: associateBusinessIdentities(input: { source: "HR", associations: [{ externalId: "e1", userPrincipalName: "alice@dev.example.com" }] }) { associated }`;
const IMPORT = (alias: string) =>
  `${alias}: importBusinessIdentities(input: { source: "HR", identities: [] }) { created }`;

describe('GraphQL: bounded work before and during parsing', () => {
  let stack: TestStack;
  let admin: string;
  const gql = (body: unknown) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const codes = (res: { body: Gql }) => res.body.errors?.map((e) => e.extensions?.code);

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  it("an Admin's 8 MB document is refused QUERY_TOO_LARGE after a small part was read, holding little memory", async () => {
    collectGarbage();
    let peak = inUse();
    const before = peak;
    const sampler = setInterval(() => (peak = Math.max(peak, inUse())), 5);
    let answer;
    try {
      answer = await postStreamed(
        `${stack.base}/graphql`,
        { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        8 * MB,
        largeGraphQLBody(8 * MB, 1),
      );
    } finally {
      clearInterval(sampler);
    }
    expect(answer.status).toBe(413);
    const body = JSON.parse(answer.text) as Gql;
    expect(codes({ body })).toEqual(['QUERY_TOO_LARGE']);
    expect(body.errors?.[0]?.message).not.toContain('scimIntegrations');
    expect(answer.complete).toBe(false);
    // What the client had written before the refusal came back includes the loopback's socket buffers, a few
    // MB on a loaded machine: well short of the document all the same.
    expect(answer.bytesSent).toBeLessThan(6 * MB);
    // Taking the document in would hold 8 MB of text and a parse tree many times that.
    expect(peak - before).toBeLessThan(16 * MB);
  });

  it('a document whose "query" key is written with escapes is measured after JSON parsing: QUERY_TOO_LARGE', async () => {
    const res = await gql(`{"\\u0071uery":"{ ${'__typename '.repeat(7000)}}"}`);
    expect(codes(res)).toEqual(['QUERY_TOO_LARGE']);
  });

  it(`a document under the text cap with more than ${MAX_TOKENS} tokens stops parsing: QUERY_TOO_COMPLEX`, async () => {
    const res = await gql({ query: `{ ${'__typename '.repeat(MAX_TOKENS + 10)}}` });
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(res.body.errors?.[0]?.message).toMatch(/tokens/);
  });

  it('a large import sent as variables is still read in full and served', async () => {
    const identities = Array.from({ length: 4000 }, (_, i) => ({
      externalId: `limits-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'Given',
      lastName: 'Family'.repeat(20),
    }));
    const res = await gql({
      query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      variables: { i: { source: 'LimitsTest', identities } },
    });
    expect(JSON.stringify({ identities }).length).toBeGreaterThan(512 * 1024);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ importBusinessIdentities: { created: 4000 } });
  });

  it.each([
    ['two aliased associations', `mutation { ${ASSOCIATE('a')} ${ASSOCIATE('b')} }`],
    ['an import and an association', `mutation { ${IMPORT('a')} ${ASSOCIATE('b')} }`],
    [
      'two imports, one of them in a fragment',
      `mutation { ${IMPORT('a')} ...F } fragment F on Mutation { ${IMPORT('b')} }`,
    ],
  ])('%s in one document: refused QUERY_TOO_COMPLEX before anything runs', async (_what, query) => {
    const pk = partitionKey(DEV_CLIENTS.admin.tenantId, customSourceKey('HR'));
    const runsBefore = (await services().runs.list(pk, 50)).length;
    const res = await gql({ query });
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(res.body.data).toBeUndefined();
    expect(res.text).not.toContain('alice@dev.example.com');
    expect((await services().runs.list(pk, 50)).length).toBe(runsBefore);
  });
});
