/** importBusinessIdentities: dryRun counts without writing (recorded as a run); maxDeletedRatio guards one request. */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';
import { storeCounters } from '../../lib/store/metrics';

type Gql = {
  data?: { importBusinessIdentities: Record<string, number | boolean | string> } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; problems?: Array<{ field: string }> } }>;
};
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged dryRun runId } }';
const person = (n: number, firstName = 'F') => ({
  externalId: `D${n}`,
  affiliationType: 'OTHER',
  firstName,
  lastName: 'L',
});

describe('import dry run and the per-request delete guard', () => {
  let stack: TestStack;
  const send = async (source: string, identities: unknown[], extra: Record<string, unknown> = {}) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: IMPORT, variables: { i: { source, identities, ...extra } } }),
    });
  const range = (n: number, firstName?: string) => Array.from({ length: n }, (_, i) => person(i, firstName));
  const stored = async (source: string) =>
    (
      await services()
        .store.collection<{ id: string; pk: string; givenName: string }>('identities')
        .queryPartitionPage(partitionKey(DEV_TENANT_ID, customSourceKey(source)), 'SELECT *', 'true', [], {
          maxItemCount: 100,
        })
    ).items;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('a dry run answers the counts the import would write, writes no identity, and is recorded as a dry run', async () => {
    const first = await send('Dry', range(5), { dryRun: true });
    expect(first.body.data?.importBusinessIdentities).toMatchObject({
      created: 5,
      updated: 0,
      deleted: 0,
      unchanged: 0,
      dryRun: true,
    });
    expect(await stored('Dry')).toHaveLength(0);

    expect((await send('Dry', range(5))).body.data?.importBusinessIdentities).toMatchObject({
      created: 5,
      dryRun: false,
    });
    const snapshot = async () => (await stored('Dry')).map((d) => `${d.id}:${d.givenName}`).sort();
    const before = await snapshot();
    const writesBefore = storeCounters();
    const changed = [...range(3, 'Changed'), person(7)];
    const planned = await send('Dry', changed, { dryRun: true });
    expect(planned.body.data?.importBusinessIdentities).toMatchObject({
      created: 1,
      updated: 3,
      deleted: 2,
      unchanged: 0,
      dryRun: true,
    });
    expect(storeCounters().identityWrites).toBe(writesBefore.identityWrites);
    expect(await snapshot()).toEqual(before);

    const runId = String(planned.body.data?.importBusinessIdentities.runId);
    expect(await services().runs.get(DEV_TENANT_ID, runId)).toMatchObject({
      status: 'completed',
      dryRun: true,
      importCounts: { created: 1, updated: 3, deleted: 2, unchanged: 0 },
    });
  });

  it('refuses a request deleting more than its maxDeletedRatio with IMPORT_DELETE_LIMIT_EXCEEDED, writing nothing; without the input it deletes', async () => {
    expect((await send('Guard', range(10))).body.data?.importBusinessIdentities.created).toBe(10);
    const refused = await send('Guard', range(7), { maxDeletedRatio: 0.2 });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'IMPORT_DELETE_LIMIT_EXCEEDED',
      wouldDelete: 3,
      held: 10,
    });
    expect(refused.body.errors?.[0]?.message).toMatch(/maxDeletedRatio/);
    expect(await stored('Guard')).toHaveLength(10);
    // A dry run is guarded alike, so the client learns before writing.
    expect(
      (await send('Guard', range(7), { maxDeletedRatio: 0.2, dryRun: true })).body.errors?.[0]?.extensions?.code,
    ).toBe('IMPORT_DELETE_LIMIT_EXCEEDED');
    expect((await send('Guard', range(8), { maxDeletedRatio: 0.2 })).body.data?.importBusinessIdentities.deleted).toBe(
      2,
    );
    expect((await send('Guard', range(4))).body.data?.importBusinessIdentities.deleted).toBe(4);
  });

  it('refuses a maxDeletedRatio outside 0..1 as BAD_USER_INPUT naming the field', async () => {
    const r = await send('Guard', range(4), { maxDeletedRatio: 1.5 });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(r.body.errors?.[0]?.extensions?.problems?.[0]?.field).toBe('input.maxDeletedRatio');
    expect(r.text).not.toContain('1.5');
  });
});
