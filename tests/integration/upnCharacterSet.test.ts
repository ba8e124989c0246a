/**
 * An asserted UPN must be in Entra's character set (A-Z a-z 0-9 ' . - _ ! # ^ ~), wherever it comes in,
 * and UPNs are compared folding A-Z only: a look-alike such as the Kelvin sign (U+212A, which toLowerCase
 * turns into "k") is refused, or never linked to the ASCII user.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, expectScimError, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services, workDeps } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { MANUAL_SOURCE_KEY } from '../../lib/identities/manualIdentities';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { runBackgroundWork } from '../../lib/background/runWork';

const KELVIN_KARL = '\u212Aarl@dev.example.com';
const ASCII_KARL = 'karl@dev.example.com';
/** What a response or log must not hold: the value as sent, JSON-escaped or not. */
const SENT = ['arl@dev.example.com', '\\u212a', '\\u212A', '\u212A'];

type Gql = {
  // Each test reads the shape of its own operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; problems?: Array<{ field: string }> } }>;
};

describe("UPNs: Entra's character set, ASCII case folding only", () => {
  let stack: TestStack;
  let karlId: string;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(async () => {
    stack = await startTestStack();
    karlId = stack.directory.createUser(DEV_TENANT_ID, ASCII_KARL).id;
  });
  afterAll(async () => stack?.stop());

  describe('SCIM', () => {
    it('POST with a Kelvin-sign directoryUserPrincipalName: 400 invalidValue naming the attribute, never the value; nothing linked', async () => {
      const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
      const res = await api.create(userBody({}, { directoryUserPrincipalName: KELVIN_KARL }));
      expectScimError(res, 400, 'invalidValue', ...SENT);
      expect(res.body.detail).toContain('directoryUserPrincipalName');
      expect(await services().claims.get(DEV_TENANT_ID, karlId)).toBeUndefined();
    });

    it.each([
      ['a plus sign', 'first+tag@dev.example.com'],
      ['a letter outside ASCII', '\u00e6nne@dev.example.com'],
      ['a dot right before the @', 'anna.@dev.example.com'],
    ])('POST with %s in the UPN: 400 invalidValue without the value', async (_what, upn) => {
      const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
      const res = await api.create(userBody({}, { directoryUserPrincipalName: upn }));
      expectScimError(res, 400, 'invalidValue', upn, upn.split('@')[0] ?? upn);
      expect(res.body.detail).toContain('directoryUserPrincipalName');
    });

    it('PUT and PATCH with a Kelvin-sign UPN: 400 invalidValue; the User keeps its link', async () => {
      const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
      const created = await api.create(userBody({}, { directoryUserPrincipalName: 'alice@dev.example.com' }));
      expect(created.status).toBe(201);
      const put = await api.put(created.body.id, {
        ...userBody({ externalId: created.body.externalId, userName: created.body.userName }),
        [EXT]: { affiliationType: 'employment', directoryUserPrincipalName: KELVIN_KARL },
      });
      expectScimError(put, 400, 'invalidValue', ...SENT);
      const patch = await api.patch(created.body.id, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: `${EXT}:directoryUserPrincipalName`, value: KELVIN_KARL }],
      });
      expectScimError(patch, 400, 'invalidValue', ...SENT);
      expect(patch.body.detail).toContain('directoryUserPrincipalName');
      const after = await api.get(created.body.id);
      expect(after.body[EXT]).toMatchObject({
        directoryUserPrincipalName: 'alice@dev.example.com',
        directoryLinkStatus: 'linked',
      });
      await api.delete(created.body.id);
    });

    it('an ASCII UPN in another case is the same UPN: linked', async () => {
      const api = scim(stack, await stack.token(DEV_CLIENTS.scim2));
      const res = await api.create(userBody({}, { directoryUserPrincipalName: 'KARL@Dev.Example.COM' }));
      expect(res.status).toBe(201);
      expect(res.body[EXT]).toMatchObject({ directoryLinkStatus: 'linked', directoryLinkedUserId: karlId });
      await api.delete(res.body.id);
    });
  });

  describe('GraphQL', () => {
    it('associateBusinessIdentities: a Kelvin-sign UPN is listed in unknownUserPrincipalNames and links nothing; the other pairs go on', async () => {
      const source = 'UpnSet';
      const imported = await gql(
        'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
        {
          i: {
            source,
            identities: ['U1', 'U2'].map((externalId) => ({
              externalId,
              affiliationType: 'EMPLOYMENT',
              firstName: 'F',
              lastName: 'L',
            })),
          },
        },
      );
      expect(imported.body.errors).toBeUndefined();
      const res = await gql(
        'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unknownUserPrincipalNames conflictingUserPrincipalNames } }',
        {
          i: {
            source,
            associations: [
              { externalId: 'U1', userPrincipalName: KELVIN_KARL },
              { externalId: 'U2', userPrincipalName: 'bob@dev.example.com' },
            ],
          },
        },
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data?.associateBusinessIdentities).toEqual({
        associated: 1,
        unknownUserPrincipalNames: [KELVIN_KARL],
        conflictingUserPrincipalNames: [],
      });
      expect(await services().claims.get(DEV_TENANT_ID, karlId)).toBeUndefined();
    });

    it('linkBusinessIdentity by a Kelvin-sign UPN: BAD_USER_INPUT naming input.userPrincipalName, never the value; nothing asked of the directory', async () => {
      const created = await gql(
        'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id } } }',
        { i: { externalId: 'M-UPN', affiliationType: 'ENGAGEMENT', firstName: 'Kim', lastName: 'Vang' } },
      );
      const id = created.body.data!.createBusinessIdentity.businessIdentity.id as string;
      const before = stack.directory.stats().requestsByTenant[DEV_TENANT_ID] ?? 0;
      const res = await gql(
        'mutation($i: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $i) { businessIdentity { directoryLinkStatus } } }',
        { i: { source: 'Manual', id, userPrincipalName: KELVIN_KARL } },
      );
      expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
      expect(res.body.errors?.[0]?.extensions?.problems?.map((p) => p.field)).toEqual(['input.userPrincipalName']);
      for (const s of SENT) expect(res.text).not.toContain(s);
      expect(stack.directory.stats().requestsByTenant[DEV_TENANT_ID] ?? 0).toBe(before);
      const stored = await services()
        .store.collection<IdentityDoc>('identities')
        .read(partitionKey(DEV_TENANT_ID, MANUAL_SOURCE_KEY), id);
      expect(stored?.link.status).toBe('notAsserted');
    });
  });

  describe('change tracking', () => {
    it('an identity stored asserting a Kelvin-sign UPN (before the character set was checked) is never linked to karl', async () => {
      const tenantId = 'f0000001-0000-4000-8000-00000000000f';
      await services().tenants.register(tenantId);
      stack.idp.addClient({
        tenantId,
        clientId: SERVICE_GRAPH_CLIENT.clientId,
        secret: SERVICE_GRAPH_CLIENT.secret,
        roles: [],
      });
      // As the service stored it before: the waited-for key made with toLowerCase, which folds the Kelvin sign to k.
      const doc = await services().identities.create(
        newIdentityDoc({
          id: uuid7(),
          tenantId,
          sourceKind: 'custom',
          sourceKey: 'old-data',
          attributes: {
            externalId: 'kelvin-1',
            userName: 'kelvin-1',
            givenName: 'K',
            familyName: 'L',
            active: true,
            affiliationType: 'employment',
            personalNumbers: [],
            identityDocumentReferences: [],
            directoryUserPrincipalName: KELVIN_KARL,
          },
          now: new Date().toISOString(),
          link: { status: 'pending', lookedUpUpn: KELVIN_KARL, upnKey: KELVIN_KARL.toLowerCase() },
        }),
      );
      const karl = stack.directory.createUser(tenantId, ASCII_KARL);
      // The first cycle pages the whole directory (karl is a change) and sweeps the pending identities.
      for (let i = 0; i < 2; i++) {
        const outcome = await runBackgroundWork(workDeps(services()), { kind: 'pendingLinks', tenantId }, new Date());
        expect('done' in outcome && outcome.done).toBe('pendingLinks');
      }
      const stored = await services().store.collection<IdentityDoc>('identities').read(doc.pk, doc.id);
      expect(stored?.link.status).toBe('pending');
      expect(stored?.link.userId).toBeUndefined();
      expect(await services().claims.get(tenantId, karl.id)).toBeUndefined();
    });
  });
});
