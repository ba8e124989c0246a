/**
 * A source's activity: SCIM requests the service refused are recorded per integration (bounded, with time to
 * live, cheap to write) and listed by the `activity` query with the runs of custom sources, newest first;
 * never a personal number or a refused value, never another integration's entries.
 */
import { randomUUID } from 'node:crypto';
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { createLogger } from '../../lib/log/logger';
import { runOps } from '../../scripts/ops';

const BAD_CPR = '3213901234'; // no 32nd day of a 13th month
const GOOD_CPR = '0101901234';
const NUMBERS = [BAD_CPR, GOOD_CPR, '321390-1234', '010190-1234'];
const PER_MINUTE = 20;
const SYSTEM = { tenantId: DEV_TENANT_ID, kind: 'system' as const, id: 'activity-test' };
const ENTRY =
  'at operation outcome httpStatus scimType code detail externalId identityId changedAttributes correlationId';
const MORE = 'source action runId counts { name count } durationMs recommendedAction actor { kind id displayName }';
const ACTIVITY = `query($s: String, $f: ActivityFilter, $first: Int, $after: String) {
  activity(source: $s, filter: $f, first: $first, after: $after) { nodes { ${ENTRY} } endCursor hasNextPage } }`;

interface Entry {
  at: string;
  operation: string;
  outcome: string;
  httpStatus: number | null;
  scimType: string | null;
  code: string | null;
  detail: string | null;
  externalId: string | null;
  identityId: string | null;
  changedAttributes: string[] | null;
  correlationId: string | null;
}
interface Page {
  nodes: Entry[];
  endCursor: string | null;
  hasNextPage: boolean;
}
type Gql = { data?: { activity: Page } | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };

const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 10_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('activity of a source', () => {
  let stack: TestStack;
  let scimToken: string;
  let integrationId: string;
  let integration2Id: string;

  const gql = async (variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: ACTIVITY, variables }),
    });
  const activity = async (variables: Record<string, unknown>) => {
    const res = await gql(variables);
    expect(res.body.errors).toBeUndefined();
    return { page: res.body.data!.activity, text: res.text };
  };
  const scimCall = (path: string, correlationId: string, init: RequestInit & { json?: unknown } = {}) =>
    call(`${stack.base}/scim/v2${path}`, {
      ...init,
      token: scimToken,
      headers: { 'x-correlation-id': correlationId, ...(init.headers as Record<string, string> | undefined) },
    });
  const byCorrelation = (page: Page, id: string) => page.nodes.find((n) => n.correlationId === id);

  beforeAll(async () => {
    stack = await startTestStack({ env: { ACTIVITY_REFUSALS_PER_MINUTE: String(PER_MINUTE) } });
    scimToken = await stack.token(DEV_CLIENTS.scim);
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    integration2Id = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))!.id;
  });
  afterAll(async () => stack?.stop());
  afterEach(() => setFaultInjector(undefined));

  it('lists a POST with an invalid CPR and a duplicate POST as REFUSED, with externalIds, status, scimType and correlation ids, and never a number', async () => {
    const bad = await scimCall('/Users', 'act-bad-cpr', {
      method: 'POST',
      json: userBody({ externalId: 'ACT-BADCPR' }, { personalNumbers: [{ type: 'DkCpr', value: BAD_CPR }] }),
    });
    expectScimError(bad, 400, 'invalidValue', BAD_CPR);
    const first = await scimCall('/Users', 'act-dup-1', {
      method: 'POST',
      json: userBody({ externalId: 'ACT-DUP' }, { personalNumbers: [{ type: 'DkCpr', value: GOOD_CPR }] }),
    });
    expect(first.status).toBe(201);
    const dup = await scimCall('/Users', 'act-dup-2', {
      method: 'POST',
      json: userBody({ externalId: 'ACT-DUP' }, { personalNumbers: [{ type: 'DkCpr', value: GOOD_CPR }] }),
    });
    expectScimError(dup, 409, 'uniqueness', GOOD_CPR);

    const { page, text } = await activity({ s: integrationId, f: { outcome: 'REFUSED' } });
    const refused = page.nodes.filter((n) => n.correlationId?.startsWith('act-'));
    expect(refused).toEqual([
      {
        at: expect.any(String),
        operation: 'POST /Users',
        outcome: 'REFUSED',
        httpStatus: 409,
        scimType: 'uniqueness',
        code: null,
        detail: (dup.body as { detail: string }).detail,
        externalId: 'ACT-DUP',
        identityId: null,
        changedAttributes: null,
        correlationId: 'act-dup-2',
      },
      {
        at: expect.any(String),
        operation: 'POST /Users',
        outcome: 'REFUSED',
        httpStatus: 400,
        scimType: 'invalidValue',
        code: null,
        detail: (bad.body as { detail: string }).detail,
        externalId: 'ACT-BADCPR',
        identityId: null,
        changedAttributes: null,
        correlationId: 'act-bad-cpr',
      },
    ]);
    expect(refused[0]!.at > refused[1]!.at).toBe(true);
    for (const n of NUMBERS) expect(text).not.toContain(n);
    expect(text).not.toMatch(/\d{6}-?\d{4}/);

    // One integration's activity is never another's: not dev-scim-2's, not a custom source of the same name.
    const other = await activity({ s: integration2Id });
    expect(other.page.nodes.filter((n) => n.correlationId?.startsWith('act-'))).toEqual([]);
    expect((await activity({ s: 'Manual' })).page.nodes).toEqual([]);
    // An id of no integration of the organization (another organization's, say) names a custom source: none.
    expect((await activity({ s: randomUUID() })).page).toEqual({ nodes: [], endCursor: null, hasNextPage: false });
  });

  it('filters by externalId, outcome and time, and pages newest first with a cursor', async () => {
    const dupOnly = await activity({ s: integrationId, f: { externalId: 'ACT-DUP' } });
    // The refused duplicate, then the POST that made ACT-DUP (its history: no correlation id).
    expect(dupOnly.page.nodes.map((n) => [n.outcome, n.correlationId])).toEqual([
      ['REFUSED', 'act-dup-2'],
      ['SUCCEEDED', null],
    ]);
    // SUCCEEDED entries come from identity history (the POST that made ACT-DUP); SCIM refusals are never FAILED.
    expect((await activity({ s: integrationId, f: { outcome: 'SUCCEEDED' } })).page.nodes).toEqual([
      expect.objectContaining({
        operation: 'CREATE',
        outcome: 'SUCCEEDED',
        externalId: 'ACT-DUP',
        correlationId: null,
      }),
    ]);
    expect((await activity({ s: integrationId, f: { outcome: 'FAILED' } })).page.nodes).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await activity({ s: integrationId, f: { since: future } })).page.nodes).toEqual([]);
    const all = (await activity({ s: integrationId })).page.nodes;
    expect(all.length).toBeGreaterThanOrEqual(2);
    const since = (await activity({ s: integrationId, f: { since: all[0]!.at } })).page.nodes;
    expect(since.map((n) => n.correlationId)).toEqual([all[0]!.correlationId]);

    const one = (await activity({ s: integrationId, first: 1 })).page;
    expect(one.nodes).toHaveLength(1);
    expect(one.hasNextPage).toBe(true);
    const two = (await activity({ s: integrationId, first: 1, after: one.endCursor })).page;
    expect(two.nodes).toEqual([all[1]]);

    for (const [variables, field] of [
      [{ s: integrationId, after: Buffer.from(GOOD_CPR).toString('base64url') }, 'after'],
      [{ s: integrationId, f: { since: GOOD_CPR } }, 'filter.since'],
      [{ s: integrationId, first: 101 }, 'first'],
    ] as const) {
      const res = await gql(variables);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.text).toContain(field);
      for (const n of NUMBERS) expect(res.text).not.toContain(n);
    }
  });

  it('records 412, 404, invalidFilter and a disabled integration with the operation and the User id, never the URL; 401 is not recorded', async () => {
    const created = await scimCall('/Users', 'act-create', { method: 'POST', json: userBody({ externalId: 'ACT-X' }) });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const stale = await scimCall(`/Users/${id}`, 'act-412', {
      method: 'PATCH',
      headers: { 'if-match': 'W/"99"' },
      json: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'name.familyName', value: 'Holm' }],
      },
    });
    expect(stale.status).toBe(412);
    expect((await scimCall(`/Users/${randomUUID()}`, 'act-404')).status).toBe(404);
    const filter = encodeURIComponent(`userName eq "${GOOD_CPR}" or externalId sw "x"`);
    expectScimError(await scimCall(`/Users?filter=${filter}`, 'act-filter'), 400, 'invalidFilter', GOOD_CPR);
    const unauthenticated = await call(`${stack.base}/scim/v2/Users`, { headers: { 'x-correlation-id': 'act-401' } });
    expect(unauthenticated.status).toBe(401);
    await services().integrations.setEnabled(DEV_TENANT_ID, integrationId, false, SYSTEM);
    try {
      expect((await scimCall('/Users?count=1', 'act-403')).status).toBe(403);
    } finally {
      await services().integrations.setEnabled(DEV_TENANT_ID, integrationId, true, SYSTEM);
    }

    const { page, text } = await activity({ s: integrationId });
    expect(byCorrelation(page, 'act-412')).toMatchObject({
      operation: 'PATCH /Users/{id}',
      httpStatus: 412,
      scimType: null,
      identityId: id,
      externalId: null,
    });
    expect(byCorrelation(page, 'act-404')).toMatchObject({
      operation: 'GET /Users/{id}',
      httpStatus: 404,
      identityId: null,
    });
    expect(byCorrelation(page, 'act-filter')).toMatchObject({
      operation: 'GET /Users',
      httpStatus: 400,
      scimType: 'invalidFilter',
    });
    expect(byCorrelation(page, 'act-403')).toMatchObject({ operation: 'GET /Users', httpStatus: 403 });
    expect(byCorrelation(page, 'act-401')).toBeUndefined();
    expect(byCorrelation(page, 'act-create')).toBeUndefined();
    expect(text).not.toContain(GOOD_CPR);
    expect(text).not.toContain('/scim/v2');
  });

  it('keeps the SCIM answer as it was when the record cannot be written, and logs no value', async () => {
    setFaultInjector((_op, container) => {
      if (container === 'activity') throw new StoreError('unavailable', 'injected', 1000);
    });
    const res = await scimCall('/Users', 'act-store-down', {
      method: 'POST',
      json: userBody({ externalId: 'ACT-DOWN' }, { personalNumbers: [{ type: 'DkCpr', value: BAD_CPR }] }),
    });
    expectScimError(res, 400, 'invalidValue', BAD_CPR);
    const line = stack.logs.find((l) => l.includes('refused request not recorded') && l.includes('act-store-down'));
    expect(line).toContain('"failure":"unavailable"');
    expect(line).not.toContain('ACT-DOWN');
  });

  it('writes a record for at most 6 RU in the local engine, with a time to live in a container that applies it', async () => {
    const before = storeCounters();
    await services().refusals.record(
      {
        tenantId: DEV_TENANT_ID,
        integrationId: randomUUID(),
        method: 'PATCH',
        namedUser: true,
        identityId: randomUUID(),
        status: 400,
        scimType: 'mutability',
        detail: 'd’'.repeat(500),
        body: { externalId: 'e'.repeat(256) },
        correlationId: 'c'.repeat(64),
      },
      createLogger(() => undefined),
    );
    const spent = await until(
      async () => diffCounters(storeCounters(), before),
      (d) => d.writes === 1,
    );
    expect(spent.writes).toBe(1);
    expect(spent.requestCharge).toBeGreaterThan(5);
    expect(spent.requestCharge).toBeLessThanOrEqual(6);

    const pk = `${DEV_TENANT_ID}|${integrationId}`;
    const newest = await services()
      .store.collection<{ id: string; pk: string; ttl?: number }>('activity')
      .queryPartitionPage(pk, 'SELECT TOP 1 *', '', [], { orderBy: 'c.id DESC' });
    expect(newest.items[0]?.ttl).toBe(30 * 86_400);
    const { resource } = await services().store.database.container('activity').read();
    expect(resource?.defaultTtl).toBe(-1);
  });

  it(`records at most ${PER_MINUTE} refusals of an integration in a minute and counts the rest in a summary`, async () => {
    const token = await stack.token(DEV_CLIENTS.scim2);
    // The burst must fall in one minute.
    if (Date.now() % 60_000 > 40_000) await new Promise((r) => setTimeout(r, 60_500 - (Date.now() % 60_000)));
    const sent = PER_MINUTE + 7;
    for (let i = 0; i < sent; i++) {
      const res = await call(`${stack.base}/scim/v2/Users/${randomUUID()}`, {
        token,
        headers: { 'x-correlation-id': `act-burst-${i}` },
      });
      expect([404, 429]).toContain(res.status);
    }
    const pk = `${DEV_TENANT_ID}|${integration2Id}`;
    const docs = services().store.collection<{ id: string; pk: string; kind: string; count?: number }>('activity');
    const stored = await until(
      () => docs.queryAll({ query: 'SELECT * FROM c WHERE c.pk = @pk', parameters: [{ name: '@pk', value: pk }] }),
      (items) => items.filter((d) => d.kind === 'refusalCount').reduce((n, d) => n + (d.count ?? 0), 0) === 7,
    );
    expect(stored.filter((d) => d.kind === 'refusal')).toHaveLength(PER_MINUTE);
    expect(stored.filter((d) => d.kind === 'refusalCount').map((d) => d.count)).toEqual([7]);

    const { page } = await activity({ s: integration2Id, f: { outcome: 'REFUSED' } });
    expect(page.nodes.filter((n) => n.correlationId?.startsWith('act-burst-'))).toHaveLength(PER_MINUTE);
    const summary = page.nodes.find((n) => n.code === 'REFUSALS_COUNTED');
    expect(summary).toMatchObject({ outcome: 'REFUSED', httpStatus: null, externalId: null });
    expect(summary?.detail).toMatch(/^7 more refused request/);
    expect(page.nodes[0]).toEqual(summary); // it began after the last one recorded
  });

  it("lists a custom source's runs: completed as SUCCEEDED, rejected as REFUSED with its code, never a number", async () => {
    const admin = await stack.token(DEV_CLIENTS.admin);
    const post = (identities: unknown[]) =>
      call<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${stack.base}/graphql`, {
        method: 'POST',
        token: admin,
        headers: { 'content-type': 'application/json', 'x-correlation-id': `act-run-${identities.length}` },
        body: JSON.stringify({
          query:
            'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created runId } }',
          variables: { i: { source: 'HR-activity', identities } },
        }),
      });
    const person = (externalId: string, cpr: string) => ({
      externalId,
      affiliationType: 'EMPLOYMENT',
      firstName: 'Ida',
      lastName: 'Holm',
      personalNumbers: [{ type: 'DK_CPR', value: cpr }],
    });
    expect((await post([person('R-1', GOOD_CPR)])).body.errors).toBeUndefined();
    const rejected = await post([person('R-1', GOOD_CPR), person('R-2', BAD_CPR)]);
    expect(rejected.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    const { page, text } = await activity({ s: 'HR-activity' });
    // Each run is one entry with its counts; the identity it created is not interleaved.
    expect(page.nodes).toEqual([
      expect.objectContaining({
        operation: 'import',
        outcome: 'REFUSED',
        code: 'BAD_USER_INPUT',
        httpStatus: null,
        correlationId: 'act-run-2',
      }),
      expect.objectContaining({
        operation: 'import',
        outcome: 'SUCCEEDED',
        code: null,
        detail: 'created 1, updated 0, deleted 0, unchanged 0',
        correlationId: 'act-run-1',
      }),
    ]);
    const detailed = await call<{ data: { activity: { nodes: Array<Record<string, unknown>> } } }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: admin,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `query($s: String, $f: ActivityFilter) { activity(source: $s, filter: $f) { nodes { ${ENTRY} ${MORE} } } }`,
          variables: { s: 'HR-activity' },
        }),
      },
    );
    const [rejectedRun, run] = detailed.body.data.activity.nodes;
    expect(run).toMatchObject({
      source: 'HR-activity',
      action: 'OTHER',
      counts: [
        { name: 'created', count: 1 },
        { name: 'updated', count: 0 },
        { name: 'deleted', count: 0 },
        { name: 'unchanged', count: 0 },
      ],
      recommendedAction: null,
      actor: null,
    });
    expect(run?.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run?.durationMs).toEqual(expect.any(Number));
    expect(rejectedRun?.recommendedAction).toMatch(/Correct the fields the problems name/);
    // The run's drill-in lists its changes; each names its run.
    const drill = await call<{ data: { activity: { nodes: Array<Record<string, unknown>> } } }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: admin,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `query($f: ActivityFilter) { activity(filter: $f) { nodes { ${ENTRY} ${MORE} } hasNextPage } }`,
          variables: { f: { run: run?.runId } },
        }),
      },
    );
    expect(drill.body.data.activity.nodes).toEqual([
      expect.objectContaining({
        source: 'HR-activity',
        operation: 'IMPORT_CREATE',
        action: 'CREATE',
        outcome: 'SUCCEEDED',
        externalId: 'R-1',
        runId: run?.runId,
        changedAttributes: expect.arrayContaining(['personalNumbers']),
        actor: { kind: 'IMPORT_RUN', id: run?.runId, displayName: 'HR-activity' },
      }),
    ]);
    // An administrator's change of a run's identity is an entry of its own, among the runs, newest first.
    const r1 = drill.body.data.activity.nodes[0]?.identityId;
    const linked = await call<{ errors?: unknown[] }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation($i: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $i) { businessIdentity { id } } }',
        variables: { i: { source: 'HR-activity', id: r1, userPrincipalName: 'alice@dev.example.com' } },
      }),
    });
    expect(linked.body.errors).toBeUndefined();
    const withLink = (await activity({ s: 'HR-activity' })).page.nodes;
    expect(withLink.map((n) => n.operation)).toEqual(['LINK', 'import', 'import']);
    expect(withLink[0]).toMatchObject({
      externalId: 'R-1',
      outcome: 'SUCCEEDED',
      changedAttributes: ['directoryLink'],
    });
    const unlinked = await call<{ errors?: unknown[] }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation($i: UnlinkBusinessIdentityInput!) { unlinkBusinessIdentity(input: $i) { businessIdentity { id } } }',
        variables: { i: { source: 'HR-activity', id: r1 } },
      }),
    });
    expect(unlinked.body.errors).toBeUndefined();
    expect(
      (await activity({ s: 'HR-activity', f: { outcome: 'SUCCEEDED' } })).page.nodes.map((n) => n.operation),
    ).toEqual(['UNLINK', 'LINK', 'import']);
    expect((await activity({ s: 'HR-activity', f: { outcome: 'REFUSED' } })).page.nodes).toHaveLength(1);
    expect((await activity({ s: 'HR-activity', f: { outcome: 'FAILED' } })).page.nodes).toEqual([]);
    // One identity's changes include its runs' changes.
    expect((await activity({ s: 'HR-activity', f: { externalId: 'R-1' } })).page.nodes.map((n) => n.operation)).toEqual(
      ['UNLINK', 'LINK', 'IMPORT_CREATE'],
    );
    const paged = (await activity({ s: 'HR-activity', first: 1 })).page;
    expect((await activity({ s: 'HR-activity', first: 1, after: paged.endCursor })).page.nodes).toEqual([withLink[0]]);
    for (const n of NUMBERS) expect(JSON.stringify(drill.body)).not.toContain(n);
    for (const n of NUMBERS) expect(text).not.toContain(n);
  });

  it("lists a run of more identities than pages as one entry on the source's first page; its drill-in pages through every change", async () => {
    const SIZE = 1_000;
    const admin = await stack.token(DEV_CLIENTS.admin);
    interface Listed {
      nodes: Array<Record<string, unknown>>;
      endCursor: string | null;
      hasNextPage: boolean;
    }
    interface Answer {
      data?: { activity: Listed; importBusinessIdentities: { runId: string } } | null;
      errors?: unknown[];
    }
    const post = async (query: string, variables: Record<string, unknown>): Promise<Answer> =>
      (
        await call<Answer>(`${stack.base}/graphql`, {
          method: 'POST',
          token: admin,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        })
      ).body;
    const imported = await post(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created runId } }',
      {
        i: {
          source: 'HR-large',
          identities: Array.from({ length: SIZE }, (_, k) => ({
            externalId: `L-${k}`,
            affiliationType: 'EMPLOYMENT',
            firstName: 'Lis',
            lastName: `Holm ${k}`,
            personalNumbers: k === 0 ? [{ type: 'DK_CPR', value: GOOD_CPR }] : [],
          })),
        },
      },
    );
    expect(imported.errors).toBeUndefined();
    const runId = imported.data!.importBusinessIdentities.runId;
    const query = `query($s: String, $f: ActivityFilter, $after: String) {
      activity(source: $s, filter: $f, first: 50, after: $after) { nodes { ${ENTRY} ${MORE} } endCursor hasNextPage } }`;
    // The first page of the source: the run, one entry with its counts, none of its thousand creates.
    const first = (await post(query, { s: 'HR-large' })).data!.activity;
    expect(first.nodes).toEqual([
      expect.objectContaining({
        operation: 'import',
        outcome: 'SUCCEEDED',
        runId,
        counts: [
          { name: 'created', count: SIZE },
          { name: 'updated', count: 0 },
          { name: 'deleted', count: 0 },
          { name: 'unchanged', count: 0 },
        ],
      }),
    ]);
    expect(first.hasNextPage).toBe(false);
    // Its drill-in, page by page: every identity it created once, each change naming the run.
    const seen = new Set<unknown>();
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page: Listed = (await post(query, { f: { run: runId }, after })).data!.activity;
      pages++;
      expect(page.nodes.length).toBeLessThanOrEqual(50);
      for (const n of page.nodes) {
        expect(n).toMatchObject({ operation: 'IMPORT_CREATE', action: 'CREATE', runId, source: 'HR-large' });
        seen.add(n.externalId);
      }
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(seen.size).toBe(SIZE);
    expect(pages).toBeGreaterThanOrEqual(SIZE / 50);
    // The action filter narrows the drill-in: the run updated nothing.
    expect((await post(query, { f: { run: runId, action: 'UPDATE' } })).data!.activity.nodes).toEqual([]);
  }, 60_000);

  it('narrows by until and action, and lists every source of the organization with its source when none is named', async () => {
    const all = (await activity({ s: integrationId, first: 100 })).page.nodes;
    expect(all.length).toBeGreaterThan(4);
    const pivot = all[Math.floor(all.length / 2)]!.at;
    const before = (await activity({ s: integrationId, first: 100, f: { until: pivot } })).page.nodes;
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((n) => n.at < pivot)).toBe(true);
    expect(before).toEqual(all.filter((n) => n.at < pivot));
    const withAction = async (action: string) => {
      const res = await call<{ data: { activity: { nodes: Array<{ action: string; operation: string }> } } }>(
        `${stack.base}/graphql`,
        {
          method: 'POST',
          token: await stack.token(DEV_CLIENTS.admin),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              'query($s: String, $f: ActivityFilter) { activity(source: $s, filter: $f, first: 100) { nodes { action operation } } }',
            variables: { s: integrationId, f: { action } },
          }),
        },
      );
      return res.body.data.activity.nodes;
    };
    const created = await withAction('CREATE');
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((n) => n.action))).toEqual(new Set(['CREATE']));
    expect(created.map((n) => n.operation)).toEqual(expect.arrayContaining(['POST /Users', 'CREATE']));
    expect(await withAction('UNLINK')).toEqual([]);

    const tenantWide = await call<{ data: { activity: { nodes: Array<{ source: string; at: string }> } } }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: await stack.token(DEV_CLIENTS.admin),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ activity(first: 100) { nodes { source at } } }' }),
      },
    );
    const sources = new Set(tenantWide.body.data.activity.nodes.map((n) => n.source));
    expect([...sources]).toEqual(expect.arrayContaining([integrationId, 'HR-activity']));
    const times = tenantWide.body.data.activity.nodes.map((n) => n.at);
    expect(times).toEqual([...times].sort().reverse());

    for (const [f, field] of [
      [{ until: 'yesterday' }, 'filter.until'],
      [{ from: '2026-13-01' }, 'filter.from'],
      [{ run: 'not-a-run' }, 'filter.run'],
    ] as const) {
      const res = await gql({ s: integrationId, f });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.text).toContain(field);
      expect(res.text).not.toContain(Object.values(f)[0]);
    }
    const unknownRun = await gql({ f: { run: '01900000-0000-7000-8000-000000000000' } });
    expect(unknownRun.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('prints the same entries for operators, tab-separated and newest first (npm run ops -- activity)', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const listed = await runOps(['activity', DEV_TENANT_ID.toUpperCase(), integrationId, '--refused', '1000'], env);
    expect(listed.code).toBe(0);
    const { page } = await activity({ s: integrationId, f: { outcome: 'REFUSED' }, first: 100 });
    expect(listed.out.map((l) => l.split('\t')[8])).toEqual(page.nodes.map((n) => n.correlationId ?? '-'));
    const dup = listed.out.find((l) => l.includes('act-dup-2'))!.split('\t');
    expect(dup).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      'REFUSED',
      'POST /Users',
      '409',
      'uniqueness',
      '-',
      'ACT-DUP',
      '-',
      'act-dup-2',
      expect.any(String),
    ]);
    for (const n of NUMBERS) expect(listed.out.join('\n')).not.toContain(n);
    const runs = await runOps(['activity', DEV_TENANT_ID, 'HR-activity', '--refused', '1'], env);
    expect(runs.out).toEqual([expect.stringMatching(/\tREFUSED\timport\t-\t-\tBAD_USER_INPUT\t-\t-\tact-run-2\t/)]);
    expect((await runOps(['activity', DEV_TENANT_ID, 'Nothing Here'], env)).out).toEqual([
      'no activity of that source',
    ]);
    for (const argv of [
      ['activity', 'x', 'S'],
      ['activity', DEV_TENANT_ID],
      ['activity', DEV_TENANT_ID, 'S', '--failed'],
      ['activity', DEV_TENANT_ID, 'S', '0'],
      ['activity', DEV_TENANT_ID, 'S', '1001'],
    ])
      expect((await runOps(argv, env)).code).toBe(2);
    expect((await runOps(['--help'], {})).out.join('\n')).toContain('activity <tenantId> <source> [--refused]');
  });
});
