import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

// Characters Cosmos DB does not allow in an id, and ids of only spaces: no stored item has one.
const ODD_IDS = ['a/b', 'a\\b', 'a#b', 'a?b', '   ', 'x'.repeat(300)];

describe('ids that cannot exist are simply not found (no 500, no error log line)', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;
  let admin: string;
  let integrationId: string;
  let knownId: string;
  const gql = (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const errorLines = (from: number) =>
    stack.logs.slice(from).filter((l) => /"level":"error"|failed \(invocation/.test(l));

  beforeAll(async () => {
    stack = await startTestStack();
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    admin = await stack.token(DEV_CLIENTS.admin);
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    knownId = (await api.create(userBody())).body.id;
  });
  afterAll(async () => stack?.stop());

  it.each(ODD_IDS.map((id) => [JSON.stringify(id.length > 20 ? `${id.slice(0, 5)}…(${id.length})` : id), id]))(
    'SCIM GET, PUT, PATCH, DELETE of %s are 404',
    async (_label, id) => {
      const before = stack.logs.length;
      expectScimError(await api.get(id), 404, undefined);
      expectScimError(await api.put(id, userBody()), 404, undefined);
      expectScimError(
        await api.patch(id, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'active', value: false }],
        }),
        404,
        undefined,
      );
      expectScimError(await api.delete(id), 404, undefined);
      expect(errorLines(before)).toEqual([]);
    },
  );

  it.each(ODD_IDS.filter((id) => id.length < 100).map((id) => [JSON.stringify(id), id]))(
    'SCIM filter id eq %s is an empty list',
    async (_label, id) => {
      const before = stack.logs.length;
      const res = await api.list(`?filter=${encodeURIComponent(`id eq ${JSON.stringify(id)}`)}`);
      expect(res.status).toBe(200);
      expect(res.body.totalResults).toBe(0);
      expect(errorLines(before)).toEqual([]);
    },
  );

  it('an empty id in a filter is an empty list, and a known id is still found', async () => {
    expect((await api.list(`?filter=${encodeURIComponent('id eq ""')}`)).body.totalResults).toBe(0);
    expect((await api.list(`?filter=${encodeURIComponent(`id eq "${knownId}"`)}`)).body.totalResults).toBe(1);
  });

  it.each(ODD_IDS.map((id) => [JSON.stringify(id.slice(0, 20)), id]))(
    'GraphQL: %s is no SCIM integration and no identity',
    async (_label, id) => {
      const before = stack.logs.length;
      const one = await gql('query($id: ID!) { scimIntegration(id: $id) { id } }', { id });
      expect(one.body).toEqual({ data: { scimIntegration: null } });
      const disable = await gql(
        'mutation($id: ID!) { disableScimIntegration(input: { id: $id }) { scimIntegration { id } } }',
        { id },
      );
      expect(disable.body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
      const link = await gql(
        'mutation($s: String!, $id: ID!) { linkBusinessIdentity(input: { source: $s, id: $id, userPrincipalName: "alice@dev.example.com" }) { businessIdentity { id } } }',
        { s: integrationId, id },
      );
      expect(link.body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
      const unlink = await gql(
        'mutation($s: String!, $id: ID!) { unlinkBusinessIdentity(input: { source: $s, id: $id }) { businessIdentity { id } } }',
        { s: integrationId, id },
      );
      expect(unlink.body.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
      for (const res of [one, disable, link, unlink]) expect(res.text).not.toContain(id.trim() || '""');
      expect(errorLines(before)).toEqual([]);
    },
  );
});
