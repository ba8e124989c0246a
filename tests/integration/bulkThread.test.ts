import { startTestStack, call, type TestStack } from '../support/stack';
import { importPeople } from '../support/importSets';
import { DEV_CLIENTS } from '../../devhost/devData';
import { services } from '../../lib/services';
import { storeCounters } from '../../lib/store/metrics';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
type Counts = { created: number; updated: number; deleted: number; unchanged: number };

const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
/** Bodies of this many bytes or more run on the bulk thread in this file's stack. */
const THRESHOLD = 20_000;

function importer(target: () => { stack: TestStack; token: string }) {
  return async (source: string, identities: unknown[], correlationId?: string) => {
    const { stack, token } = target();
    const body = JSON.stringify({ query: IMPORT, variables: { i: { source, identities } } });
    const res = await call<Gql<{ importBusinessIdentities: Counts }>>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json', ...(correlationId ? { 'x-correlation-id': correlationId } : {}) },
      body,
    });
    return { ...res, bytes: body.length };
  };
}

async function started(env: Record<string, string> = {}): Promise<{ stack: TestStack; token: string }> {
  const stack = await startTestStack({ env: { GRAPHQL_BULK_THREAD_BYTES: String(THRESHOLD), ...env } });
  return { stack, token: await stack.token(DEV_CLIENTS.admin) };
}

describe('the bulk thread: large GraphQL requests run beside the main thread', () => {
  let target: { stack: TestStack; token: string };
  const importSet = importer(() => target);
  beforeAll(async () => {
    target = await started();
  });
  afterAll(async () => target?.stack.stop());

  it('runs a body over the threshold on the bulk thread, a smaller one here, with the same answers and logs', async () => {
    const before = services().bulkThread.requests;
    const writesBefore = storeCounters().identityWrites;
    const large = await importSet('Thread', importPeople('t', 400), 'bulk-thread-test-1');
    expect(large.bytes).toBeGreaterThanOrEqual(THRESHOLD);
    expect(large.body.errors).toBeUndefined();
    expect(large.body.data?.importBusinessIdentities).toEqual({ created: 400, updated: 0, deleted: 0, unchanged: 0 });
    expect(services().bulkThread.requests).toBe(before + 1);
    // The instance's store counters include what the thread wrote.
    expect(storeCounters().identityWrites - writesBefore).toBe(400);
    // The thread's log lines reach the request's log, with its correlation id.
    const finished = target.stack.logs.filter((l) => l.includes('import finished') && l.includes('bulk-thread-test-1'));
    expect(finished).toHaveLength(1);
    expect(JSON.parse(finished[0]!.slice(finished[0]!.indexOf('{')))).toMatchObject({ created: 400, identities: 400 });

    const small = await importSet('Here', importPeople('h', 20));
    expect(small.bytes).toBeLessThan(THRESHOLD);
    expect(small.body.data?.importBusinessIdentities).toEqual({ created: 20, updated: 0, deleted: 0, unchanged: 0 });
    expect(services().bulkThread.requests).toBe(before + 1);

    // What the thread wrote is what the main thread reads: the same set again changes nothing.
    const again = await importSet('Thread', importPeople('t', 400));
    expect(again.body.data?.importBusinessIdentities).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 400 });
  });

  it('answers the requests on a thread that ends as unexpected errors; the next request starts a new thread', async () => {
    const running = importSet('Ended', importPeople('e', 500));
    // Ended while the request is on it (the thread has been handed the request once the body was sent).
    await new Promise((r) => setTimeout(r, 50));
    await services().bulkThread.dispose();
    const ended = await running;
    expect(ended.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(ended.body.errors?.[0]?.message).toBe('Unexpected error.');
    const after = await importSet('AfterEnd', importPeople('a', 300));
    expect(after.body.data?.importBusinessIdentities.created).toBe(300);
  });
});

describe('the bulk thread and the bulk budget', () => {
  let target: { stack: TestStack; token: string };
  const importSet = importer(() => target);
  beforeAll(async () => {
    target = await started({
      BULK_ITEMS_PER_MINUTE: '3000',
      IMPORT_MAX_IDENTITIES: '3000',
      ASSOCIATION_MAX_PAIRS: '3000',
    });
  });
  afterAll(async () => target?.stack.stop());

  it("takes from the instance's one bulk budget, whichever thread runs the request", async () => {
    // 3,000 items a minute (50 a second come back): 2,400 taken on the bulk thread and 150 on the main thread
    // leave too few for 1,000 more on the bulk thread.
    const first = await importSet('Budget', importPeople('b', 2400));
    expect(first.body.data?.importBusinessIdentities.created).toBe(2400);
    const second = await importSet('BudgetSmall', importPeople('s', 150));
    expect(second.bytes).toBeLessThan(THRESHOLD);
    expect(second.body.data?.importBusinessIdentities.created).toBe(150);
    const third = await importSet('BudgetLarge', importPeople('l', 1000));
    expect(third.bytes).toBeGreaterThanOrEqual(THRESHOLD);
    expect(third.body.errors?.[0]?.extensions?.code).toBe('SERVICE_BUSY');
  });
});
