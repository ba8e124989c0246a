/**
 * An import against a store that throttles like a serverless Cosmos DB container (the local engine
 * with a request-unit budget) completes: the manifest shards are written a few at a time, each
 * retried after the store's wait, instead of all at once beyond what the store client retries.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../lib/devhost/devData';

type Counts = { created: number; updated: number; deleted: number; unchanged: number };
type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };

const IMPORT = 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
const person = (n: number) => ({ externalId: `P${n}`, affiliationType: 'EMPLOYMENT', firstName: `First${n}`, lastName: `Last${n}` });

describe('import on a throttling store', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ cosmosRuPerSecond: 200 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a first import whose manifest writes exceed the container budget completes, and a rerun finds everything unchanged', async () => {
    const token = await stack.token(DEV_CLIENTS.admin);
    const importSet = (identities: unknown[]) =>
      call<Gql<{ importBusinessIdentities: Counts }>>(`${stack.base}/graphql`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: IMPORT, variables: { i: { source: 'Throttled', identities } } }),
      });
    const set = Array.from({ length: 150 }, (_, i) => person(i));
    const first = await importSet(set);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data?.importBusinessIdentities).toEqual({ created: 150, updated: 0, deleted: 0, unchanged: 0 });
    // The store did refuse requests on the way (the SDK and the service waited and retried).
    expect(stack.cosmosRequestUnits().byContainer['business-identities/imports']?.throttled).toBeGreaterThan(0);
    const again = await importSet(set);
    expect(again.body.data?.importBusinessIdentities).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 150 });
  });
});
