import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';
import { RunHistory, RUN_LIMIT_MS } from '../../lib/imports/runHistory';
import { acquireImportLease } from '../../lib/imports/importLease';
import { customSourceKey } from '../../lib/imports/importer';
import { partitionKey } from '../../lib/identities/model';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: { code?: string; runId?: string } }> };
type Counts = { created: number; updated: number; deleted: number; unchanged: number };
type Run = {
  id: string;
  operation: string;
  source: string;
  clientId: string;
  correlationId: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  submitted: number;
  importCounts: Counts | null;
  associationCounts: Record<string, number> | null;
  failure: { code: string; message: string } | null;
};

const RUN_FIELDS =
  'id operation source clientId correlationId status startedAt endedAt submitted importCounts { created updated deleted unchanged } associationCounts { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames notDone } failure { code message }';
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames runId } }';
const RUNS = `query($s: String!, $first: Int) { importRuns(source: $s, first: $first) { ${RUN_FIELDS} } }`;
const RUN = `query($id: ID!) { importRun(id: $id) { ${RUN_FIELDS} } }`;

function person(n: number, extra: Record<string, unknown> = {}) {
  return { externalId: `R${n}`, affiliationType: 'EMPLOYMENT', firstName: `First${n}`, lastName: `Last${n}`, ...extra };
}

describe('run history of imports and associations', () => {
  let stack: TestStack;
  let token: string;
  const gql = async <T>(query: string, variables: Record<string, unknown>, bearer = token) =>
    call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token: bearer,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const importSet = (source: string, identities: unknown[]) =>
    gql<{ importBusinessIdentities: Counts & { runId: string } }>(IMPORT, { i: { source, identities } });
  const runs = async (source: string, first?: number) =>
    (await gql<{ importRuns: Run[] }>(RUNS, { s: source, first })).body.data!.importRuns;
  const run = async (id: string) => (await gql<{ importRun: Run | null }>(RUN, { id })).body.data!.importRun;

  beforeAll(async () => {
    stack = await startTestStack();
    token = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => {
    setFaultInjector(undefined);
    await stack?.stop();
  });
  afterEach(() => setFaultInjector(undefined));

  it('records a completed import: who, when, counts; the mutation answers its run id; importRuns lists newest first', async () => {
    const first = await importSet('History', [person(1), person(2), person(3)]);
    const firstId = first.body.data!.importBusinessIdentities.runId;
    expect(first.body.data!.importBusinessIdentities).toMatchObject({
      created: 3,
      updated: 0,
      deleted: 0,
      unchanged: 0,
    });
    const second = await importSet('History', [person(1), person(2, { firstName: 'Changed' })]);
    const secondId = second.body.data!.importBusinessIdentities.runId;

    const recorded = await run(firstId);
    expect(recorded).toMatchObject({
      id: firstId,
      operation: 'IMPORT',
      source: 'History',
      clientId: DEV_CLIENTS.admin.clientId,
      status: 'COMPLETED',
      submitted: 3,
      importCounts: { created: 3, updated: 0, deleted: 0, unchanged: 0 },
      associationCounts: null,
      failure: null,
    });
    expect(Date.parse(recorded!.endedAt!)).toBeGreaterThanOrEqual(Date.parse(recorded!.startedAt));
    expect((await runs('History')).map((r) => [r.id, r.importCounts])).toEqual([
      [secondId, { created: 0, updated: 1, deleted: 1, unchanged: 1 }],
      [firstId, { created: 3, updated: 0, deleted: 0, unchanged: 0 }],
    ]);
    expect((await runs('History', 1)).map((r) => r.id)).toEqual([secondId]);
    // Kept 90 days: the record carries its ttl and the container has time to live on.
    const imports = services().store.collection<{ id: string; pk: string; ttl?: number }>('imports');
    expect((await imports.read(partitionKey(DEV_TENANT_ID, customSourceKey('History')), `run-${firstId}`))?.ttl).toBe(
      90 * 24 * 3600,
    );
    expect((await imports.read(partitionKey(DEV_TENANT_ID, '_runs'), firstId))?.ttl).toBe(90 * 24 * 3600);
    expect((await services().store.database.container('imports').read()).resource?.defaultTtl).toBe(-1);
    // The import log line names the run, and the run names the request's correlation id.
    expect(stack.logs.some((l) => l.includes('"import finished"') && l.includes(secondId))).toBe(true);
    expect(stack.logs.some((l) => l.includes(recorded!.correlationId))).toBe(true);
  });

  it('records a rejected import with the error code and no submitted value; nothing was written', async () => {
    const res = await importSet('Rejected', [
      person(10, { firstName: '', personalNumbers: [{ type: 'DK_CPR', value: '3213213213' }] }),
    ]);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const [rejected, ...others] = await runs('Rejected');
    expect(others).toEqual([]);
    expect(rejected).toMatchObject({
      operation: 'IMPORT',
      status: 'REJECTED',
      submitted: 1,
      importCounts: null,
      failure: { code: 'BAD_USER_INPUT' },
    });
    expect(rejected!.endedAt).not.toBeNull();
    expect(JSON.stringify(rejected)).not.toMatch(/3213213213|R10/);
  });

  it('records a run that failed part-way (code, counts so far, no value), and the next run converges and is completed', async () => {
    const set = Array.from({ length: 300 }, (_, i) =>
      person(1000 + i, { personalNumbers: [{ type: 'DK_CPR', value: '0101901234' }] }),
    );
    let writes = 0;
    setFaultInjector((op, container) => {
      if (container === 'identities' && (op === 'create' || op === 'replace') && ++writes > 120)
        throw new StoreError('unavailable', 'injected fault', 1000);
    });
    const failed = await importSet('Midway', set);
    setFaultInjector(undefined);
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('SERVICE_BUSY');

    const [failedRun] = await runs('Midway');
    expect(failedRun).toMatchObject({ status: 'FAILED', submitted: 300, failure: { code: 'STORE_UNAVAILABLE' } });
    expect(failedRun!.failure!.message).toMatch(/run the same request again/);
    expect(JSON.stringify(failedRun)).not.toMatch(/0101901234|R1\d\d\d|First/);
    const written = failedRun!.importCounts!.created;
    expect(written).toBeGreaterThanOrEqual(100);
    expect(written).toBeLessThan(300);

    const rerun = await importSet('Midway', set);
    const counts = rerun.body.data!.importBusinessIdentities;
    expect(counts).toMatchObject({ created: 300 - written, unchanged: written, updated: 0, deleted: 0 });
    expect(await run(counts.runId)).toMatchObject({
      status: 'COMPLETED',
      importCounts: { created: 300 - written, updated: 0, deleted: 0, unchanged: written },
      failure: null,
    });
    expect((await runs('Midway')).map((r) => r.status)).toEqual(['COMPLETED', 'FAILED']);
  });

  it('a second import while one runs gets IMPORT_IN_PROGRESS naming the running run; both runs are recorded', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => person(3000 + i));
    const [a, b] = await Promise.all([importSet('Concurrent', big), importSet('Concurrent', big)]);
    const winner = a!.body.data ? a! : b!;
    const loser = a!.body.data ? b! : a!;
    const winnerId = winner.body.data!.importBusinessIdentities.runId;
    expect(loser.body.errors?.[0]?.extensions).toMatchObject({ code: 'IMPORT_IN_PROGRESS', runId: winnerId });

    const recorded = await runs('Concurrent');
    expect(recorded).toHaveLength(2);
    expect(recorded.find((r) => r.id === winnerId)).toMatchObject({
      status: 'COMPLETED',
      importCounts: { created: 2000, updated: 0, deleted: 0, unchanged: 0 },
    });
    expect(recorded.find((r) => r.id !== winnerId)).toMatchObject({
      status: 'REJECTED',
      importCounts: null,
      failure: { code: 'IMPORT_IN_PROGRESS' },
    });
  });

  it('a run whose end was never recorded reads RUNNING, and ABANDONED once past the host time limit', async () => {
    // The final write of the run record fails, as when the host stops the function before it.
    setFaultInjector((op, container) => {
      if (container === 'imports' && op === 'replace') throw new StoreError('unavailable', 'injected fault', 1000);
    });
    const res = await importSet('Killed', [person(5000)]);
    setFaultInjector(undefined);
    const runId = res.body.data!.importBusinessIdentities.runId;
    expect(await run(runId)).toMatchObject({ status: 'RUNNING', endedAt: null });
    expect(stack.logs.some((l) => l.includes('run record not updated') && l.includes(runId))).toBe(true);
    const later = new RunHistory(services().store, () => Date.now() + RUN_LIMIT_MS + 1000);
    expect((await later.get(DEV_TENANT_ID, runId))?.status).toBe('abandoned');

    // While a stopped import still holds its lease (taken just after its start), it is not yet abandoned.
    const lease = await acquireImportLease(
      services().store,
      partitionKey(DEV_TENANT_ID, customSourceKey('Killed')),
      Date.now() + RUN_LIMIT_MS,
      runId,
    );
    expect((await later.get(DEV_TENANT_ID, runId))?.status).toBe('running');
    await lease.release();
    expect((await later.get(DEV_TENANT_ID, runId))?.status).toBe('abandoned');
  });

  it('records association runs with their counts', async () => {
    await importSet('Linked', [person(6000), person(6001)]);
    stack.directory.createUser(DEV_TENANT_ID, 'history.one@dev.example.com');
    const res = await gql<{ associateBusinessIdentities: { runId: string } }>(ASSOCIATE, {
      i: {
        source: 'Linked',
        associations: [
          { externalId: 'R6000', userPrincipalName: 'history.one@dev.example.com' },
          { externalId: 'R6001', userPrincipalName: 'nobody.here@dev.example.com' },
          { externalId: 'R9999', userPrincipalName: 'history.one@dev.example.com' },
        ],
      },
    });
    const runId = res.body.data!.associateBusinessIdentities.runId;
    const recorded = await run(runId);
    expect(recorded).toMatchObject({
      operation: 'ASSOCIATION',
      status: 'COMPLETED',
      submitted: 3,
      importCounts: null,
      associationCounts: {
        associated: 1,
        unchanged: 0,
        unknownExternalIds: 1,
        unknownUserPrincipalNames: 1,
        conflictingUserPrincipalNames: 0,
        notDone: 0,
      },
    });
    expect(JSON.stringify(recorded)).not.toMatch(/@|R6001|R9999/);
    expect((await runs('Linked')).map((r) => r.operation)).toEqual(['ASSOCIATION', 'IMPORT']);

    const twice = { externalId: 'R6000', userPrincipalName: 'history.one@dev.example.com' };
    const rejected = await gql(ASSOCIATE, { i: { source: 'Linked', associations: [twice, twice] } });
    expect(rejected.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await runs('Linked', 1))[0]).toMatchObject({
      operation: 'ASSOCIATION',
      status: 'REJECTED',
      failure: { code: 'BAD_USER_INPUT' },
    });
  });

  it('records an association that left pairs to send again (ASSOCIATION_INCOMPLETE) as failed, with what it did', async () => {
    await importSet('Partly', [person(7000), person(7001)]);
    stack.directory.createUser(DEV_TENANT_ID, 'partly.one@dev.example.com');
    stack.directory.createUser(DEV_TENANT_ID, 'partly.two@dev.example.com');
    const stuck = stack.directory.findByUpn(DEV_TENANT_ID, 'partly.two@dev.example.com')!;
    setFaultInjector((op, container, target) => {
      if (container === 'links' && op === 'create' && target?.id === stuck.id)
        throw new StoreError('unavailable', 'injected fault', 20);
    });
    const res = await gql<{ associateBusinessIdentities: { runId: string } }>(ASSOCIATE, {
      i: {
        source: 'Partly',
        associations: [
          { externalId: 'R7000', userPrincipalName: 'partly.one@dev.example.com' },
          { externalId: 'R7001', userPrincipalName: 'partly.two@dev.example.com' },
        ],
      },
    });
    setFaultInjector(undefined);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('ASSOCIATION_INCOMPLETE');
    const recorded = await run(res.body.data!.associateBusinessIdentities.runId);
    expect(recorded).toMatchObject({
      status: 'FAILED',
      associationCounts: {
        associated: 1,
        unchanged: 0,
        unknownExternalIds: 0,
        unknownUserPrincipalNames: 0,
        conflictingUserPrincipalNames: 0,
        notDone: 1,
      },
      failure: { code: 'ASSOCIATION_INCOMPLETE' },
    });
    expect(JSON.stringify(recorded)).not.toMatch(/R7001|partly/);
  });

  it('throttling of the run record, the lease and its release is waited out: the import completes and the source is free again', async () => {
    const throttled = new Map<string, number>();
    setFaultInjector((op, container, target) => {
      if (container !== 'imports' || !target || target.id.startsWith('manifest')) return;
      const key = `${op} ${target.id === 'lease' ? 'lease' : 'run'}`;
      const n = throttled.get(key) ?? 0;
      if (n < 2) {
        throttled.set(key, n + 1);
        throw new StoreError('throttled', 'injected: request units used up', 10);
      }
    });
    const res = await importSet('Busy Partition', [person(8000)]);
    setFaultInjector(undefined);
    expect(res.body.data?.importBusinessIdentities).toMatchObject({ created: 1 });
    expect([...throttled.keys()].sort()).toEqual([
      'create lease',
      'create run',
      'delete lease',
      'read lease',
      'replace run',
    ]);
    expect(await run(res.body.data!.importBusinessIdentities.runId)).toMatchObject({ status: 'COMPLETED' });
    expect((await importSet('Busy Partition', [person(8000)])).body.data?.importBusinessIdentities).toMatchObject({
      unchanged: 1,
    });
  });

  it('runs are for administrators only; an unknown or malformed id is null; Manual and SCIM integrations have none', async () => {
    const scimToken = await stack.token(DEV_CLIENTS.scim);
    expect((await gql(RUNS, { s: 'History' }, scimToken)).body.errors?.[0]?.extensions?.code).toBe(
      'AUTH_NOT_AUTHORIZED',
    );
    expect((await gql(RUN, { id: 'x' }, scimToken)).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
    const [known] = await runs('History', 1);
    // A run id is a UUID that says nothing of the source or anything else the caller sent.
    expect(known!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const id of [
      'nothing',
      `${known!.id}x`,
      known!.id.replace(/^.{8}/, '00000000'),
      'lease',
      'manifest-1',
      `run-${known!.id}`,
    ])
      expect(await run(id)).toBeNull();
    // Another organization's administrator finds neither the run by its id nor the source's runs.
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    services().tenants.clearCache();
    try {
      const other = await stack.token(DEV_CLIENTS.otherAdmin);
      expect((await gql<{ importRun: Run | null }>(RUN, { id: known!.id }, other)).body.data?.importRun).toBeNull();
      expect((await gql<{ importRuns: Run[] }>(RUNS, { s: 'History' }, other)).body.data?.importRuns).toEqual([]);
    } finally {
      await services().tenants.remove(UNREGISTERED_TENANT_ID);
      services().tenants.clearCache();
    }
    expect(await runs('Manual')).toEqual([]);
    const integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    expect(await runs(integrationId)).toEqual([]);
    expect((await gql(RUNS, { s: 'History', first: 101 })).body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('an administrator of another organization finds none of these runs, by id or by source name: null and [] as for runs that do not exist', async () => {
    const [known] = await runs('History', 1);
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    try {
      const other = await stack.token(DEV_CLIENTS.otherAdmin);
      const missing = known!.id.replace(
        /^([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-)[0-9a-f]{12}/,
        '$1000000000000',
      );
      const foreign = await gql<{ importRun: Run | null }>(RUN, { id: known!.id }, other);
      const absent = await gql<{ importRun: Run | null }>(RUN, { id: missing }, other);
      expect(foreign.body).toEqual({ data: { importRun: null } });
      expect(foreign.body).toEqual(absent.body);
      expect((await gql<{ importRuns: Run[] }>(RUNS, { s: 'History' }, other)).body).toEqual({
        data: { importRuns: [] },
      });
      // The organization's own administrator still reads it.
      expect((await run(known!.id))?.id).toBe(known!.id);
    } finally {
      await services().tenants.remove(UNREGISTERED_TENANT_ID);
    }
  });
});
