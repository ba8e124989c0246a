/**
 * Console users get the console's operations only: a user token (Console.Admin scope, Admin role) may read and
 * call the mutations the console's pages use; imports and associations stay with application tokens. The
 * refusal comes before anything runs, whatever shape the document has, and records no run.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI } from '../../devhost/devData';

type Gql = {
  // Each test reads the shape of its own operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

const CPR = '0101904321';
const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }';
const person = (externalId: string) => ({
  externalId,
  affiliationType: 'EMPLOYMENT',
  firstName: 'Ida',
  lastName: 'Holm',
  personalNumbers: [{ type: 'DK_CPR', value: CPR }],
});

describe('who may call what: console users and applications', () => {
  let stack: TestStack;
  let app: string;
  let user: string;
  const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const runsOf = async (source: string) =>
    (await gql(app, 'query($s: String!) { importRuns(source: $s) { id } }', { s: source })).body.data?.importRuns;
  const expectAppOnly = (res: Awaited<ReturnType<typeof gql>>, field?: string) => {
    expect(res.status).toBe(200);
    expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHORIZED']);
    expect(res.body.data ?? null).toBeNull();
    const message = res.body.errors?.[0]?.message ?? '';
    expect(message).toMatch(/needs an application token with the Admin role/);
    if (field) expect(message).toContain(field);
    expect(res.text).not.toContain(CPR);
    expect(res.text).not.toContain('HR-USER');
  };

  beforeAll(async () => {
    stack = await startTestStack();
    app = await stack.token(DEV_CLIENTS.admin);
    user = stack.idp.mintUserToken({
      tenantId: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      scp: 'Console.Admin',
      roles: ['Admin'],
      upn: 'console-admin@dev.example.com',
    });
  });
  afterAll(async () => stack?.stop());

  it("lets a console user read and call the console's mutations", async () => {
    const listed = await gql(user, '{ scimIntegrations { id displayName } sources { name } }');
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data?.scimIntegrations.length).toBeGreaterThan(0);
    const created = await gql(
      user,
      'mutation($i: CreateScimIntegrationInput!) { createScimIntegration(input: $i) { scimIntegration { id } } }',
      { i: { displayName: 'Console-made', clientId: 'dddddddd-0000-4000-8000-00000000c0de' } },
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data?.createScimIntegration.scimIntegration.id as string;
    for (const op of ['disableScimIntegration', 'enableScimIntegration']) {
      const res = await gql(user, `mutation { ${op}(input: { id: "${id}" }) { scimIntegration { enabled } } }`);
      expect(res.body.errors).toBeUndefined();
    }
    const manual = await gql(
      user,
      'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id } } }',
      { i: person('M-CONSOLE') },
    );
    expect(manual.body.errors).toBeUndefined();
    const manualId = manual.body.data?.createBusinessIdentity.businessIdentity.id as string;
    const linked = await gql(
      user,
      `mutation { linkBusinessIdentity(input: { source: "Manual", id: "${manualId}", userPrincipalName: "bob@dev.example.com" }) { businessIdentity { directoryLinkStatus } } }`,
    );
    expect(linked.body.errors).toBeUndefined();
    expect(linked.body.data?.linkBusinessIdentity.businessIdentity.directoryLinkStatus).toBe('LINKED');
    for (const q of [
      `mutation { unlinkBusinessIdentity(input: { source: "Manual", id: "${manualId}" }) { businessIdentity { id } } }`,
      `mutation { updateBusinessIdentity(input: { id: "${manualId}", lastName: "Vang" }) { businessIdentity { id } } }`,
      `mutation { deactivateBusinessIdentity(input: { id: "${manualId}" }) { businessIdentity { active } } }`,
      `mutation { deleteBusinessIdentity(input: { id: "${manualId}" }) { id } }`,
    ]) {
      const res = await gql(user, q);
      expect(res.body.errors).toBeUndefined();
    }
    const introspection = await gql(user, '{ __schema { queryType { name } } }');
    expect(introspection.body.errors).toBeUndefined();
  });

  it('refuses imports (dry runs too) and associations to a console user before anything runs; no run is recorded', async () => {
    expectAppOnly(
      await gql(user, IMPORT, { i: { source: 'HR-USER', identities: [person('U-1')] } }),
      'importBusinessIdentities',
    );
    expectAppOnly(
      await gql(user, IMPORT, { i: { source: 'HR-USER', identities: [person('U-1')], dryRun: true } }),
      'importBusinessIdentities',
    );
    expectAppOnly(
      await gql(user, ASSOCIATE, {
        i: { source: 'HR-USER', associations: [{ externalId: 'U-1', userPrincipalName: 'bob@dev.example.com' }] },
      }),
      'associateBusinessIdentities',
    );
    // Variables that would not even coerce: the caller learns it may not call this, not what is wrong with them.
    expectAppOnly(await gql(user, IMPORT, { i: { source: 'HR-USER', identities: [{ cpr: CPR }] } }));
    expect(await runsOf('HR-USER')).toEqual([]);
  });

  it('finds the import behind a fragment, an inline fragment or beside an allowed field, and runs none of it', async () => {
    const before = (await gql(app, '{ scimIntegrations { id } }')).body.data?.scimIntegrations.length as number;
    for (const query of [
      `mutation($i: ImportBusinessIdentitiesInput!) { ...M } fragment M on Mutation { importBusinessIdentities(input: $i) { created } }`,
      `mutation($i: ImportBusinessIdentitiesInput!) { ... on Mutation { x: importBusinessIdentities(input: $i) { created } } }`,
      `mutation($i: ImportBusinessIdentitiesInput!) { createScimIntegration(input: { displayName: "Sneaky", clientId: "dddddddd-0000-4000-8000-00000000beef" }) { scimIntegration { id } } importBusinessIdentities(input: $i) { created } }`,
    ]) {
      expectAppOnly(await gql(user, query, { i: { source: 'HR-USER', identities: [person('U-2')] } }));
    }
    expect((await gql(app, '{ scimIntegrations { id } }')).body.data?.scimIntegrations.length).toBe(before);
    expect(await runsOf('HR-USER')).toEqual([]);
  });

  it('refuses a large import of a console user too (a body of that size runs on the bulk thread)', async () => {
    const identities = Array.from({ length: 600 }, (_, i) => person(`U-BULK-${i}`));
    const body = JSON.stringify({ query: IMPORT, variables: { i: { source: 'HR-USER', identities } } });
    expect(body.length).toBeGreaterThan(64 * 1024);
    const res = await call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: user,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expectAppOnly(res, 'importBusinessIdentities');
    expect(await runsOf('HR-USER')).toEqual([]);
  });

  it('lets the application import and associate the same set', async () => {
    const imported = await gql(app, IMPORT, { i: { source: 'HR-USER', identities: [person('U-1')] } });
    expect(imported.body.errors).toBeUndefined();
    expect(imported.body.data?.importBusinessIdentities.created).toBe(1);
    const associated = await gql(app, ASSOCIATE, {
      i: { source: 'HR-USER', associations: [{ externalId: 'U-1', userPrincipalName: 'carol@dev.example.com' }] },
    });
    expect(associated.body.errors).toBeUndefined();
    expect(await runsOf('HR-USER')).toHaveLength(2);
  });
});
