/**
 * A staged import that is not completed in time expires: its documents carry a time to live (the local
 * engine applies it as Cosmos DB does), and the import is then unknown (IMPORT_NOT_FOUND, null). A completed
 * import is kept for its job past that time.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { customSourceKey } from '../../lib/imports/importer';
import { partitionKey } from '../../lib/identities/model';
import { APPLY_WINDOW_SECONDS } from '../../lib/imports/stagedStore';
import type { StoredDoc } from '../../lib/store/store';

type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
type Doc = StoredDoc & { kind: string; ttl?: number; importId?: string };

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId expiresAt } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { partsReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId status } }';
const STAGED = 'query($id: ID!) { stagedImport(importId: $id) { importId sequences runId } }';
const RUN = 'query($id: ID!) { importRun(id: $id) { status } }';
const TTL_SECONDS = 3;

const people = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    externalId: `E${i}`,
    affiliationType: 'OTHER',
    firstName: 'F',
    lastName: `L${i}`,
  }));

describe('staged import expiry', () => {
  let stack: TestStack;
  let token: string;
  const gql = async <T>(query: string, variables: Record<string, unknown>) =>
    call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const docsOf = async (source: string, importId: string) =>
    (
      await services()
        .store.collection<Doc>('imports')
        .queryPartitionPage<Doc>(partitionKey(DEV_TENANT_ID, customSourceKey(source)), 'SELECT *', '', [])
    ).items.filter((d) => d.importId === importId);

  beforeAll(async () => {
    stack = await startTestStack({ env: { STAGED_IMPORT_TTL_SECONDS: String(TTL_SECONDS) } });
    token = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  it('an import not completed in time is gone: its session expires with it, its parts a day later; IMPORT_NOT_FOUND', async () => {
    const { importId, expiresAt } = (
      await gql<{ startImport: { importId: string; expiresAt: string } }>(START, {
        i: { source: 'Expiring' },
      })
    ).body.data!.startImport;
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    expect((await gql(ADD, { i: { importId, sequence: 1, identities: people(3) } })).body.errors).toBeUndefined();
    const stored = await docsOf('Expiring', importId);
    expect(stored.map((d) => [d.kind, d.ttl])).toEqual(
      expect.arrayContaining([
        ['stagedImport', expect.any(Number)],
        ['importPartKeys', expect.any(Number)],
        ['importPartBody', expect.any(Number)],
      ]),
    );
    for (const d of stored)
      expect(d.ttl).toBeLessThanOrEqual(TTL_SECONDS + (d.kind === 'stagedImport' ? 0 : APPLY_WINDOW_SECONDS));

    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(
      (await gql(ADD, { i: { importId, sequence: 2, identities: people(3) } })).body.errors?.[0]?.extensions,
    ).toMatchObject({ code: 'IMPORT_NOT_FOUND' });
    expect((await gql(COMPLETE, { i: { importId } })).body.errors?.[0]?.extensions).toMatchObject({
      code: 'IMPORT_NOT_FOUND',
    });
    expect((await gql<{ stagedImport: unknown }>(STAGED, { id: importId })).body.data?.stagedImport).toBeNull();
    // The store no longer shows the session (time to live); the parts wait out the apply window, unreachable.
    expect((await docsOf('Expiring', importId)).map((d) => d.kind).sort()).toEqual([
      'importPartBody',
      'importPartKeys',
    ]);
  }, 30_000);

  it('a completed import is kept for its job past the time an open one has', async () => {
    const { importId } = (await gql<{ startImport: { importId: string } }>(START, { i: { source: 'InTime' } })).body
      .data!.startImport;
    await gql(ADD, { i: { importId, sequence: 1, identities: people(3) } });
    const { runId } = (await gql<{ completeImport: { runId: string } }>(COMPLETE, { i: { importId } })).body.data!
      .completeImport;
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect((await gql<{ stagedImport: unknown }>(STAGED, { id: importId })).body.data?.stagedImport).toMatchObject({
      importId,
      runId,
      sequences: [1],
    });
    expect((await gql<{ importRun: { status: string } }>(RUN, { id: runId })).body.data?.importRun?.status).toBe(
      'COMPLETED',
    );
  }, 30_000);
});
