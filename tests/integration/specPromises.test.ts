/**
 * Promises of spec §4.1 and the run history, over HTTP: a SCIM PATCH that sets a read-only attribute
 * to its current value is not a change; an import or association refused at GraphQL input coercion
 * still records a REJECTED run in importRuns.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';
import { REFUSED_AT_COERCION } from '../../lib/graphql/rejectedRuns';

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};
type Run = { operation: string; status: string; submitted: number; failure: { code: string; message: string } | null };

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('spec promises: read-only PATCH to the same value, refused runs recorded', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>, token?: string) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: token ?? (await stack.token(DEV_CLIENTS.admin)),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const runsOf = async (source: string): Promise<Run[]> => {
    const res = await gql(
      'query($s: String!) { importRuns(source: $s) { operation status submitted failure { code message } } }',
      { s: source },
    );
    expect(res.body.errors).toBeUndefined();
    return (res.body.data?.importRuns ?? []) as Run[];
  };
  const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }';
  const ASSOCIATE =
    'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }';

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  describe('SCIM PATCH of a read-only attribute', () => {
    it('to its current value: 200 and no new version; to another value: 400 mutability without the value', async () => {
      const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
      const created = await api.create(userBody());
      expect(created.status).toBe(201);
      const { id, meta } = created.body;
      const same = await api.patch(id, {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'id', value: id },
          { op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'notAsserted' },
          { op: 'replace', path: 'meta.version', value: meta.version },
        ],
      });
      expect(same.status).toBe(200);
      expect(same.body.meta.version).toBe(meta.version);
      expect(same.body.meta.lastModified).toBe(meta.lastModified);

      const withChange = await api.patch(id, {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'id', value: id },
          { op: 'replace', path: 'name.givenName', value: 'Eva' },
        ],
      });
      expect(withChange.status).toBe(200);
      expect(withChange.body.name.givenName).toBe('Eva');

      const other = await api.patch(id, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'linkedSECRET' }],
      });
      expect(other.status).toBe(400);
      expect(other.body.scimType).toBe('mutability');
      expect(other.text).not.toContain('SECRET');
    });
  });

  describe('a request refused at GraphQL input coercion leaves a REJECTED run', () => {
    it('an import with an unknown enum value in its variables', async () => {
      const res = await gql(IMPORT, {
        i: {
          source: 'CoercedEnum',
          identities: [
            { externalId: 'A', affiliationType: 'EMPLOYMENT', firstName: 'F', lastName: 'L' },
            { externalId: 'B', affiliationType: 'NOT_AN_AFFILIATION', firstName: 'F', lastName: 'L' },
          ],
        },
      });
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(res.body.data).toBeUndefined();
      const runs = await runsOf('CoercedEnum');
      expect(runs).toEqual([
        {
          operation: 'IMPORT',
          status: 'REJECTED',
          submitted: 2,
          failure: { code: 'BAD_USER_INPUT', message: REFUSED_AT_COERCION },
        },
      ]);
    });

    it('an import with a null name, sent as a literal in the document', async () => {
      const res = await gql(
        'mutation { importBusinessIdentities(input: { source: "CoercedNull", identities: [{ externalId: "A", affiliationType: EMPLOYMENT, firstName: "F", lastName: null }] }) { created } }',
        {},
      );
      expect(res.body.errors?.length).toBeGreaterThan(0);
      const runs = await runsOf('CoercedNull');
      expect(runs).toMatchObject([{ operation: 'IMPORT', status: 'REJECTED', submitted: 1 }]);
    });

    it('an association with a null UPN in its variables', async () => {
      const res = await gql(ASSOCIATE, {
        i: { source: 'CoercedPairs', associations: [{ externalId: 'A', userPrincipalName: null }] },
      });
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(await runsOf('CoercedPairs')).toMatchObject([
        { operation: 'ASSOCIATION', status: 'REJECTED', submitted: 1 },
      ]);
    });

    it('nothing is recorded for a caller that is not an administrator, nor without a valid source name', async () => {
      const notAdmin = await gql(
        IMPORT,
        { i: { source: 'CoercedNoAdmin', identities: [{ externalId: 'A', affiliationType: 'BAD' }] } },
        await stack.token(DEV_CLIENTS.scim),
      );
      expect(notAdmin.body.errors?.length).toBeGreaterThan(0);
      expect(await runsOf('CoercedNoAdmin')).toEqual([]);
      const noSource = await gql(IMPORT, { i: { source: null, identities: [] } });
      expect(noSource.body.errors?.length).toBeGreaterThan(0);
    });
  });
});
