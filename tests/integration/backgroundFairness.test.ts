/**
 * Background work shared fairly among tenants, on the real stack: while tenant A's four staged imports are
 * applied (their writes paced by A's request-unit budget, so each step takes seconds), tenant B's small
 * staged import gets a unit of the instance at once and completes before any of A's, instead of waiting
 * behind A's steps. Asserted by the order in which the runs complete, not by time. Also: startImport of a
 * source whose import is being applied is refused at once, naming that run; and one past the organization's
 * bound of staged imports (dry runs here) is refused at once too.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

type GqlError = { message: string; extensions?: Record<string, unknown> & { code?: string } };
type Gql<T> = { data?: T | null; errors?: GqlError[] };
type Run = { id: string; status: string; importCounts: { created: number } | null };

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { sequence } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId status } }';
const RUN = 'query($id: ID!) { importRun(id: $id) { id status importCounts { created } } }';

/** Identities of each of A's imports: at A's budget a job's one apply step takes seconds. */
const A_IDENTITIES = 1_000;
const B_IDENTITIES = 5;

const people = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    affiliationType: 'EMPLOYMENT',
    firstName: 'First',
    lastName: `Last${i}`,
  }));

describe('background work shared fairly among tenants', () => {
  let stack: TestStack;
  let tokenA: string;
  let tokenB: string;
  const gql = async <T>(query: string, variables: Record<string, unknown>, bearer: string) =>
    (
      await call<Gql<T>>(`${stack.base}/graphql`, {
        method: 'POST',
        token: bearer,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      })
    ).body;
  /** Starts an import and sends its set as one part: the import id (completed later). */
  const upload = async (source: string, identities: unknown[], bearer: string): Promise<string> => {
    const started = await gql<{ startImport: { importId: string } }>(START, { i: { source } }, bearer);
    expect(started.errors).toBeUndefined();
    const importId = started.data!.startImport.importId;
    expect((await gql(ADD, { i: { importId, sequence: 1, identities } }, bearer)).errors).toBeUndefined();
    return importId;
  };
  const complete = async (importId: string, bearer: string): Promise<string> => {
    const done = await gql<{ completeImport: { runId: string; status: string } }>(
      COMPLETE,
      { i: { importId } },
      bearer,
    );
    expect(done.data?.completeImport.status).toBe('QUEUED');
    return done.data!.completeImport.runId;
  };
  const run = async (id: string, bearer: string) =>
    (await gql<{ importRun: Run | null }>(RUN, { id }, bearer)).data?.importRun ?? undefined;

  beforeAll(async () => {
    stack = await startTestStack({
      cosmosRuPerSecond: 20_000,
      // Each tenant's bulk writes paced at a budget where A's 1,000-identity job takes seconds.
      env: {
        BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT: '400',
        BULK_REQUEST_UNITS_PER_SECOND: '10000',
        IMPORT_MAX_DRY_RUNS_PER_TENANT: '1',
      },
    });
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    tokenA = await stack.token(DEV_CLIENTS.admin);
    tokenB = await stack.token(DEV_CLIENTS.otherAdmin);
  });
  afterAll(async () => {
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
    await stack?.stop();
  });

  it("completes tenant B's small staged import before any of tenant A's four running ones", async () => {
    // A's four sets uploaded first, then completed together: their jobs run at the same time.
    const aImports: string[] = [];
    for (const n of [1, 2, 3, 4]) aImports.push(await upload(`Fair-A${n}`, people(`A${n}`, A_IDENTITIES), tokenA));
    const bImport = await upload('Fair-B', people('B', B_IDENTITIES), tokenB);
    const aRuns: string[] = [];
    for (const importId of aImports) aRuns.push(await complete(importId, tokenA));
    // Another run of a source being applied: startImport refuses at once, naming it (nothing to upload in vain).
    const refused = await gql(START, { i: { source: 'Fair-A4' } }, tokenA);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'IMPORT_IN_PROGRESS', runId: aRuns[3] });
    expect(refused.errors?.[0]?.message).not.toContain('Fair-A4');

    // A's jobs are under way (three of them hold the units A may take; the fourth waits for one of them).
    for (;;) {
      const statuses = await Promise.all(aRuns.map(async (id) => (await run(id, tokenA))?.status));
      expect(statuses).not.toContain('COMPLETED');
      if (statuses.filter((s) => s === 'RUNNING').length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const t0 = Date.now();
    const bRun = await complete(bImport, tokenB);
    const order: string[] = [];
    const ended = new Map<string, Run>();
    const pending = new Map([...aRuns.map((id) => [id, tokenA] as const), [bRun, tokenB] as const]);
    const until = Date.now() + 240_000;
    while (pending.size > 0 && Date.now() < until) {
      for (const [id, bearer] of [...pending]) {
        const r = await run(id, bearer);
        if (r && r.status !== 'QUEUED' && r.status !== 'RUNNING') {
          expect(r).toMatchObject({ status: 'COMPLETED' });
          order.push(id);
          ended.set(id, r);
          if (process.env.FAIRNESS_DEBUG) console.log(id === bRun ? 'B' : `A${aRuns.indexOf(id) + 1}`, Date.now() - t0);
          pending.delete(id);
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(pending.size).toBe(0);
    expect(order[0]).toBe(bRun);
    expect(ended.get(bRun)?.importCounts).toMatchObject({ created: B_IDENTITIES });
    for (const id of aRuns) expect(ended.get(id)?.importCounts).toMatchObject({ created: A_IDENTITIES });
  }, 300_000);

  it("refuses a staged import past the organization's bound at once (IMPORT_LIMIT_REACHED), naming the setting, not the source", async () => {
    const first = await gql<{ startImport: { importId: string } }>(
      START,
      { i: { source: 'Bound-1', dryRun: true } },
      tokenB,
    );
    expect(first.errors).toBeUndefined();
    const refused = await gql(START, { i: { source: 'Bound-2', dryRun: true } }, tokenB);
    expect(refused.errors?.[0]?.extensions?.code).toBe('IMPORT_LIMIT_REACHED');
    expect(refused.errors?.[0]?.message).toContain('IMPORT_MAX_DRY_RUNS_PER_TENANT');
    expect(refused.errors?.[0]?.message).not.toContain('Bound-2');
    // Another organization's dry runs are its own.
    const other = await gql(START, { i: { source: 'Bound-2', dryRun: true } }, tokenA);
    expect(other.errors).toBeUndefined();
  });
});
