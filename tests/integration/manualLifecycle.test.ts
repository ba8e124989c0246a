/**
 * Manual identities have a lifecycle: updateBusinessIdentity, deactivateBusinessIdentity and
 * deleteBusinessIdentity (Admin only, audited); deactivation starts retention, so the personal numbers
 * and document references are deleted 90 days later, as for every other source.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { MANUAL_SOURCE_KEY } from '../../lib/identities/manualIdentities';
import { purgePartitionExpiredSensitiveData } from '../../lib/identities/retention';

type Gql = {
  // Each test reads the shape of its own operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; problems?: Array<{ field: string }> } }>;
};

const CPR = '0303703333';
const PASSPORT = 'P7654321';
const IDENTITY =
  'id externalId firstName lastName active personalNumberTypes identityDocumentTypes directoryLinkStatus';
const CREATE = `mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { ${IDENTITY} } } }`;
const UPDATE = `mutation($i: UpdateBusinessIdentityInput!) { updateBusinessIdentity(input: $i) { businessIdentity { ${IDENTITY} } } }`;
const DEACTIVATE = `mutation($i: BusinessIdentityRefInput!) { deactivateBusinessIdentity(input: $i) { businessIdentity { ${IDENTITY} } } }`;
const DELETE = 'mutation($i: BusinessIdentityRefInput!) { deleteBusinessIdentity(input: $i) { id } }';

describe('Manual identity lifecycle', () => {
  let stack: TestStack;
  let admin: string;
  const gql = (query: string, variables: Record<string, unknown>, token = admin) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const stored = (id: string) =>
    services().store.collection<IdentityDoc>('identities').read(partitionKey(DEV_TENANT_ID, MANUAL_SOURCE_KEY), id);
  const auditActions = async (id: string) => (await services().audit.list(DEV_TENANT_ID, id)).map((e) => e.action);
  const create = async (externalId: string) => {
    const res = await gql(CREATE, {
      i: {
        externalId,
        affiliationType: 'ENGAGEMENT',
        firstName: 'Kim',
        lastName: 'Vang',
        personalNumbers: [{ type: 'DK_CPR', value: CPR }],
        identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: PASSPORT }],
      },
    });
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.createBusinessIdentity.businessIdentity as { id: string };
  };

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  it('updates the given fields and keeps the others, including the stored numbers; audited', async () => {
    const { id } = await create('M-UPD');
    const res = await gql(UPDATE, { i: { id, lastName: 'Vangsgaard', affiliationType: 'EMPLOYMENT' } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.updateBusinessIdentity.businessIdentity).toMatchObject({
      firstName: 'Kim',
      lastName: 'Vangsgaard',
      active: true,
      personalNumberTypes: ['DK_CPR'],
      identityDocumentTypes: ['PASSPORT'],
    });
    expect(res.text).not.toContain(CPR);
    const doc = await stored(id);
    expect(doc).toMatchObject({ familyName: 'Vangsgaard', affiliationType: 'employment', version: 2 });
    expect(doc?.personalNumbers).toEqual([{ type: 'DkCpr', value: CPR }]);
    // personalNumbers: [] deletes them.
    await gql(UPDATE, { i: { id, personalNumbers: [] } });
    expect(await stored(id)).toMatchObject({ personalNumbers: [], hasSensitive: true });
    expect(await auditActions(id)).toEqual([
      'businessIdentity.createManual',
      'businessIdentity.updateManual',
      'businessIdentity.updateManual',
    ]);
  });

  it('refuses invalid input naming the field, never the value', async () => {
    const { id } = await create('M-BAD');
    const res = await gql(UPDATE, { i: { id, personalNumbers: [{ type: 'DK_CPR', value: '12-NOT-A-CPR-99' }] } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors?.[0]?.extensions?.problems?.[0]?.field).toMatch(/^input\.personalNumbers/);
    expect(res.text).not.toContain('12-NOT-A-CPR-99');
    expect((await stored(id))?.version).toBe(1);
  });

  it('deactivation starts retention: numbers and document references are deleted after 90 days, not before', async () => {
    const { id } = await create('M-RET');
    const res = await gql(DEACTIVATE, { i: { id } });
    expect(res.body.data!.deactivateBusinessIdentity.businessIdentity.active).toBe(false);
    const doc = await stored(id);
    expect(doc?.inactiveSince).toEqual(expect.any(String));
    const since = new Date(doc!.inactiveSince!);
    expect(await auditActions(id)).toContain('businessIdentity.deactivateManual');

    const day89 = new Date(since.getTime() + 89 * 86_400_000);
    await purgePartitionExpiredSensitiveData(
      services().store,
      partitionKey(DEV_TENANT_ID, MANUAL_SOURCE_KEY),
      90,
      100,
      day89,
    );
    expect((await stored(id))?.personalNumbers).toHaveLength(1);

    const day91 = new Date(since.getTime() + 91 * 86_400_000);
    const purged = await purgePartitionExpiredSensitiveData(
      services().store,
      partitionKey(DEV_TENANT_ID, MANUAL_SOURCE_KEY),
      90,
      100,
      day91,
    );
    expect(purged.purged).toBeGreaterThanOrEqual(1);
    expect(await stored(id)).toMatchObject({
      personalNumbers: [],
      identityDocumentReferences: [],
      hasSensitive: false,
    });

    // Reactivating ends the retention period.
    const back = await gql(UPDATE, { i: { id, active: true } });
    expect(back.body.data!.updateBusinessIdentity.businessIdentity.active).toBe(true);
    expect((await stored(id))?.inactiveSince).toBeUndefined();
  });

  it('deletes a Manual identity and releases its linked directory user; audited', async () => {
    const { id } = await create('M-DEL');
    const linked = await gql(
      'mutation($i: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $i) { businessIdentity { directoryLinkStatus linkedUserPrincipalName } } }',
      { i: { source: 'Manual', id, userPrincipalName: 'carol@dev.example.com' } },
    );
    expect(linked.body.data!.linkBusinessIdentity.businessIdentity).toEqual({
      directoryLinkStatus: 'LINKED',
      linkedUserPrincipalName: 'carol@dev.example.com',
    });
    const userId = (await stored(id))!.link.userId!;
    expect(await services().claims.get(DEV_TENANT_ID, userId)).toBeDefined();

    const res = await gql(DELETE, { i: { id } });
    expect(res.body).toEqual({ data: { deleteBusinessIdentity: { id } } });
    expect(await stored(id)).toBeUndefined();
    expect(await services().claims.get(DEV_TENANT_ID, userId)).toBeUndefined();
    expect(await auditActions(id)).toContain('businessIdentity.deleteManual');
    const again = await gql(DELETE, { i: { id } });
    expect(again.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('changes only Manual identities: an identity of another source is not found', async () => {
    const imported = await gql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      {
        i: {
          source: 'HR-life',
          identities: [{ externalId: 'X-1', affiliationType: 'OTHER', firstName: 'A', lastName: 'B' }],
        },
      },
    );
    expect(imported.body.errors).toBeUndefined();
    const page = await gql('query { businessIdentities(source: "HR-life") { nodes { id } } }', {});
    const otherId = page.body.data!.businessIdentities.nodes[0].id as string;
    for (const [query, input] of [
      [UPDATE, { id: otherId, lastName: 'C' }],
      [DEACTIVATE, { id: otherId }],
      [DELETE, { id: otherId }],
    ] as const) {
      const res = await gql(query, { i: input });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect(res.body.errors?.[0]?.message).not.toContain(otherId);
    }
  });

  it("records a console user's change under the user's name from the token, as it was then", async () => {
    const { id } = await create('M-NAMED');
    const user = (name: string) =>
      stack.idp.mintUserToken({
        tenantId: DEV_TENANT_ID,
        clientId: DEV_CLIENTS.admin.clientId,
        audience: SERVICE_APP_ID_URI,
        scp: 'Console.Admin',
        roles: ['Admin'],
        upn: 'ada@dev.example.com',
        name,
      });
    expect((await gql(UPDATE, { i: { id, lastName: 'Lund' } }, user('Ada Lovelace'))).body.errors).toBeUndefined();
    // Renamed later: the earlier change keeps the name it was made under.
    expect((await gql(UPDATE, { i: { id, lastName: 'Berg' } }, user('Ada Byron'))).body.errors).toBeUndefined();
    const read = await gql(
      `query($id: ID!) { businessIdentity(source: "Manual", id: $id) { history { operation actor { kind id displayName } } } }
       `,
      { id },
    );
    expect(read.body.errors).toBeUndefined();
    const history = read.body.data!.businessIdentity.history as Array<{
      operation: string;
      actor: Record<string, unknown>;
    }>;
    expect(history.slice(0, 2).map((h) => h.actor.displayName)).toEqual(['Ada Byron', 'Ada Lovelace']);
    expect(history[0]?.actor.kind).toBe('ADMINISTRATOR');
    expect(history[0]?.actor.id).toMatch(/^[0-9a-f-]{36}$/);
    const activity = await gql(
      'query($f: ActivityFilter) { activity(source: "Manual", filter: $f) { nodes { operation actor { displayName } } } }',
      { f: { externalId: 'M-NAMED' } },
    );
    expect(activity.body.data!.activity.nodes.slice(0, 2)).toEqual([
      { operation: 'ADMIN_UPDATE', actor: { displayName: 'Ada Byron' } },
      { operation: 'ADMIN_UPDATE', actor: { displayName: 'Ada Lovelace' } },
    ]);
  });

  it('refuses callers that are not administrators', async () => {
    const { id } = await create('M-AUTH');
    const reader = stack.idp.mintUserToken({
      tenantId: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      scp: 'Console.Admin',
      roles: [],
    });
    for (const token of [await stack.token(DEV_CLIENTS.noRole), reader]) {
      for (const [query, input] of [
        [UPDATE, { id, lastName: 'X' }],
        [DEACTIVATE, { id }],
        [DELETE, { id }],
      ] as const) {
        const res = await gql(query, { i: input }, token);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
      }
    }
    expect((await stored(id))?.version).toBe(1);
  });
});
