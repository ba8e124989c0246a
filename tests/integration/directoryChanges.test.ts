/**
 * Directory change tracking over the real stack: the service's Graph client asks the directory
 * stand-in's `/users/delta` each cycle and matches what changed against pending and conflict identities.
 */
import { startTestStack, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services, workDeps } from '../../lib/services';
import { type DirectoryLink, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { runBackgroundWork } from '../../lib/background/runWork';
import type { TenantCycleResult } from '../../lib/links/tenantLinkCycle';
import { fetchUserDeltaPage, USERS_DELTA_START } from '../../lib/directory/userDelta';
import { DeltaStates } from '../../lib/links/deltaState';
import { upnKey } from '../../lib/identities/upn';

const SOURCE = 'delta-source';
let tenantSeq = 0;
const newTenantId = () => `e${(++tenantSeq).toString(16).padStart(7, '0')}-0000-4000-8000-00000000000e`;

describe('directory change tracking (Graph delta query on users)', () => {
  let stack: TestStack;

  /** A consented customer tenant: registered, and the service's Graph client exists there. */
  const addTenant = async (): Promise<string> => {
    const tenantId = newTenantId();
    await services().tenants.register(tenantId);
    stack.idp.addClient({
      tenantId,
      clientId: SERVICE_GRAPH_CLIENT.clientId,
      secret: SERVICE_GRAPH_CLIENT.secret,
      roles: [],
    });
    return tenantId;
  };
  const addPending = async (tenantId: string, upn: string, source = SOURCE): Promise<IdentityDoc> => {
    const doc = newIdentityDoc({
      id: uuid7(),
      tenantId,
      sourceKind: 'custom',
      sourceKey: source,
      attributes: {
        externalId: `${upn}-${uuid7()}`,
        userName: upn,
        givenName: 'P',
        familyName: 'Q',
        active: true,
        affiliationType: 'employment',
        personalNumbers: [],
        identityDocumentReferences: [],
        directoryUserPrincipalName: upn,
      },
      now: new Date().toISOString(),
      link: { status: 'pending', lookedUpUpn: upn, upnKey: upnKey(upn) },
    });
    return services().identities.create(doc);
  };
  const read = async (doc: IdentityDoc) =>
    (await services().store.collection<IdentityDoc>('identities').read(doc.pk, doc.id))!;
  const linkOf = async (doc: IdentityDoc): Promise<DirectoryLink> => (await read(doc)).link;
  const cycle = async (tenantId: string, now = new Date()): Promise<TenantCycleResult> => {
    const outcome = await runBackgroundWork(workDeps(services()), { kind: 'pendingLinks', tenantId }, now);
    if (!('done' in outcome) || outcome.done !== 'pendingLinks') throw new Error('the cycle did not run');
    return outcome.result;
  };
  const requestsOf = (tenantId: string) => stack.directory.stats().requestsByTenant[tenantId.toLowerCase()] ?? 0;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());
  afterEach(() => stack.directory.setDeltaPageSize(100));

  describe('the directory stand-in', () => {
    it('pages a first round, hands out a deltaLink, then returns only changes (created, renamed, @removed), with the $select of the first request', async () => {
      const tenantId = await addTenant();
      const kept = stack.directory.createUser(tenantId, 'kept@s.example.com');
      const renamed = stack.directory.createUser(tenantId, 'old@s.example.com');
      const deleted = stack.directory.createUser(tenantId, 'gone@s.example.com');
      stack.directory.setDeltaPageSize(2);
      const directory = services().directory;
      const before = stack.directory.stats().deltaRequests;

      const first = await fetchUserDeltaPage(directory, tenantId, undefined);
      expect(first.users).toHaveLength(2);
      expect(first.nextLink).toContain('$skiptoken=');
      expect(first.deltaLink).toBeUndefined();
      const second = await fetchUserDeltaPage(directory, tenantId, first.nextLink);
      expect(second.users).toHaveLength(1);
      expect(second.deltaLink).toContain('$deltatoken=');
      expect([...first.users, ...second.users].map((u) => u.id).sort()).toEqual(
        [kept.id, renamed.id, deleted.id].sort(),
      );
      // $select=id,userPrincipalName,accountEnabled: no displayName.
      const raw = await directory.getLink<{ value: Array<Record<string, unknown>> }>(tenantId, USERS_DELTA_START);
      expect(Object.keys(raw.value[0] ?? {}).sort()).toEqual(
        ['@odata.type', 'accountEnabled', 'id', 'userPrincipalName'].sort(),
      );

      const idle = await fetchUserDeltaPage(directory, tenantId, second.deltaLink);
      expect(idle.users).toEqual([]);
      expect(idle.deltaLink).toBeDefined();

      stack.directory.renameUser(tenantId, renamed.id, 'new@s.example.com');
      stack.directory.deleteUser(tenantId, deleted.id);
      const created = stack.directory.createUser(tenantId, 'created@s.example.com');
      const changes = await fetchUserDeltaPage(directory, tenantId, idle.deltaLink);
      const next = changes.nextLink ? await fetchUserDeltaPage(directory, tenantId, changes.nextLink) : undefined;
      const all = [...changes.users, ...(next?.users ?? [])];
      expect(all).toHaveLength(3);
      expect(all).toEqual(
        expect.arrayContaining([
          { id: renamed.id, removed: false, userPrincipalName: 'new@s.example.com', accountEnabled: true },
          { id: created.id, removed: false, userPrincipalName: 'created@s.example.com', accountEnabled: true },
          { id: deleted.id, removed: true },
        ]),
      );
      expect(stack.directory.stats().deltaRequests - before).toBe(5 + (next ? 1 : 0));
    });

    it('answers 410 syncStateNotFound for a token it did not issue or that expired', async () => {
      const tenantId = await addTenant();
      const directory = services().directory;
      const round = await fetchUserDeltaPage(directory, tenantId, undefined);
      stack.directory.expireDeltaTokens(tenantId);
      await expect(fetchUserDeltaPage(directory, tenantId, round.deltaLink)).rejects.toMatchObject({
        name: 'DeltaTokenExpiredError',
      });
      await expect(
        fetchUserDeltaPage(directory, tenantId, '/users/delta?$deltatoken=not-one-of-ours'),
      ).rejects.toMatchObject({ name: 'DeltaTokenExpiredError' });
    });
  });

  it('a first round pages the whole directory, links what waits, keeps the deltaLink; an idle tenant then costs one delta request per cycle', async () => {
    const tenantId = await addTenant();
    stack.directory.setDeltaPageSize(3);
    const users = Array.from({ length: 7 }, (_, i) => stack.directory.createUser(tenantId, `page.${i}@p.example.com`));
    const waiting = await addPending(tenantId, 'page.6@p.example.com');
    const first = await cycle(tenantId);
    expect(first).toMatchObject({ deltaPages: 3, changedUsers: 7, linked: 1, more: false });
    expect(await linkOf(waiting)).toMatchObject({ status: 'linked', userId: users[6]!.id });
    expect((await new DeltaStates(services().store).get(tenantId))?.deltaLink).toContain('$deltatoken=');

    for (let i = 0; i < 3; i++) {
      const before = requestsOf(tenantId);
      const idle = await cycle(tenantId);
      expect(idle).toMatchObject({ deltaPages: 1, changedUsers: 0, swept: 0 });
      expect(requestsOf(tenantId) - before).toBe(1);
    }
  });

  it('an expired delta token: the next cycle pages the whole directory again and links what it finds', async () => {
    const tenantId = await addTenant();
    await cycle(tenantId);
    const doc = await addPending(tenantId, 'resync@r.example.com');
    const user = stack.directory.createUser(tenantId, 'resync@r.example.com');
    stack.directory.expireDeltaTokens(tenantId);
    const result = await cycle(tenantId);
    expect(result).toMatchObject({ resynced: true, linked: 1 });
    expect(await linkOf(doc)).toMatchObject({ status: 'linked', userId: user.id });
    expect(await cycle(tenantId)).toMatchObject({ resynced: false, deltaPages: 1 });
  });

  it('a user renamed before the cycle links the identity asserting the new UPN, not the old one', async () => {
    const tenantId = await addTenant();
    await cycle(tenantId);
    const oldName = await addPending(tenantId, 'before@n.example.com');
    const newName = await addPending(tenantId, 'after@n.example.com');
    const user = stack.directory.createUser(tenantId, 'before@n.example.com');
    stack.directory.renameUser(tenantId, user.id, 'after@n.example.com');
    await cycle(tenantId);
    expect(await linkOf(newName)).toMatchObject({ status: 'linked', userId: user.id });
    expect((await linkOf(oldName)).status).toBe('pending');
  });

  it('a deleted user is never used: created and deleted between cycles, its UPN stays pending', async () => {
    const tenantId = await addTenant();
    await cycle(tenantId);
    const doc = await addPending(tenantId, 'brief@d.example.com');
    const user = stack.directory.createUser(tenantId, 'brief@d.example.com');
    stack.directory.deleteUser(tenantId, user.id);
    const result = await cycle(tenantId);
    expect(result.linked).toBe(0);
    expect(await linkOf(doc)).toMatchObject({ status: 'pending' });
    expect(await services().claims.get(tenantId, user.id)).toBeUndefined();
  });

  it('a conflict whose claim is released is linked by the next cycle', async () => {
    const tenantId = await addTenant();
    await cycle(tenantId);
    const holder = await addPending(tenantId, 'shared@c.example.com');
    const second = await addPending(tenantId, 'shared@c.example.com', 'other-source');
    const user = stack.directory.createUser(tenantId, 'shared@c.example.com');
    const result = await cycle(tenantId);
    expect(result).toMatchObject({ linked: 1, conflicts: 1 });
    const [winner, loser] = (await linkOf(holder)).status === 'linked' ? [holder, second] : [second, holder];
    expect(await linkOf(loser)).toMatchObject({ status: 'conflict', conflictUserId: user.id });
    await cycle(tenantId); // checked again once, then backed off
    expect((await linkOf(loser)).nextCheckAt).toBeDefined();

    await services().adminLinks.unlink(tenantId, winner.pk, winner.id, { tenantId, kind: 'system', id: 'test' });
    await cycle(tenantId);
    expect(await linkOf(loser)).toMatchObject({ status: 'linked', userId: user.id });
  });

  it('a UPN the directory refuses (1,024 characters) is an answer about that UPN alone: the rest of its $filter chunk is answered', async () => {
    const tenantId = await addTenant();
    const longUpn = `${'x'.repeat(1024 - '@l.example.com'.length)}@l.example.com`;
    expect(longUpn).toHaveLength(1024);
    const users = Array.from({ length: 5 }, (_, i) => stack.directory.createUser(tenantId, `ok.${i}@l.example.com`));
    const directory = services().directory;
    const { found, refused } = await directory.lookUpUpns(tenantId, [
      longUpn,
      ...users.map((u) => u.userPrincipalName),
    ]);
    expect([...refused]).toEqual([longUpn]);
    expect([...found.values()].map((u) => u.id).sort()).toEqual(users.map((u) => u.id).sort());
    expect(await directory.findByUpn(tenantId, longUpn)).toBeUndefined();
  });

  it('a tenant with a refused UPN is not stalled: the others are linked, that identity is marked and backed off alone', async () => {
    const tenantId = await addTenant();
    const longUpn = `${'y'.repeat(1024 - '@l.example.com'.length)}@l.example.com`;
    const bad = await addPending(tenantId, longUpn);
    const good = await Promise.all(
      Array.from({ length: 5 }, (_, i) => addPending(tenantId, `fine.${i}@l.example.com`)),
    );
    const users = Array.from({ length: 5 }, (_, i) => stack.directory.createUser(tenantId, `fine.${i}@l.example.com`));
    const result = await cycle(tenantId);
    expect(result).toMatchObject({ linked: 5, refused: 1 });
    for (let i = 0; i < 5; i++)
      expect(await linkOf(good[i]!)).toMatchObject({ status: 'linked', userId: users[i]!.id });
    const marked = await linkOf(bad);
    expect(marked).toMatchObject({ status: 'pending', lookupRefused: true, checks: 1 });
    expect(Date.parse(marked.nextCheckAt ?? '')).toBeGreaterThan(Date.now());
    expect((await read(bad)).version).toBe(bad.version);
    // The next cycles do not ask for it again before its back-off ends.
    const filterQueries = stack.directory.stats().filterQueries;
    await cycle(tenantId);
    expect(stack.directory.stats().filterQueries).toBe(filterQueries);
  });

  it('a SCIM save asserting a 1,024-character UPN is stored as pending', async () => {
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const longUpn = `${'z'.repeat(1024 - '@dev.example.com'.length)}@dev.example.com`;
    const res = await api.create(userBody({}, { directoryUserPrincipalName: longUpn }));
    expect(res.status).toBe(201);
    expect(res.body[EXT]?.directoryLinkStatus).toBe('pending');
  });

  it('a User checked six times while its account did not exist is linked by the first cycle after the account appears', async () => {
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const upn = `later.${Date.now()}@dev.example.com`;
    const created = await api.create(userBody({}, { directoryUserPrincipalName: upn }));
    expect(created.status).toBe(201);
    expect(created.body[EXT]?.directoryLinkStatus).toBe('pending');
    const start = Date.now();
    for (let i = 0; i < 6; i++) {
      await cycle(DEV_TENANT_ID, new Date(start + i * 300_000));
      expect((await api.get(created.body.id)).body[EXT]?.directoryLinkStatus).toBe('pending');
    }
    const user = stack.directory.createUser(DEV_TENANT_ID, upn);
    const result = await cycle(DEV_TENANT_ID, new Date(start + 6 * 300_000));
    expect(result.linked).toBeGreaterThanOrEqual(1);
    const linked = (await api.get(created.body.id)).body;
    expect(linked[EXT]).toMatchObject({ directoryLinkStatus: 'linked', directoryLinkedUserId: user.id });
    expect(Date.parse(linked.meta.lastModified)).toBeGreaterThan(Date.parse(created.body.meta.lastModified));
  });
});
