/**
 * Staged imports over real HTTP: a set sent in parts (startImport, addImportPart, completeImport), applied by
 * the job on the background queue (the dev host serves it from Azurite), followed with importRun.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { customSourceKey } from '../../lib/imports/importer';
import { partitionKey } from '../../lib/identities/model';
import fs from 'node:fs';
import path from 'node:path';
import type { StoredDoc } from '../../lib/store/store';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';

type Problem = { index?: number; field: string; problem: string };
type GqlError = { message: string; extensions?: Record<string, unknown> & { code?: string; problems?: Problem[] } };
type Gql<T> = { data?: T | null; errors?: GqlError[] };
type Counts = { created: number; updated: number; deleted: number; unchanged: number };
type Run = {
  id: string;
  status: string;
  submitted: number;
  dryRun: boolean;
  importCounts: Counts | null;
  progress: { applied: number; total: number } | null;
  failure: { code: string; message: string } | null;
};

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId maxIdentitiesPerPart expiresAt } }';
const ADD =
  'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { importId sequence identities partsReceived identitiesReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { importId runId status } }';
const STAGED =
  'query($id: ID!) { stagedImport(importId: $id) { importId source sequences identitiesReceived expiresAt runId } }';
const RUN =
  'query($id: ID!) { importRun(id: $id) { id status submitted dryRun importCounts { created updated deleted unchanged } progress { applied total } failure { code message } } }';
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }';
const LIST =
  'query($s: String!, $after: String) { businessIdentities(source: $s, first: 500, after: $after) { nodes { externalId firstName personalNumberTypes } endCursor hasNextPage } }';

function person(prefix: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    externalId: `${prefix}${n}`,
    affiliationType: 'EMPLOYMENT',
    firstName: `First${n}`,
    lastName: `Last${n}`,
    personalNumbers: [{ type: 'DK_CPR', value: '010190-1234' }],
    ...extra,
  };
}
const people = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => person(prefix, from + i));

const OTHER_ADMIN = DEV_CLIENTS.otherAdmin;
/** The app's host.json with a failed queue message visible again after a second (30 s in Azure). */
const HOST_JSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'host.json'), 'utf8')) as {
  extensions: { queues: Record<string, unknown> };
};
const QUICK_RETRIES = {
  ...HOST_JSON,
  extensions: { ...HOST_JSON.extensions, queues: { ...HOST_JSON.extensions.queues, visibilityTimeout: '00:00:01' } },
};

describe('staged imports', () => {
  let stack: TestStack;
  let token: string;
  const gql = async <T>(query: string, variables: Record<string, unknown>, bearer = token) =>
    call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token: bearer,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const start = async (source: string, extra: Record<string, unknown> = {}, bearer = token) => {
    const res = await gql<{ startImport: { importId: string; maxIdentitiesPerPart: number; expiresAt: string } }>(
      START,
      { i: { source, ...extra } },
      bearer,
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.startImport;
  };
  const add = (importId: string, sequence: number, identities: unknown[], bearer = token) =>
    gql<{
      addImportPart: {
        importId: string;
        sequence: number;
        identities: number;
        partsReceived: number;
        identitiesReceived: number;
      };
    }>(ADD, { i: { importId, sequence, identities } }, bearer);
  const complete = (importId: string, bearer = token) =>
    gql<{ completeImport: { importId: string; runId: string; status: string } }>(COMPLETE, { i: { importId } }, bearer);
  const run = async (id: string) => (await gql<{ importRun: Run | null }>(RUN, { id })).body.data!.importRun;
  /** Polls the run until it has ended (the job runs on the queue). */
  const ended = async (runId: string, timeoutMs = 60_000): Promise<Run> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await run(runId);
      if (r && !['QUEUED', 'RUNNING'].includes(r.status)) return r;
      if (Date.now() > until) throw new Error(`run still ${r?.status} after ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  /** Stages `identities` in parts of `size` and completes: the run id. */
  const stage = async (source: string, identities: unknown[], size: number, extra: Record<string, unknown> = {}) => {
    const { importId } = await start(source, extra);
    for (let i = 0, seq = 1; i < identities.length; i += size, seq++) {
      const res = await add(importId, seq, identities.slice(i, i + size));
      expect(res.body.errors).toBeUndefined();
    }
    const done = await complete(importId);
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data?.completeImport.status).toBe('QUEUED');
    return { importId, runId: done.body.data!.completeImport.runId };
  };
  const list = async (source: string) => {
    const out: Array<{ externalId: string; firstName: string; personalNumberTypes: string[] }> = [];
    let after: string | null = null;
    for (;;) {
      const res: Awaited<
        ReturnType<typeof gql<{ businessIdentities: { nodes: typeof out; endCursor: string; hasNextPage: boolean } }>>
      > = await gql(LIST, { s: source, after });
      out.push(...res.body.data!.businessIdentities.nodes);
      if (!res.body.data!.businessIdentities.hasNextPage) return out;
      after = res.body.data!.businessIdentities.endCursor;
    }
  };

  beforeAll(async () => {
    stack = await startTestStack({
      // Many imports of the dev tenant are started here and left open: IMPORT_MAX_OPEN_PER_TENANT is not what this suite tests.
      env: { IMPORT_PART_MAX_IDENTITIES: '50', IMPORT_MAX_IDENTITIES: '400', IMPORT_MAX_OPEN_PER_TENANT: '100' },
      hostJson: QUICK_RETRIES,
    });
    token = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => {
    setFaultInjector(undefined);
    await stack?.stop();
  });

  it('applies a set staged in several parts: QUEUED at once, COMPLETED with the counts; a re-run writes no identity; removed identities are deleted', async () => {
    const set = people('S', 0, 230);
    const before = storeCounters();
    const { importId, runId } = await stage('Staged', set, 50);
    const staged = (await gql<{ stagedImport: Record<string, unknown> }>(STAGED, { id: importId })).body.data
      ?.stagedImport;
    expect(staged).toMatchObject({
      importId,
      source: 'Staged',
      sequences: [1, 2, 3, 4, 5],
      identitiesReceived: 230,
      runId,
    });
    const first = await ended(runId);
    expect(first).toMatchObject({
      status: 'COMPLETED',
      submitted: 230,
      importCounts: { created: 230, updated: 0, deleted: 0, unchanged: 0 },
      progress: { applied: 230, total: 230 },
      failure: null,
    });
    expect(diffCounters(storeCounters(), before).identityWrites).toBe(230);
    const stored = await list('Staged');
    expect(stored).toHaveLength(230);
    expect(stored.find((i) => i.externalId === 'S7')?.personalNumberTypes).toEqual(['DK_CPR']);

    // The same set again, in other parts: nothing written.
    const again = storeCounters();
    const rerun = await ended((await stage('Staged', set, 40)).runId);
    expect(rerun.importCounts).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 230 });
    expect(diffCounters(storeCounters(), again).identityWrites).toBe(0);

    // Changed, new and removed identities.
    const changed = [...people('S', 0, 200), person('S', 230), person('S', 231)];
    changed[3] = person('S', 3, { firstName: 'Renamed' });
    const third = await ended((await stage('Staged', changed, 50)).runId);
    expect(third.importCounts).toEqual({ created: 2, updated: 1, deleted: 30, unchanged: 199 });
    const after = await list('Staged');
    expect(after).toHaveLength(202);
    expect(after.find((i) => i.externalId === 'S3')?.firstName).toBe('Renamed');
    expect(after.some((i) => i.externalId === 'S210')).toBe(false);
  });

  it('a part sent again with the same identities answers as before; with others it is IMPORT_PART_CONFLICT; invalid identities are BAD_USER_INPUT by index and field, without the value', async () => {
    const { importId } = await start('Parts');
    const part = people('P', 0, 10);
    const first = await add(importId, 1, part);
    expect(first.body.data?.addImportPart).toEqual({
      importId,
      sequence: 1,
      identities: 10,
      partsReceived: 1,
      identitiesReceived: 10,
    });
    // Same values as normalised (the CPR with and without its dash): the same part.
    const same = part.map((p) => ({ ...p, personalNumbers: [{ type: 'DK_CPR', value: '0101901234' }] }));
    expect((await add(importId, 1, same)).body.data?.addImportPart).toEqual(first.body.data?.addImportPart);
    const other = await add(importId, 1, people('P', 0, 9));
    expect(other.body.errors?.[0]?.extensions?.code).toBe('IMPORT_PART_CONFLICT');

    const invalid = await add(importId, 2, [
      person('P', 20),
      person('P', 21, { firstName: '', personalNumbers: [{ type: 'DK_CPR', value: '999999-SECRET' }] }),
      person('P', 20),
    ]);
    const err = invalid.body.errors?.[0];
    expect(err?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(err?.extensions?.problems).toEqual(
      expect.arrayContaining([
        { index: 1, field: 'identities[1].firstName', problem: 'must not be empty' },
        { index: 1, field: 'identities[1].personalNumbers[0].value', problem: 'must be a valid CPR number' },
        { index: 2, field: 'identities[2].externalId', problem: 'occurs more than once (also at identities[0])' },
      ]),
    );
    expect(invalid.text).not.toContain('SECRET');
    expect(invalid.text).not.toContain('P20');

    // Too many identities, a sequence out of range: refused; nothing stored for them.
    expect((await add(importId, 3, people('P', 100, 151))).body.errors?.[0]?.extensions?.code).toBe(
      'IMPORT_PART_TOO_LARGE',
    );
    const zero = await add(importId, 0, part);
    expect(zero.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      problems: [{ field: 'input.sequence' }],
    });
    const state = (
      await gql<{ stagedImport: { sequences: number[]; identitiesReceived: number } }>(STAGED, { id: importId })
    ).body.data?.stagedImport;
    expect(state).toMatchObject({ sequences: [1], identitiesReceived: 10 });
  });

  it('parts added at once are all counted', async () => {
    const { importId } = await start('Concurrent');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => add(importId, i + 1, people(`C${i}-`, 0, 20))),
    );
    expect(answers.every((a) => a.body.errors === undefined)).toBe(true);
    const state = (
      await gql<{ stagedImport: { sequences: number[]; identitiesReceived: number } }>(STAGED, { id: importId })
    ).body.data?.stagedImport;
    expect(state).toEqual(expect.objectContaining({ sequences: [1, 2, 3, 4, 5, 6, 7, 8], identitiesReceived: 160 }));
    const r = await ended((await complete(importId)).body.data!.completeImport.runId);
    expect(r.importCounts).toMatchObject({ created: 160 });
  });

  it('jobs of two sources completed at once both complete (a process runs one step at a time, the other waits on the queue)', async () => {
    const [a, b] = await Promise.all([stage('TwoA', people('A', 0, 150), 50), stage('TwoB', people('B', 0, 150), 50)]);
    const [ra, rb] = await Promise.all([ended(a.runId), ended(b.runId)]);
    expect(ra.importCounts).toMatchObject({ created: 150 });
    expect(rb.importCounts).toMatchObject({ created: 150 });
  });

  it('completeImport refuses missing parts (naming them) and a set over IMPORT_MAX_IDENTITIES; an empty set ends its run REJECTED', async () => {
    const { importId } = await start('Missing');
    await add(importId, 1, people('M', 0, 5));
    await add(importId, 4, people('M', 5, 10));
    const refused = await complete(importId);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'IMPORT_PARTS_MISSING', missing: [2, 3] });
    // The import stays open: the missing parts can still come.
    await add(importId, 2, people('M', 10, 15));
    await add(importId, 3, people('M', 15, 20));
    const ok = await complete(importId);
    expect((await ended(ok.body.data!.completeImport.runId)).status).toBe('COMPLETED');
    // Completed: no more parts, no second completion.
    expect((await add(importId, 5, people('M', 20, 21))).body.errors?.[0]?.extensions?.code).toBe('IMPORT_NOT_FOUND');
    expect((await complete(importId)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_NOT_FOUND');

    const big = await start('TooBig');
    for (let seq = 1; seq <= 8; seq++) await add(big.importId, seq, people(`B${seq}-`, 0, 50));
    expect((await add(big.importId, 9, people('B9-', 0, 1))).body.errors?.[0]?.extensions?.code).toBe(
      'IMPORT_TOO_LARGE',
    );

    const empty = await start('Empty');
    const answer = (await complete(empty.importId)).body.data?.completeImport;
    expect(answer?.status).toBe('REJECTED');
    expect(await run(answer!.runId)).toMatchObject({ status: 'REJECTED', failure: { code: 'BAD_USER_INPUT' } });
  });

  it('an externalId in two parts ends the run REJECTED and nothing is written; so does the delete guard', async () => {
    const before = storeCounters();
    const dup = [...people('D', 0, 60), person('D', 5)];
    const r = await ended((await stage('Duplicates', dup, 30)).runId);
    expect(r).toMatchObject({ status: 'REJECTED', failure: { code: 'BAD_USER_INPUT' }, importCounts: null });
    expect(r.failure?.message).toContain('part 3, identities[0]');
    expect(r.failure?.message).not.toContain('D5');
    expect(diffCounters(storeCounters(), before).identityWrites).toBe(0);
    expect(await list('Duplicates')).toEqual([]);

    await ended((await stage('Guarded', people('G', 0, 40), 20)).runId);
    const guarded = storeCounters();
    const refused = await ended((await stage('Guarded', people('G', 0, 10), 20, { maxDeletedRatio: 0.5 })).runId);
    expect(refused).toMatchObject({ status: 'REJECTED', failure: { code: 'IMPORT_DELETE_LIMIT_EXCEEDED' } });
    expect(diffCounters(storeCounters(), guarded).identityWrites).toBe(0);
    expect(await list('Guarded')).toHaveLength(40);
  });

  it('a dry run counts what the set would change and writes nothing', async () => {
    await ended((await stage('Dry', people('Y', 0, 20), 10)).runId);
    const before = storeCounters();
    const set = [...people('Y', 5, 20), person('Y', 99)];
    const r = await ended((await stage('Dry', set, 10, { dryRun: true })).runId);
    expect(r).toMatchObject({
      status: 'COMPLETED',
      dryRun: true,
      importCounts: { created: 1, updated: 0, deleted: 5, unchanged: 15 },
    });
    expect(diffCounters(storeCounters(), before).identityWrites).toBe(0);
  });

  it('one import of a source at a time, staged or in one request (IMPORT_IN_PROGRESS naming the run)', async () => {
    const first = await start('OneAtATime');
    await add(first.importId, 1, people('O', 0, 50));
    const second = await start('OneAtATime');
    await add(second.importId, 1, people('O', 0, 50));
    // The first job cannot take its job document for now: it stays queued, holding the source.
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('OneAtATime'));
    setFaultInjector((op, container, target) => {
      if (container === 'imports' && target?.pk === pk && target.id.startsWith('job-') && op === 'replace')
        throw new StoreError('unavailable', 'injected', 100);
    });
    const accepted = (await complete(first.importId)).body.data!.completeImport;
    const refused = await complete(second.importId);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'IMPORT_IN_PROGRESS', runId: accepted.runId });
    const inOne = await gql(IMPORT, { i: { source: 'OneAtATime', identities: people('O', 0, 3) } });
    expect(inOne.body.errors?.[0]?.extensions).toMatchObject({ code: 'IMPORT_IN_PROGRESS', runId: accepted.runId });
    expect((await run(accepted.runId))?.status).toBe('QUEUED');
    setFaultInjector(undefined);
    // The queue hands the message out again: the job runs, ends, and frees the source.
    expect((await ended(accepted.runId)).status).toBe('COMPLETED');
    const later = (await complete(second.importId)).body.data!.completeImport;
    expect((await ended(later.runId)).importCounts).toMatchObject({ unchanged: 50 });
  });

  it("another organization's administrator can neither see nor add to nor complete the import: IMPORT_NOT_FOUND, null", async () => {
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    const other = await stack.token(OTHER_ADMIN);
    const { importId } = await start('Private');
    await add(importId, 1, people('X', 0, 3));
    expect((await gql<{ stagedImport: unknown }>(STAGED, { id: importId }, other)).body.data?.stagedImport).toBeNull();
    expect((await add(importId, 2, people('X', 3, 5), other)).body.errors?.[0]?.extensions?.code).toBe(
      'IMPORT_NOT_FOUND',
    );
    expect((await complete(importId, other)).body.errors?.[0]?.extensions?.code).toBe('IMPORT_NOT_FOUND');
    for (const id of ['not-an-id', '0190aaaa-0000-7000-8000-000000000000'])
      expect((await add(id, 1, people('X', 0, 1))).body.errors?.[0]?.extensions?.code).toBe('IMPORT_NOT_FOUND');
    // Still the owner's, untouched.
    expect(
      (await gql<{ stagedImport: { sequences: number[] } }>(STAGED, { id: importId })).body.data?.stagedImport,
    ).toMatchObject({ sequences: [1] });
  });

  it('a console user (even an administrator) may not stage imports', async () => {
    const consoleAdmin = stack.idp.mintUserToken({
      tenantId: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      scp: 'Console.Admin',
      roles: ['Admin'],
    });
    const res = await gql(START, { i: { source: 'Console' } }, consoleAdmin);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHORIZED');
  });

  it("an uncompleted import's documents carry a time to live", async () => {
    const { importId, expiresAt } = await start('Ttl');
    await add(importId, 1, people('T', 0, 3));
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Ttl'));
    const docs = await services()
      .store.collection<StoredDoc & { kind: string; ttl?: number; importId?: string }>('imports')
      .queryPartitionPage<StoredDoc & { kind: string; ttl?: number; importId?: string }>(pk, 'SELECT *', '', []);
    const staged = docs.items.filter((d) => d.importId === importId);
    expect(staged.map((d) => d.kind).sort()).toEqual(['importPartBody', 'importPartKeys', 'stagedImport']);
    const left = (Date.parse(expiresAt) - Date.now()) / 1000;
    for (const d of staged) expect(d.ttl).toBeGreaterThan(left - 60);
    expect(staged.find((d) => d.kind === 'stagedImport')?.ttl).toBeLessThanOrEqual(Math.ceil(left) + 1);
  });
});
