import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};
type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
type IntrospectedType = { name: string; kind: string; fields: Array<{ name: string; type: TypeRef }> | null };

// Sensitive values every source below stores; none may ever appear in a GraphQL response.
const CPR = '0101901234';
const CPR_DASHED = '010190-1234';
const PASSPORT = 'P1234567';
const ID_CARD = 'DOC-SECRET-7';
const SECRETS = [CPR, CPR_DASHED, PASSPORT, ID_CARD];

describe('GraphQL never returns personal numbers or document numbers (spec §2.1 rule 1)', () => {
  let stack: TestStack;
  let adminToken: string;
  let integrationId: string;
  let scimUserId: string;
  let allFields: string;
  const gql = (query: string, variables?: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: adminToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const expectNoSecret = (text: string) => {
    for (const s of SECRETS) expect(text).not.toContain(s);
  };

  beforeAll(async () => {
    stack = await startTestStack();
    adminToken = await stack.token(DEV_CLIENTS.admin);
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    const created = await scim(stack, await stack.token(DEV_CLIENTS.scim)).create(
      userBody(
        {},
        {
          personalNumbers: [{ type: 'DkCpr', value: CPR_DASHED }],
          identityDocumentReferences: [
            { type: 'Passport', issuingCountry: 'DK', documentNumber: PASSPORT },
            { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: ID_CARD },
          ],
        },
      ),
    );
    expect(created.status).toBe(201);
    scimUserId = created.body.id;
    const imported = await gql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      {
        i: {
          source: 'HR-privacy',
          identities: [
            {
              externalId: 'X1',
              affiliationType: 'EMPLOYMENT',
              firstName: 'Ada',
              lastName: 'Lund',
              personalNumbers: [{ type: 'DK_CPR', value: CPR }],
              identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: PASSPORT }],
            },
          ],
        },
      },
    );
    expect(imported.body.data).toEqual({ importBusinessIdentities: { created: 1 } });

    // Every field of BusinessIdentity, as the schema declares it today (so a field added later is covered too).
    const schema = await gql(
      '{ __type(name: "BusinessIdentity") { fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }',
    );
    const fields = (schema.body.data?.__type as IntrospectedType).fields ?? [];
    const leafKinds = new Set(['SCALAR', 'ENUM']);
    const leafOf = (t: TypeRef): TypeRef => (t.ofType ? leafOf(t.ofType) : t);
    // The console's detail fields are objects (who holds a conflict, link history, history of changes); each is selected whole.
    const objects = fields.filter((f) => !leafKinds.has(leafOf(f.type).kind));
    expect(objects.map((f) => `${f.name}: ${leafOf(f.type).name}`)).toEqual([
      'conflictHeldBy: BusinessIdentityRef',
      'linkHistory: LinkEvent',
      'history: IdentityChange',
    ]);
    const selectionOf = async (typeName: string): Promise<string> => {
      const inner = await gql(
        `{ __type(name: "${typeName}") { fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }`,
      );
      const innerFields = (inner.body.data?.__type as IntrospectedType).fields ?? [];
      const parts: string[] = [];
      for (const g of innerFields)
        parts.push(
          leafKinds.has(leafOf(g.type).kind) ? g.name : `${g.name} { ${await selectionOf(leafOf(g.type).name ?? '')} }`,
        );
      return parts.join(' ');
    };
    const selections = fields.filter((f) => leafKinds.has(leafOf(f.type).kind)).map((f) => f.name);
    for (const f of objects) selections.push(`${f.name} { ${await selectionOf(leafOf(f.type).name ?? '')} }`);
    allFields = selections.join(' ');
  });
  afterAll(async () => stack?.stop());

  it('no output type of the schema has a field that could carry a number', async () => {
    const res = await gql('{ __schema { types { name kind fields { name } } } }');
    const types = (res.body.data?.__schema as { types: IntrospectedType[] }).types.filter(
      (t) => t.kind === 'OBJECT' && !t.name.startsWith('__'),
    );
    const fieldNames = types.flatMap((t) => (t.fields ?? []).map((f) => `${t.name}.${f.name}`));
    expect(
      fieldNames.filter((f) => /personalNumbers$|identityDocumentReferences$|documentNumber|\.value$/i.test(f)),
    ).toEqual([]);
    expect(fieldNames).toEqual(
      expect.arrayContaining(['BusinessIdentity.personalNumberTypes', 'BusinessIdentity.identityDocumentTypes']),
    );
  });

  it('lists a SCIM integration source with every field: kinds only, no values', async () => {
    const res = await gql(`query($s: String!) { businessIdentities(source: $s) { nodes { ${allFields} } } }`, {
      s: integrationId,
    });
    expect(res.body.errors).toBeUndefined();
    const node = (res.body.data?.businessIdentities as { nodes: Array<Record<string, unknown>> }).nodes.find(
      (n) => n.id === scimUserId,
    );
    expect(node).toMatchObject({
      personalNumberTypes: ['DK_CPR'],
      identityDocumentTypes: ['PASSPORT', 'IDENTITY_CARD'],
    });
    expectNoSecret(res.text);
  });

  it('lists an imported source with every field: kinds only, no values', async () => {
    const res = await gql(`{ businessIdentities(source: "HR-privacy") { nodes { ${allFields} } } }`);
    expect((res.body.data?.businessIdentities as { nodes: unknown[] }).nodes).toEqual([
      expect.objectContaining({ personalNumberTypes: ['DK_CPR'], identityDocumentTypes: ['PASSPORT'] }),
    ]);
    expectNoSecret(res.text);
  });

  it('shows one identity with every field, its history naming personalNumbers and never a value', async () => {
    const res = await gql(`query($s: String!, $id: ID!) { businessIdentity(source: $s, id: $id) { ${allFields} } }`, {
      s: integrationId,
      id: scimUserId,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.businessIdentity).toMatchObject({
      history: [
        expect.objectContaining({
          operation: 'CREATE',
          changedAttributes: expect.arrayContaining(['personalNumbers', 'identityDocumentReferences']),
        }),
      ],
    });
    expectNoSecret(res.text);
  });

  it('refuses the former value selections without echoing anything stored', async () => {
    for (const selection of [
      'personalNumbers { type value }',
      'identityDocumentReferences { type issuingCountry documentNumber }',
    ]) {
      for (const source of [integrationId, 'HR-privacy']) {
        const res = await gql(`query($s: String!) { businessIdentities(source: $s) { nodes { id ${selection} } } }`, {
          s: source,
        });
        expect(res.status).toBe(200);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(res.body.data).toBeUndefined();
        expectNoSecret(res.text);
      }
    }
  });

  it('the payloads of createBusinessIdentity, linkBusinessIdentity and unlinkBusinessIdentity carry kinds only', async () => {
    const created = await gql(
      `mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { ${allFields} } } }`,
      {
        i: {
          externalId: 'M1',
          affiliationType: 'OTHER',
          firstName: 'Mo',
          lastName: 'Ek',
          personalNumbers: [{ type: 'DK_CPR', value: CPR }],
          identityDocumentReferences: [{ type: 'IDENTITY_CARD', issuingCountry: 'DK', documentNumber: ID_CARD }],
        },
      },
    );
    expect((created.body.data?.createBusinessIdentity as { businessIdentity: unknown }).businessIdentity).toMatchObject(
      { personalNumberTypes: ['DK_CPR'], identityDocumentTypes: ['IDENTITY_CARD'] },
    );
    expectNoSecret(created.text);

    const linked = await gql(
      `mutation($s: String!, $id: ID!) { linkBusinessIdentity(input: { source: $s, id: $id, userPrincipalName: "carol@dev.example.com" }) { businessIdentity { ${allFields} } } }`,
      { s: integrationId, id: scimUserId },
    );
    expect((linked.body.data?.linkBusinessIdentity as { businessIdentity: unknown }).businessIdentity).toMatchObject({
      directoryLinkStatus: 'LINKED',
      personalNumberTypes: ['DK_CPR'],
    });
    expectNoSecret(linked.text);

    const unlinked = await gql(
      `mutation($s: String!, $id: ID!) { unlinkBusinessIdentity(input: { source: $s, id: $id }) { businessIdentity { ${allFields} } } }`,
      { s: integrationId, id: scimUserId },
    );
    expect(
      (unlinked.body.data?.unlinkBusinessIdentity as { businessIdentity: unknown }).businessIdentity,
    ).toMatchObject({ directoryLinkStatus: 'NOT_ASSERTED', identityDocumentTypes: ['PASSPORT', 'IDENTITY_CARD'] });
    expectNoSecret(unlinked.text);
  });

  it('the creating SCIM integration still reads its values back over SCIM', async () => {
    const res = await scim(stack, await stack.token(DEV_CLIENTS.scim)).get(scimUserId);
    expect(res.text).toContain(CPR);
    expect(res.text).toContain(PASSPORT);
  });
});
