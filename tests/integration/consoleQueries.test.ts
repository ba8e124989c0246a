/**
 * The GraphQL additions the administrator console uses: sources with counts per link status, one identity with
 * its link history and the holder of a conflict, search by UPN, and the linked user's UPN on custom sources.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

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
});
