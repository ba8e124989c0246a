/**
 * Each identity keeps its changes: who (integration, import run, administrator, background work), what and
 * which attributes, by name only, newest first and bounded. businessIdentity shows them; a source's
 * SUCCEEDED activity lists them; never a personal number, never another integration's.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody, EXT } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc, type IdentityHistoryEntry } from '../../lib/identities/model';
import { MAX_HISTORY, readHistory } from '../../lib/identities/history';
import { purgePartitionExpiredSensitiveData } from '../../lib/identities/retention';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { historyStream } from '../../lib/activity/historyActivity';
import { readActivity } from '../../lib/activity/entries';
import { runOps } from '../../scripts/ops';

const CPR = '0101901234';
const NUMBERS = [CPR, '010190-1234'];
const CHANGE = 'at actor { kind id displayName } operation changedAttributes';
const IDENTITY = `query($s: String!, $id: ID!) { businessIdentity(source: $s, id: $id) { id externalId history { ${CHANGE} } historyOmitted } }`;
const ACTIVITY = `query($s: String!, $f: ActivityFilter, $first: Int, $after: String) {
  activity(source: $s, filter: $f, first: $first, after: $after) {
    nodes { at operation outcome externalId identityId changedAttributes correlationId } endCursor hasNextPage } }`;

interface Change {
  at: string;
  actor: { kind: string; id: string; displayName: string | null };
  operation: string;
  changedAttributes: string[];
}
interface Identity {
  id: string;
  externalId: string;
  history: Change[];
  historyOmitted: number;
}
interface Entry {
  at: string;
  operation: string;
  outcome: string;
  externalId: string | null;
  identityId: string | null;
  changedAttributes: string[] | null;
  correlationId: string | null;
}
type Gql<T> = { data?: T | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };

describe('identity history', () => {
  let stack: TestStack;
  let integrationId: string;
  let integration2Id: string;
  let api: ReturnType<typeof scim>;

  const gql = async <T>(query: string, variables: Record<string, unknown>) => {
    const res = await call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    expect(res.body.errors).toBeUndefined();
    return { data: res.body.data as T, text: res.text };
  };
  const identity = (source: string, id: string) =>
    gql<{ businessIdentity: Identity }>(IDENTITY, { s: source, id }).then((r) => ({
      identity: r.data.businessIdentity,
      text: r.text,
    }));
  const activity = (variables: Record<string, unknown>) =>
    gql<{ activity: { nodes: Entry[]; endCursor: string | null; hasNextPage: boolean } }>(ACTIVITY, variables).then(
      (r) => ({ page: r.data.activity, text: r.text }),
    );

  beforeAll(async () => {
    stack = await startTestStack();
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    integration2Id = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))!.id;
  });
  afterAll(async () => stack?.stop());

  it('lists a SCIM POST with a CPR and a PATCH of name.givenName, newest first, by name, with the integration as actor', async () => {
    const created = await api.create(
      userBody({ externalId: 'HIST-1' }, { personalNumbers: [{ type: 'DkCpr', value: CPR }] }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await api.patch(id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Annika' }],
    });
    expect(patched.status).toBe(200);
    // The SCIM resource carries no history.
    expect(patched.text).not.toContain('history');

    const { identity: found, text } = await identity(integrationId, id);
    const actor = { kind: 'INTEGRATION', id: integrationId, displayName: 'Dev SCIM' };
    expect(found.historyOmitted).toBe(0);
    expect(found.history).toEqual([
      { at: patched.body.meta.lastModified, actor, operation: 'PATCH', changedAttributes: ['name.givenName'] },
      {
        at: created.body.meta.created,
        actor,
        operation: 'CREATE',
        changedAttributes: [
          'externalId',
          'userName',
          'affiliationType',
          'name.givenName',
          'name.familyName',
          'active',
          'personalNumbers',
        ],
      },
    ]);
    for (const n of NUMBERS) expect(text).not.toContain(n);

    // A source's SUCCEEDED activity lists the same changes; another integration's does not.
    const succeeded = await activity({ s: integrationId, f: { outcome: 'SUCCEEDED', externalId: 'HIST-1' } });
    expect(succeeded.page.nodes).toEqual([
      {
        at: found.history[0]!.at,
        operation: 'PATCH',
        outcome: 'SUCCEEDED',
        externalId: 'HIST-1',
        identityId: id,
        changedAttributes: ['name.givenName'],
        correlationId: null,
      },
      expect.objectContaining({
        operation: 'CREATE',
        identityId: id,
        changedAttributes: found.history[1]!.changedAttributes,
      }),
    ]);
    const all = await activity({ s: integrationId });
    expect(all.page.nodes.slice(0, 2).map((n) => n.operation)).toEqual(['PATCH', 'CREATE']);
    for (const n of NUMBERS) expect(all.text).not.toContain(n);
    const other = await activity({ s: integration2Id });
    expect(other.page.nodes.filter((n) => n.identityId === id)).toEqual([]);
    // Nor is the identity another integration's to show.
    expect(
      (await gql<{ businessIdentity: null }>(IDENTITY, { s: integration2Id, id })).data.businessIdentity,
    ).toBeNull();

    // Operators see the same, the attribute names in the detail column.
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const listed = await runOps(['activity', DEV_TENANT_ID, integrationId, '2'], env);
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => l.split('\t'))).toEqual([
      [found.history[0]!.at, 'SUCCEEDED', 'PATCH', '-', '-', '-', 'HIST-1', id, '-', 'name.givenName'],
      [
        found.history[1]!.at,
        'SUCCEEDED',
        'CREATE',
        '-',
        '-',
        '-',
        'HIST-1',
        id,
        '-',
        found.history[1]!.changedAttributes.join(','),
      ],
    ]);
    for (const n of NUMBERS) expect(listed.out.join('\n')).not.toContain(n);

    // Paged newest first with the cursor, a page at a time.
    const one = await activity({ s: integrationId, f: { outcome: 'SUCCEEDED', externalId: 'HIST-1' }, first: 1 });
    expect(one.page.hasNextPage).toBe(true);
    const two = await activity({
      s: integrationId,
      f: { outcome: 'SUCCEEDED', externalId: 'HIST-1' },
      first: 1,
      after: one.page.endCursor,
    });
    expect(two.page.nodes.map((n) => n.operation)).toEqual(['CREATE']);
    expect(two.page.hasNextPage).toBe(false);
  });

  it('lists are without history; a PUT and a change of the asserted UPN name what changed, the link included', async () => {
    const created = (await api.create(userBody({ externalId: 'HIST-2' }))).body;
    const put = await api.put(created.id, {
      ...userBody({ externalId: 'HIST-2', userName: created.userName }),
      [EXT]: { affiliationType: 'employment', directoryUserPrincipalName: 'bob@dev.example.com', nationality: 'DK' },
    });
    expect(put.status).toBe(200);
    const { identity: found } = await identity(integrationId, created.id);
    expect(found.history[0]).toMatchObject({
      operation: 'REPLACE',
      changedAttributes: ['nationality', 'directoryUserPrincipalName', 'directoryLink'],
    });
    const listed = await gql<{ businessIdentities: { nodes: Array<{ history: Change[]; historyOmitted: number }> } }>(
      `query($s: String!) { businessIdentities(source: $s, filter: { externalId: "HIST-2" }) { nodes { history { ${CHANGE} } historyOmitted } } }`,
      { s: integrationId },
    );
    expect(listed.data.businessIdentities.nodes).toEqual([{ history: [], historyOmitted: 0 }]);
  });

  it('reads a bounded number of identities per page: a page ends where the reading stopped; one that would be empty is refused', async () => {
    const api2 = scim(stack, await stack.token(DEV_CLIENTS.scim2));
    for (const externalId of ['CUT-1', 'CUT-2', 'CUT-3', 'CUT-4']) await api2.create(userBody({ externalId }));
    const pk = partitionKey(DEV_TENANT_ID, integration2Id);
    const all = (await readActivity([historyStream(services().store, pk, 'lastModified')], { limit: 100 })).entries;
    expect(all.slice(0, 4).map((e) => e.externalId)).toEqual(['CUT-4', 'CUT-3', 'CUT-2', 'CUT-1']);
    // At most three identities read per page, one entry per page.
    const bounded = historyStream(services().store, pk, 'lastModified', 3);
    const first = await readActivity([bounded], { limit: 1 });
    expect(first).toEqual({ entries: [all[0]], hasMore: true });
    const second = await readActivity([bounded], { limit: 1, before: all[0]!.key });
    // The third identity read bounds what is known: the page ends above it, and says more follows.
    expect(second).toEqual({ entries: [all[1]], hasMore: true });
    await expect(readActivity([bounded], { limit: 1, before: all[1]!.key })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    // An externalId reads one identity.
    expect((await readActivity([bounded], { limit: 5, externalId: 'CUT-1' })).entries).toEqual([all[3]]);
  });

  it(`keeps the last ${MAX_HISTORY} changes and counts the older ones`, async () => {
    const created = (await api.create(userBody({ externalId: 'HIST-BOUND' }))).body;
    const patches = MAX_HISTORY + 5;
    for (let i = 0; i < patches; i++) {
      const res = await api.patch(created.id, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'name.familyName', value: `Berg${i}` }],
      });
      expect(res.status).toBe(200);
    }
    const { identity: found } = await identity(integrationId, created.id);
    expect(found.history).toHaveLength(MAX_HISTORY);
    expect(found.historyOmitted).toBe(patches + 1 - MAX_HISTORY);
    expect(found.history.every((c) => c.operation === 'PATCH')).toBe(true);
    const times = found.history.map((c) => c.at);
    expect([...times].sort().reverse()).toEqual(times);
    // Stored compactly: the full history adds about 1 KB to the identity (the readable form took 8.5 KB).
    const pk = partitionKey(DEV_TENANT_ID, integrationId);
    const stored = await services().store.collection<IdentityDoc>('identities').read(pk, created.id);
    expect(Buffer.byteLength(JSON.stringify(stored?.history))).toBeLessThan(MAX_HISTORY * 22);
  });

  it('a PATCH of a User with a full history costs at most about 2 RU more than one of a new User', async () => {
    const patchCost = async (id: string, value: string) => {
      const counters = storeCounters();
      const res = await api.patch(id, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'name.familyName', value }],
      });
      expect(res.status).toBe(200);
      return diffCounters(storeCounters(), counters).requestCharge;
    };
    const fresh = (await api.create(userBody({ externalId: 'HIST-COST-NEW' }))).body;
    const full = (await api.create(userBody({ externalId: 'HIST-COST-FULL' }))).body;
    for (let i = 0; i < MAX_HISTORY; i++) await patchCost(full.id, `Berg${i}`);
    const atFirst = await patchCost(fresh.id, 'Dahl');
    const atFull = await patchCost(full.id, 'Dahl');
    expect(atFull - atFirst).toBeLessThanOrEqual(2.5);
  });

  it('reads a history stored in the readable form, and stores it compactly with the next change', async () => {
    const created = (await api.create(userBody({ externalId: 'HIST-READABLE' }))).body;
    const pk = partitionKey(DEV_TENANT_ID, integrationId);
    const identities = services().store.collection<IdentityDoc>('identities');
    const doc = (await identities.read(pk, created.id))!;
    const readable: IdentityHistoryEntry[] = [
      {
        at: doc.lastModified,
        actor: { kind: 'administrator', id: 'admin-old' },
        operation: 'ADMIN_UPDATE',
        changedAttributes: ['nationality'],
      },
      {
        at: doc.created,
        actor: { kind: 'integration', id: integrationId },
        operation: 'CREATE',
        changedAttributes: ['externalId'],
      },
    ];
    await identities.replace({ ...doc, history: readable, historyOmitted: 2 });
    const shown = [
      { ...readable[0]!, actor: { kind: 'ADMINISTRATOR', id: 'admin-old', displayName: null } },
      { ...readable[1]!, actor: { kind: 'INTEGRATION', id: integrationId, displayName: 'Dev SCIM' } },
    ];
    expect((await identity(integrationId, created.id)).identity).toMatchObject({ history: shown, historyOmitted: 2 });
    const listed = await activity({ s: integrationId, f: { externalId: 'HIST-READABLE' } });
    expect(listed.page.nodes.map((n) => [n.at, n.operation, n.changedAttributes])).toEqual([
      [doc.lastModified, 'ADMIN_UPDATE', ['nationality']],
      [doc.created, 'CREATE', ['externalId']],
    ]);

    const patched = await api.patch(created.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Alma' }],
    });
    expect(patched.status).toBe(200);
    const after = (await identities.read(pk, created.id))!;
    expect(Array.isArray(after.history)).toBe(false);
    expect(readHistory(after)).toEqual([
      {
        at: patched.body.meta.lastModified,
        actor: { kind: 'integration', id: integrationId },
        operation: 'PATCH',
        changedAttributes: ['name.givenName'],
      },
      ...readable,
    ]);
    expect((await identity(integrationId, created.id)).identity.historyOmitted).toBe(2);
  });

  it('records an import run as the actor of creates and updates; an unchanged import writes nothing and adds no history', async () => {
    const importSet = (lastName: string) =>
      gql<{ importBusinessIdentities: { created: number; updated: number; unchanged: number; runId: string } }>(
        'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated unchanged runId } }',
        {
          i: {
            source: 'HR-history',
            identities: [
              {
                externalId: 'H-1',
                affiliationType: 'EMPLOYMENT',
                firstName: 'Ida',
                lastName,
                personalNumbers: [{ type: 'DK_CPR', value: CPR }],
              },
            ],
          },
        },
      ).then((r) => r.data.importBusinessIdentities);
    const first = await importSet('Holm');
    expect(first).toMatchObject({ created: 1 });
    const id = (await services().identities.findOne(
      partitionKey(DEV_TENANT_ID, 'src:HR-history'),
      'externalIdKey',
      'H-1',
    ))!.id;
    const run = { kind: 'IMPORT_RUN', id: first.runId, displayName: 'HR-history' };
    const before = (await identity('HR-history', id)).identity;
    expect(before.history).toEqual([
      {
        at: expect.any(String),
        actor: run,
        operation: 'IMPORT_CREATE',
        changedAttributes: [
          'externalId',
          'affiliationType',
          'name.givenName',
          'name.familyName',
          'active',
          'personalNumbers',
        ],
      },
    ]);

    const counters = storeCounters();
    expect(await importSet('Holm')).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    expect(diffCounters(storeCounters(), counters).identityWrites).toBe(0);
    expect((await identity('HR-history', id)).identity).toEqual(before);

    const third = await importSet('Holm-Berg');
    expect(third).toMatchObject({ updated: 1 });
    const { identity: after, text } = await identity('HR-history', id);
    expect(after.history).toEqual([
      {
        at: expect.any(String),
        actor: { ...run, id: third.runId },
        operation: 'IMPORT_UPDATE',
        changedAttributes: ['name.familyName'],
      },
      before.history[0],
    ]);
    for (const n of NUMBERS) expect(text).not.toContain(n);

    // An association run links it: the run is the actor.
    stack.directory.createUser(DEV_TENANT_ID, 'hist.assoc@dev.example.com');
    const associated = await gql<{ associateBusinessIdentities: { associated: number; runId: string } }>(
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated runId } }',
      {
        i: {
          source: 'HR-history',
          associations: [{ externalId: 'H-1', userPrincipalName: 'hist.assoc@dev.example.com' }],
        },
      },
    );
    expect(associated.data.associateBusinessIdentities.associated).toBe(1);
    expect((await identity('HR-history', id)).identity.history[0]).toEqual({
      at: expect.any(String),
      actor: { ...run, id: associated.data.associateBusinessIdentities.runId },
      operation: 'LINK',
      changedAttributes: ['directoryLink'],
    });
  });

  it("records a staged import's job with its run as the actor", async () => {
    const started = await gql<{ startImport: { importId: string } }>(
      'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }',
      { i: { source: 'HR-staged-history' } },
    );
    const importId = started.data.startImport.importId;
    await gql('mutation($i: AddImportPartInput!) { addImportPart(input: $i) { sequence } }', {
      i: {
        importId,
        sequence: 1,
        identities: [{ externalId: 'S-1', affiliationType: 'ENGAGEMENT', firstName: 'Sif', lastName: 'Dam' }],
      },
    });
    const completed = await gql<{ completeImport: { runId: string } }>(
      'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId } }',
      { i: { importId } },
    );
    const runId = completed.data.completeImport.runId;
    await stack.host.queuesIdle(30_000);
    const pk = partitionKey(DEV_TENANT_ID, 'src:HR-staged-history');
    const doc = await services().identities.findOne(pk, 'externalIdKey', 'S-1');
    expect(readHistory(doc ?? {})).toEqual([
      {
        at: doc?.lastModified,
        actor: { kind: 'importRun', id: runId },
        operation: 'IMPORT_CREATE',
        changedAttributes: ['externalId', 'affiliationType', 'name.givenName', 'name.familyName', 'active'],
      },
    ]);
  });

  it('records administrators’ changes and links, the background link check and retention', async () => {
    const manual = await gql<{ createBusinessIdentity: { businessIdentity: { id: string } } }>(
      'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id } } }',
      {
        i: {
          externalId: 'M-HIST',
          affiliationType: 'OTHER',
          firstName: 'Mia',
          lastName: 'Lund',
          personalNumbers: [{ type: 'DK_CPR', value: CPR }],
        },
      },
    );
    const manualId = manual.data.createBusinessIdentity.businessIdentity.id;
    await gql(
      'mutation($i: BusinessIdentityRefInput!) { deactivateBusinessIdentity(input: $i) { businessIdentity { id } } }',
      { i: { id: manualId } },
    );
    const adminActor = { kind: 'ADMINISTRATOR', id: DEV_CLIENTS.admin.clientId, displayName: null };
    const afterDeactivate = (await identity('Manual', manualId)).identity;
    expect(afterDeactivate.history.map((c) => [c.operation, c.changedAttributes, c.actor])).toEqual([
      ['DEACTIVATE', ['active'], adminActor],
      [
        'CREATE',
        ['externalId', 'affiliationType', 'name.givenName', 'name.familyName', 'active', 'personalNumbers'],
        adminActor,
      ],
    ]);

    // Retention, 90 days after the identity turned inactive: it names what it deleted.
    const later = new Date(Date.now() + 91 * 86_400_000);
    await purgePartitionExpiredSensitiveData(services().store, partitionKey(DEV_TENANT_ID, 'manual'), 90, 10, later);
    expect((await identity('Manual', manualId)).identity.history[0]).toEqual({
      at: expect.any(String),
      actor: { kind: 'BACKGROUND', id: 'retention', displayName: 'Retention' },
      operation: 'RETENTION',
      changedAttributes: ['personalNumbers'],
    });

    // An administrator's link and unlink name the link.
    const user = stack.directory.findByUpn(DEV_TENANT_ID, 'carol@dev.example.com')!;
    await gql(
      'mutation($i: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $i) { businessIdentity { id } } }',
      { i: { source: 'Manual', id: manualId, directoryUserId: user.id } },
    );
    await gql(
      'mutation($i: UnlinkBusinessIdentityInput!) { unlinkBusinessIdentity(input: $i) { businessIdentity { id } } }',
      { i: { source: 'Manual', id: manualId } },
    );
    const linked = (await identity('Manual', manualId)).identity;
    expect(linked.history.slice(0, 2).map((c) => [c.operation, c.changedAttributes, c.actor.kind])).toEqual([
      ['UNLINK', ['directoryLink'], 'ADMINISTRATOR'],
      ['LINK', ['directoryLink'], 'ADMINISTRATOR'],
    ]);

    // A pending link that the background work completes once the directory user appears.
    const pending = (
      await api.create(
        userBody({ externalId: 'HIST-PENDING' }, { directoryUserPrincipalName: 'hist.new@dev.example.com' }),
      )
    ).body;
    stack.directory.createUser(DEV_TENANT_ID, 'hist.new@dev.example.com');
    await stack.host.runTimer('resolvePendingLinks');
    await stack.host.queuesIdle(30_000);
    const checked = (await identity(integrationId, pending.id)).identity;
    expect(checked.history[0]).toEqual({
      at: expect.any(String),
      actor: { kind: 'BACKGROUND', id: 'directory-links', displayName: 'Directory links' },
      operation: 'LINK_CHECK',
      changedAttributes: ['directoryLink'],
    });
    expect(checked.history[1]).toMatchObject({
      operation: 'CREATE',
      changedAttributes: expect.arrayContaining(['directoryUserPrincipalName', 'directoryLink']),
    });
  });
});
