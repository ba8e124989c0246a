import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody, type ScimUser } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';

type Gql = {
  data?: Record<string, { businessIdentity?: Record<string, unknown> }> | null;
  errors?: Array<{ extensions?: { code?: string } }>;
};

describe('directory links (SCIM UPN state machine)', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;
  let api2: ReturnType<typeof scim>;
  let integrationId: string;
  let integration2Id: string;
  const link = (u: ScimUser) => ({
    status: u[EXT]?.directoryLinkStatus,
    source: u[EXT]?.directoryLinkSource,
    userId: u[EXT]?.directoryLinkedUserId,
  });
  const withUpn = (upn: string | undefined, overrides: Record<string, unknown> = {}) =>
    userBody(overrides, upn === undefined ? {} : { directoryUserPrincipalName: upn });
  const admin = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const runTimer = async () => {
    const res = await call(`${stack.base}/admin/functions/resolvePendingLinks`, { method: 'POST' });
    expect(res.status).toBe(202);
  };
  const eventually = async (check: () => Promise<boolean>) => {
    const until = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('not reached in time');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** One whole background run: the timer's planning, then every unit it enqueued (no waiting on the clock). */
  const backgroundRunDone = async () => {
    await stack.host.runTimer('resolvePendingLinks');
    await stack.host.queuesIdle(30_000);
  };
  /** Background checks that left the identity's link as it was (a counter the store keeps). */
  const checksOf = async (id: string, ofIntegration = integrationId) => {
    const doc = await services().identities.get(partitionKey(DEV_TENANT_ID, ofIntegration), id);
    return doc?.link.checks ?? 0;
  };
  const alice = () => stack.directory.findByUpn(DEV_TENANT_ID, 'alice@dev.example.com')!;

  beforeAll(async () => {
    // No back-off here: these tests re-run the planner right after a check (back-off: backgroundWork.test.ts).
    stack = await startTestStack({ env: { PENDING_LINK_BACKOFF_SECONDS: '0' } });
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    api2 = scim(stack, await stack.token(DEV_CLIENTS.scim2));
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
    integration2Id = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))!.id;
  });
  afterAll(async () => stack?.stop());

  it('links by UPN to the existing directory user, keeps the object id across a rename, and moves with a new UPN', async () => {
    const first = (await api.create(withUpn('ALICE@dev.example.com'))).body;
    expect(link(first)).toEqual({ status: 'linked', source: 'asserted', userId: alice().id });

    stack.directory.renameUser(DEV_TENANT_ID, alice().id, 'alice.renamed@dev.example.com');
    const kept = await api.put(
      first.id,
      withUpn('ALICE@dev.example.com', { externalId: first.externalId, userName: first.userName, active: false }),
    );
    expect(link(kept.body)).toEqual({
      status: 'linked',
      source: 'asserted',
      userId: stack.directory.findByUpn(DEV_TENANT_ID, 'alice.renamed@dev.example.com')!.id,
    });
    stack.directory.renameUser(DEV_TENANT_ID, kept.body[EXT]!.directoryLinkedUserId as string, 'alice@dev.example.com');

    const bob = stack.directory.findByUpn(DEV_TENANT_ID, 'bob@dev.example.com')!;
    const moved = await api.put(
      first.id,
      withUpn('bob@dev.example.com', { externalId: first.externalId, userName: first.userName }),
    );
    expect(link(moved.body)).toEqual({ status: 'linked', source: 'asserted', userId: bob.id });
    // alice is free again: another identity can take her
    const other = (await api2.create(withUpn('alice@dev.example.com'))).body;
    expect(link(other).status).toBe('linked');

    const removed = await api.put(
      first.id,
      withUpn(undefined, { externalId: first.externalId, userName: first.userName }),
    );
    expect(link(removed.body)).toEqual({ status: 'notAsserted', source: undefined, userId: undefined });
    await api2.delete(other.id); // releases alice
  });

  it('pending until the directory user exists; the background run links it and moves meta.lastModified', async () => {
    const created = (await api.create(withUpn('dana.new@dev.example.com'))).body;
    expect(link(created).status).toBe('pending');
    const deltaBefore = stack.directory.stats().requestsByTenant[DEV_TENANT_ID] ?? 0;
    await backgroundRunDone();
    expect(link((await api.get(created.id)).body).status).toBe('pending');
    // The run asked the directory what changed (the user does not exist yet) and left the identity pending.
    expect(stack.directory.stats().requestsByTenant[DEV_TENANT_ID] ?? 0).toBeGreaterThan(deltaBefore);

    const dana = stack.directory.createUser(DEV_TENANT_ID, 'dana.new@dev.example.com');
    await runTimer();
    await eventually(async () => link((await api.get(created.id)).body).status === 'linked');
    const after = (await api.get(created.id)).body;
    expect(link(after)).toEqual({ status: 'linked', source: 'asserted', userId: dana.id });
    expect(after.meta.lastModified > created.meta.lastModified).toBe(true);
    const changed = await api.list(
      `?filter=${encodeURIComponent(`meta.lastModified gt "${created.meta.lastModified}"`)}`,
    );
    expect(changed.body.Resources.map((r) => r.id)).toContain(created.id);
  });

  it('conflict when the user is linked elsewhere; the first link stays; after unlinking it the next run links the second', async () => {
    const carol = stack.directory.findByUpn(DEV_TENANT_ID, 'carol@dev.example.com')!;
    const first = (await api.create(withUpn('carol@dev.example.com'))).body;
    const second = (await api2.create(withUpn('carol@dev.example.com'))).body;
    expect(link(first)).toEqual({ status: 'linked', source: 'asserted', userId: carol.id });
    expect(link(second).status).toBe('conflict');
    await backgroundRunDone();
    expect(link((await api2.get(second.id)).body).status).toBe('conflict');
    expect(await checksOf(second.id, integration2Id)).toBeGreaterThanOrEqual(1); // the run looked at it, and left the conflict
    expect(link((await api.get(first.id)).body).userId).toBe(carol.id);

    const unlinked = await admin(
      'mutation($s: String!, $id: ID!) { unlinkBusinessIdentity(input: { source: $s, id: $id }) { businessIdentity { directoryLinkStatus } } }',
      { s: integrationId, id: first.id },
    );
    expect(unlinked.body.data?.unlinkBusinessIdentity?.businessIdentity).toEqual({
      directoryLinkStatus: 'NOT_ASSERTED',
    });
    await runTimer();
    await eventually(async () => link((await api2.get(second.id)).body).status === 'linked');
    expect(link((await api2.get(second.id)).body).userId).toBe(carol.id);
    await api2.delete(second.id);
    await api.delete(first.id);
  });

  it('manual link: kept by a save without UPN (linked/manual), replaced by an asserted UPN with an audit entry', async () => {
    const erin = stack.directory.createUser(DEV_TENANT_ID, 'erin@dev.example.com');
    const created = (await api.create(withUpn(undefined))).body;
    const linked = await admin(
      'mutation($s: String!, $id: ID!, $u: String) { linkBusinessIdentity(input: { source: $s, id: $id, directoryUserId: $u }) { businessIdentity { directoryLinkStatus directoryLinkSource directoryLinkedUserId } } }',
      {
        s: integrationId,
        id: created.id,
        u: erin.id,
      },
    );
    expect(linked.body.data?.linkBusinessIdentity?.businessIdentity).toEqual({
      directoryLinkStatus: 'LINKED',
      directoryLinkSource: 'MANUAL',
      directoryLinkedUserId: erin.id,
    });
    // The enum in a filter reaches the store as the stored word: the identity is among the LINKED, not the PENDING.
    const byStatus = async (status: string) => {
      const res = await call<{ data?: { businessIdentities?: { nodes: Array<{ id: string }> } } }>(
        `${stack.base}/graphql`,
        {
          method: 'POST',
          token: await stack.token(DEV_CLIENTS.admin),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query: `query($s: String!) { businessIdentities(source: $s, first: 100, filter: { linkStatus: ${status} }) { nodes { id } } }`,
            variables: { s: integrationId },
          }),
        },
      );
      return (res.body.data?.businessIdentities?.nodes ?? []).map((n) => n.id);
    };
    expect(await byStatus('LINKED')).toContain(created.id);
    expect(await byStatus('PENDING')).not.toContain(created.id);

    const saved = await api.put(
      created.id,
      withUpn(undefined, {
        externalId: created.externalId,
        userName: created.userName,
        name: { givenName: 'Erin', familyName: 'Berg' },
      }),
    );
    expect(link(saved.body)).toEqual({ status: 'linked', source: 'manual', userId: erin.id });

    const asserted = await api.patch(created.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: `${EXT}:directoryUserPrincipalName`, value: 'erin@dev.example.com' }],
    });
    expect(link(asserted.body)).toEqual({ status: 'linked', source: 'asserted', userId: erin.id });
    const audit = await services().audit.list(DEV_TENANT_ID, created.id);
    const replaced = audit.find((e) => e.action === 'link.manualReplacedByAsserted');
    expect(replaced).toMatchObject({
      before: { status: 'linked', source: 'manual', userId: erin.id },
      after: { status: 'linked', source: 'asserted', userId: erin.id },
      actor: { kind: 'app', id: DEV_CLIENTS.scim.clientId },
    });
    expect(audit.find((e) => e.action === 'link.manualLinked')).toBeDefined();
  });

  it('manual link over an asserted UPN: an identical PUT keeps it; any save carrying the UPN replaces it (audited)', async () => {
    const gus = stack.directory.createUser(DEV_TENANT_ID, 'gus@dev.example.com');
    const hal = stack.directory.createUser(DEV_TENANT_ID, 'hal@dev.example.com');
    const body = withUpn('gus@dev.example.com');
    const created = (await api.create(body)).body;
    expect(link(created)).toEqual({ status: 'linked', source: 'asserted', userId: gus.id });
    const manual = await admin(
      'mutation($s: String!, $id: ID!, $u: String) { linkBusinessIdentity(input: { source: $s, id: $id, directoryUserId: $u }) { businessIdentity { directoryLinkSource directoryLinkedUserId } } }',
      {
        s: integrationId,
        id: created.id,
        u: hal.id,
      },
    );
    expect(manual.body.data?.linkBusinessIdentity?.businessIdentity).toEqual({
      directoryLinkSource: 'MANUAL',
      directoryLinkedUserId: hal.id,
    });

    // The connector re-sends the User unchanged (Entra does so on every cycle): the administrator's link stays.
    const identical = await api.put(created.id, body);
    expect(identical.status).toBe(200);
    expect(link(identical.body)).toEqual({ status: 'linked', source: 'manual', userId: hal.id });
    const roundTrip = await api.put(created.id, (await api.get(created.id)).body); // read-only link attributes included
    expect(link(roundTrip.body)).toEqual({ status: 'linked', source: 'manual', userId: hal.id });
    const noOpPatch = await api.patch(created.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: `${EXT}:directoryUserPrincipalName`, value: 'gus@dev.example.com' }],
    });
    expect(link(noOpPatch.body)).toEqual({ status: 'linked', source: 'manual', userId: hal.id });

    // A save that changes anything and carries the UPN replaces the manual link with the asserted one.
    const changed = await api.put(created.id, { ...body, name: { givenName: 'Gus', familyName: 'Holm' } });
    expect(link(changed.body)).toEqual({ status: 'linked', source: 'asserted', userId: gus.id });
    const audit = await services().audit.list(DEV_TENANT_ID, created.id);
    expect(audit.find((e) => e.action === 'link.manualReplacedByAsserted')).toMatchObject({
      before: { status: 'linked', source: 'manual', userId: hal.id },
      after: { status: 'linked', source: 'asserted', userId: gus.id },
    });
    // hal's claim was released with the manual link: another identity can be linked to hal now.
    expect(link((await api2.create(withUpn('hal@dev.example.com'))).body)).toMatchObject({
      status: 'linked',
      userId: hal.id,
    });
  });

  it('DELETE of a User releases its link', async () => {
    const frank = stack.directory.createUser(DEV_TENANT_ID, 'frank@dev.example.com');
    const first = (await api.create(withUpn('frank@dev.example.com'))).body;
    expect(link(first).userId).toBe(frank.id);
    expect((await api.delete(first.id)).status).toBe(204);
    const second = (await api2.create(withUpn('frank@dev.example.com'))).body;
    expect(link(second)).toEqual({ status: 'linked', source: 'asserted', userId: frank.id });
  });

  it('10 identities asserting the same UPN at once: exactly one is linked, the rest conflict', async () => {
    const gina = stack.directory.createUser(DEV_TENANT_ID, 'gina@dev.example.com');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? api : api2).create(withUpn('gina@dev.example.com'))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const statuses = results.map((r) => link(r.body).status);
    expect(statuses.filter((s) => s === 'linked')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'conflict')).toHaveLength(9);
    expect(results.find((r) => link(r.body).status === 'linked')?.body[EXT]?.directoryLinkedUserId).toBe(gina.id);
  });

  it('directory throttling beyond the retries does not fail the save: the User is stored pending (see directoryOutage.test.ts)', async () => {
    const body = withUpn('carol@dev.example.com');
    stack.directory.throttleNext(10, 1);
    const res = await api.create(body);
    stack.directory.throttleNext(0, 1);
    expect(res.status).toBe(201);
    expect(link(res.body).status).toBe('pending');
    await api.delete(res.body.id);
  });

  it("a UPN with #EXT#, an apostrophe, ^ and ~ (Entra's other allowed characters) is looked up exactly", async () => {
    const guest = stack.directory.createUser(DEV_TENANT_ID, "o'neil^x~y_partner.example#EXT#@dev.example.com");
    const created = (await api.create(withUpn("O'Neil^x~y_partner.example#EXT#@dev.example.com"))).body;
    expect(link(created)).toEqual({ status: 'linked', source: 'asserted', userId: guest.id });
  });
});
