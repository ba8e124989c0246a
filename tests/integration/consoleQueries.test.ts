/**
 * The GraphQL additions the administrator console uses: sources with counts per link status, one identity with
 * its link history and the holder of a conflict, search by UPN, and the linked user's UPN on custom sources.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { runOps } from '../../scripts/ops';
import { customSourceKey } from '../../lib/imports/importer';

type Gql = {
  // Each test reads the shape of its own operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

describe('GraphQL for the console', () => {
  let stack: TestStack;
  let admin: string;
  let integrationId: string;
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    expect(res.body.errors).toBeUndefined();
    return res.body.data!;
  };

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await stack.token(DEV_CLIENTS.admin);
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    await gql('mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }', {
      i: {
        source: 'HR',
        identities: [
          { externalId: 'A', affiliationType: 'EMPLOYMENT', firstName: 'Al', lastName: 'One' },
          { externalId: 'B', affiliationType: 'EMPLOYMENT', firstName: 'Bo', lastName: 'Two' },
        ],
      },
    });
  });
  afterAll(async () => stack?.stop());

  const search = async (source: string, text: string): Promise<Array<{ externalId: string }>> =>
    (
      await gql(
        'query($s: String!, $f: BusinessIdentityFilter) { businessIdentities(source: $s, filter: $f) { nodes { externalId } } }',
        {
          s: source,
          f: { search: text },
        },
      )
    ).businessIdentities.nodes;
  const identities = () => services().store.collection<IdentityDoc>('identities');

  it("gives a custom-source identity the linked user's UPN after an association, and finds it by that UPN", async () => {
    const associated = await gql(
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }',
      { i: { source: 'HR', associations: [{ externalId: 'A', userPrincipalName: 'alice@dev.example.com' }] } },
    );
    expect(associated.associateBusinessIdentities.associated).toBe(1);
    const found = await gql(
      'query($f: BusinessIdentityFilter) { businessIdentities(source: "HR", filter: $f) { nodes { externalId directoryLinkStatus linkedUserPrincipalName } } }',
      { f: { search: 'ALICE@dev.example.com' } },
    );
    expect(found.businessIdentities.nodes).toEqual([
      { externalId: 'A', directoryLinkStatus: 'LINKED', linkedUserPrincipalName: 'alice@dev.example.com' },
    ]);
    const byExternalId = await gql(
      '{ businessIdentities(source: "HR", filter: { search: "B" }) { nodes { externalId } } }',
    );
    expect(byExternalId.businessIdentities.nodes).toEqual([{ externalId: 'B' }]);
  });

  it('lists the sources with identity counts per link status', async () => {
    const { sources } = await gql(
      '{ sources { name kind displayName counts { total linked pending conflict notAsserted } } }',
    );
    expect(sources).toEqual(
      expect.arrayContaining([
        {
          name: 'HR',
          kind: 'CUSTOM',
          displayName: 'HR',
          counts: { total: 2, linked: 1, pending: 0, conflict: 0, notAsserted: 1 },
        },
        expect.objectContaining({ name: integrationId, kind: 'SCIM', displayName: 'Dev SCIM' }),
        expect.objectContaining({ name: 'Manual', kind: 'MANUAL' }),
      ]),
    );
  });

  it('shows one identity with its link history, and for a conflict the identity that holds the user', async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const holder = await client.create(
      userBody({ externalId: 'S-HOLD' }, { directoryUserPrincipalName: 'bob@dev.example.com' }),
    );
    const wants = await client.create(
      userBody({ externalId: 'S-WANT' }, { directoryUserPrincipalName: 'bob@dev.example.com' }),
    );
    const ONE =
      'query($s: String!, $id: ID!) { businessIdentity(source: $s, id: $id) { externalId directoryLinkStatus linkedUserPrincipalName nextCheckAt conflictHeldBy { source id externalId } linkHistory { action actorKind status userId } } }';
    const conflict = (await gql(ONE, { s: integrationId, id: wants.body.id })).businessIdentity;
    expect(conflict).toMatchObject({
      externalId: 'S-WANT',
      directoryLinkStatus: 'CONFLICT',
      conflictHeldBy: { source: integrationId, id: holder.body.id, externalId: 'S-HOLD' },
    });
    const held = (await gql(ONE, { s: integrationId, id: holder.body.id })).businessIdentity;
    expect(held).toMatchObject({ directoryLinkStatus: 'LINKED', linkedUserPrincipalName: 'bob@dev.example.com' });
    // Asserted links made by a look-up are not audited (the audit log has administrator and association changes).
    expect(held.linkHistory).toEqual([]);

    await gql(
      'mutation($i: UnlinkBusinessIdentityInput!) { unlinkBusinessIdentity(input: $i) { businessIdentity { id } } }',
      {
        i: { source: integrationId, id: holder.body.id },
      },
    );
    const after = (await gql(ONE, { s: integrationId, id: holder.body.id })).businessIdentity;
    expect(after.linkHistory.at(-1)).toMatchObject({
      action: 'link.unlinked',
      actorKind: 'app',
      status: 'notAsserted',
    });
    expect((await gql(ONE, { s: integrationId, id: 'no-such-id' })).businessIdentity).toBeNull();
  });

  it('finds an identity by its asserted UPN written in another case, by the UPN keys stored with it', async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const created = await client.create(
      userBody({ externalId: 'S-ASSERT' }, { directoryUserPrincipalName: 'Kai.Waiting@Dev.Example.com' }),
    );
    expect(created.status).toBe(201);
    const stored = await identities().read(partitionKey(DEV_TENANT_ID, integrationId), created.body.id);
    expect(stored?.upnKeys).toEqual(['kai.waiting@dev.example.com']);
    for (const text of ['kai.waiting@dev.example.com', 'KAI.WAITING@DEV.EXAMPLE.COM', 'Kai.Waiting@Dev.Example.com'])
      expect(await search(integrationId, text)).toEqual([{ externalId: 'S-ASSERT' }]);
    // Only A-Z fold: the Kelvin sign is not a K.
    expect(await search(integrationId, '\u212Aai.waiting@dev.example.com')).toEqual([]);
  });

  it('finds an identity stored before UPN keys existed by its UPN as stored, and in any case after the backfill', async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const created = await client.create(
      userBody({ externalId: 'S-OLD' }, { directoryUserPrincipalName: 'Carol@Dev.Example.COM' }),
    );
    expect(created.status).toBe(201);
    const pk = partitionKey(DEV_TENANT_ID, integrationId);
    const current = (await identities().read(pk, created.body.id))!;
    expect(current.link.status).toBe('linked');
    // As an earlier version of the service stored it: no upnKeys.
    const { _etag, upnKeys: _keys, ...older } = current;
    await identities().replace(older, _etag);

    expect(await search(integrationId, 'carol@dev.example.com')).toEqual([]);
    expect(await search(integrationId, 'Carol@Dev.Example.COM')).toEqual([{ externalId: 'S-OLD' }]);

    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const run = await runOps(['backfill-upn-keys', DEV_TENANT_ID], env);
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(/^read \d+ identities, gave 1 their UPN keys$/);
    expect(run.out[1]).toBe('done: every identity has its UPN keys');

    const after = (await identities().read(pk, created.body.id))!;
    expect(after.upnKeys).toEqual(['carol@dev.example.com']);
    // Not a change of the resource: SCIM clients see the same version and lastModified.
    expect({ version: after.version, lastModified: after.lastModified }).toEqual({
      version: current.version,
      lastModified: current.lastModified,
    });
    expect(await search(integrationId, 'carol@dev.example.com')).toEqual([{ externalId: 'S-OLD' }]);
    expect(await search(integrationId, 'CAROL@DEV.EXAMPLE.COM')).toEqual([{ externalId: 'S-OLD' }]);

    const again = await runOps(['backfill-upn-keys', DEV_TENANT_ID], env);
    expect(again.out[0]).toMatch(/, gave 0 their UPN keys$/);
  });

  it('stores the keys of a linked UPN with the identity the association linked', async () => {
    const page = await gql('{ businessIdentities(source: "HR", filter: { externalId: "A" }) { nodes { id } } }');
    const id = page.businessIdentities.nodes[0].id as string;
    const stored = await identities().read(partitionKey(DEV_TENANT_ID, customSourceKey('HR')), id);
    expect(stored?.upnKeys).toEqual(['alice@dev.example.com']);
  });
});
