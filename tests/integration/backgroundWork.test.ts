/**
 * Background work on the queue, over the real stack: the timers plan one unit per tenant on the
 * background-work queue (Azurite) and the dev host runs backgroundWork for each unit.
 */
import { QueueClient } from '@azure/storage-queue';
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_TENANT_ID, SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services, workDeps } from '../../lib/services';
import { type DirectoryLink, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { BACKGROUND_POISON_QUEUE_NAME, BACKGROUND_QUEUE_NAME } from '../../lib/background/backgroundWork';
import { runBackgroundWork } from '../../lib/background/runWork';
import { encodeWork, type WorkQueue } from '../../lib/background/workQueue';
import { planRetention } from '../../lib/background/planner';
import type { BackgroundWork } from '../../lib/background/backgroundWork';
import { diffCounters, storeCounters } from '../../lib/store/metrics';

const TENANT_B = 'b1b1b1b1-0000-4000-8000-00000000000b';
const TENANT_THROTTLED = 'c1c1c1c1-0000-4000-8000-00000000000c';
const TENANT_UNCONSENTED = 'd1d1d1d1-0000-4000-8000-00000000000d';
const SOURCE = 'bench-source';

describe('background work on the queue', () => {
  let stack: TestStack;

  const planPendingLinks = async () =>
    expect((await call(`${stack.base}/admin/functions/resolvePendingLinks`, { method: 'POST' })).status).toBe(202);
  const eventually = async (check: () => Promise<boolean>, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('not reached in time');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** A consented customer tenant: registered, and the service's Graph client exists there. */
  const addTenant = async (tenantId: string, consented = true) => {
    await services().tenants.register(tenantId);
    if (consented)
      stack.idp.addClient({
        tenantId,
        clientId: SERVICE_GRAPH_CLIENT.clientId,
        secret: SERVICE_GRAPH_CLIENT.secret,
        roles: [],
      });
  };
  const addPending = async (
    tenantId: string,
    upn: string,
    source = SOURCE,
    link: DirectoryLink = { status: 'pending', lookedUpUpn: upn },
  ): Promise<IdentityDoc> => {
    const attributes = {
      externalId: upn,
      userName: upn,
      givenName: 'P',
      familyName: 'Q',
      active: true,
      affiliationType: 'employment' as const,
      personalNumbers: [],
      identityDocumentReferences: [],
      directoryUserPrincipalName: upn,
    };
    const doc = newIdentityDoc({
      id: uuid7(),
      tenantId,
      sourceKind: 'custom',
      sourceKey: source,
      attributes,
      now: new Date().toISOString(),
      link,
    });
    return services().identities.create(doc);
  };
  const read = async (doc: IdentityDoc) =>
    (await services().store.collection<IdentityDoc>('identities').read(doc.pk, doc.id))!;
  const linkOf = async (doc: IdentityDoc): Promise<DirectoryLink> => (await read(doc)).link;

  beforeAll(async () => {
    stack = await startTestStack({
      // Quick retries so the poison path takes seconds; the rest as in host.json.
      hostJson: {
        extensions: {
          queues: {
            batchSize: 16,
            maxDequeueCount: 3,
            visibilityTimeout: '00:00:00',
            maxPollingInterval: '00:00:00.250',
          },
        },
      },
    });
    await addTenant(TENANT_B);
    await addTenant(TENANT_THROTTLED);
  });
  afterAll(async () => stack?.stop());

  it('the dev host serves backgroundWork on the background-work queue', () => {
    expect(stack.host.functions.queues).toEqual(['backgroundWork']);
  });

  it('the planner enqueues a unit per tenant; the units link what resolved, the rest wait for directory changes without being written again', async () => {
    const resolvable = await addPending(TENANT_B, 'soon@b.example.com');
    const never = await addPending(TENANT_B, 'never@b.example.com');
    const user = stack.directory.createUser(TENANT_B, 'soon@b.example.com');
    await planPendingLinks();
    await eventually(async () => (await linkOf(resolvable)).status === 'linked');
    await stack.host.queuesIdle();
    expect(await linkOf(resolvable)).toEqual({
      status: 'linked',
      source: 'asserted',
      userId: user.id,
      lookedUpUpn: 'soon@b.example.com',
    });
    // The tenant's first cycle swept it once (and gave it the key directory changes are matched on): no back-off.
    expect(await linkOf(never)).toEqual({
      status: 'pending',
      lookedUpUpn: 'never@b.example.com',
      upnKey: 'never@b.example.com',
    });
    expect((await read(never)).version).toBe(never.version);
    expect(stack.logs.some((l) => l.includes('background work done') && l.includes(TENANT_B))).toBe(true);
    // How long the unit waited on the queue, for the alert on the oldest background message.
    const done = stack.logs.find((l) => l.includes('background work done') && l.includes(TENANT_B)) ?? '';
    expect((JSON.parse(done.slice(done.indexOf('{'))) as { queuedMs?: unknown }).queuedMs).toEqual(expect.any(Number));
  });

  it('a unit processed twice changes nothing more than once', async () => {
    const a = await addPending(TENANT_B, 'twice.a@b.example.com');
    const b = await addPending(TENANT_B, 'twice.b@b.example.com');
    stack.directory.createUser(TENANT_B, 'twice.a@b.example.com');
    const queue = new QueueClient(stack.env.BACKGROUND_QUEUE ?? '', BACKGROUND_QUEUE_NAME);
    const message = encodeWork({ kind: 'pendingLinks', tenantId: TENANT_B });
    await queue.sendMessage(message);
    await eventually(async () => (await linkOf(a)).status === 'linked');
    await stack.host.queuesIdle();
    const once = [await read(a), await read(b)];
    await queue.sendMessage(message);
    await stack.host.queuesIdle();
    expect([await read(a), await read(b)]).toEqual(once);
    expect(once.map((d) => d.version)).toEqual([a.version + 1, b.version]);
  });

  it('two units of one tenant at once: each identity linked once, its claim kept; the rest left as they were', async () => {
    const docs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => addPending(TENANT_B, `both.${i}@b.example.com`)),
    );
    const users = [0, 1, 2].map((i) => stack.directory.createUser(TENANT_B, `both.${i}@b.example.com`));
    const deps = workDeps(services());
    const outcomes = await Promise.all(
      [1, 2].map(() => runBackgroundWork(deps, { kind: 'pendingLinks', tenantId: TENANT_B })),
    );
    const linked = outcomes.reduce((n, o) => n + ('done' in o && o.done === 'pendingLinks' ? o.result.linked : 0), 0);
    expect(linked).toBe(3);
    for (let i = 0; i < 3; i++) {
      const now = await read(docs[i]!);
      expect(now.link).toMatchObject({ status: 'linked', userId: users[i]!.id });
      expect(now.version).toBe(docs[i]!.version + 1);
      expect((await services().claims.get(TENANT_B, users[i]!.id))?.identityId).toBe(docs[i]!.id);
    }
    for (let i = 3; i < 6; i++) expect(await read(docs[i]!)).toMatchObject({ link: docs[i]!.link, version: 1 });
  });

  it("a throttling tenant's unit is put back with its Retry-After; another tenant's links are made meanwhile", async () => {
    const slow = await addPending(TENANT_THROTTLED, 'slow@c.example.com');
    const fast = await addPending(TENANT_B, 'fast@b.example.com');
    stack.directory.createUser(TENANT_THROTTLED, 'slow@c.example.com');
    stack.directory.createUser(TENANT_B, 'fast@b.example.com');
    stack.directory.throttleTenant(TENANT_THROTTLED, 3);
    await planPendingLinks();
    await eventually(async () => (await linkOf(fast)).status === 'linked');
    await eventually(async () =>
      stack.logs.some(
        (l) => l.includes('background work deferred') && l.includes(TENANT_THROTTLED) && l.includes('throttled'),
      ),
    );
    expect((await linkOf(slow)).status).toBe('pending');
    stack.directory.throttleTenant(TENANT_THROTTLED, undefined);
    // The unit that was put back runs after the 3 s Retry-After, before any next planner run.
    await eventually(async () => (await linkOf(slow)).status === 'linked');
    await stack.host.queuesIdle();
  });

  it('a tenant without consent is deferred to the next planner run, not retried into the poison queue', async () => {
    await addTenant(TENANT_UNCONSENTED, false);
    const doc = await addPending(TENANT_UNCONSENTED, 'nobody@d.example.com');
    await planPendingLinks();
    await eventually(async () =>
      stack.logs.some(
        (l) => l.includes('background work deferred') && l.includes(TENANT_UNCONSENTED) && l.includes('notConsented'),
      ),
    );
    await stack.host.queuesIdle();
    expect(await linkOf(doc)).toEqual({ status: 'pending', lookedUpUpn: 'nobody@d.example.com' });
    const poison = new QueueClient(stack.env.BACKGROUND_QUEUE ?? '', BACKGROUND_POISON_QUEUE_NAME);
    expect((await poison.peekMessages({ numberOfMessages: 32 })).peekedMessageItems).toEqual([]);
  });

  it('a malformed unit is refused without repeating it, retried maxDequeueCount times, then kept in background-work-poison', async () => {
    const queue = new QueueClient(stack.env.BACKGROUND_QUEUE ?? '', BACKGROUND_QUEUE_NAME);
    const text = Buffer.from(JSON.stringify({ kind: 'pendingLinks', tenantId: 'not-a-tenant-SECRETVALUE' })).toString(
      'base64',
    );
    await queue.sendMessage(text);
    const poison = new QueueClient(stack.env.BACKGROUND_QUEUE ?? '', BACKGROUND_POISON_QUEUE_NAME);
    await eventually(async () => (await poison.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.length === 1);
    expect((await poison.peekMessages()).peekedMessageItems[0]?.messageText).toBe(text);
    const refusals = stack.logs.filter((l) => l.includes('background work message refused'));
    expect(refusals).toHaveLength(3);
    expect(refusals.every((l) => l.includes('tenantId is not a GUID'))).toBe(true);
    expect(stack.logs.some((l) => l.includes('SECRETVALUE'))).toBe(false);
    await poison.clearMessages();
  });

  it('the queue measurement peeks both queues and reports the units on the poison queue, without metrics locally', async () => {
    const poison = new QueueClient(stack.env.BACKGROUND_QUEUE ?? '', BACKGROUND_POISON_QUEUE_NAME);
    await poison.createIfNotExists();
    await poison.sendMessage(Buffer.from('{"kind":"stuck"}').toString('base64'));
    const measured = () => stack.logs.filter((l) => l.includes('background queue measured'));
    const before = measured().length;
    expect((await call(`${stack.base}/admin/functions/measureBackgroundQueue`, { method: 'POST' })).status).toBe(202);
    await eventually(async () => measured().length > before);
    const line = JSON.parse(measured()[measured().length - 1] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ poisonMessages: 1, published: false });
    expect(typeof line.oldestAgeSeconds).toBe('number');
    expect(stack.logs.some((l) => l.includes('stuck'))).toBe(false);
    await poison.clearMessages();
  });

  it('a conflict backs off; releasing the claim on its user makes it due again, and the next run links it', async () => {
    const holder = await addPending(TENANT_B, 'shared@b.example.com');
    const user = stack.directory.createUser(TENANT_B, 'shared@b.example.com');
    await planPendingLinks();
    await eventually(async () => (await linkOf(holder)).status === 'linked');
    await stack.host.queuesIdle();
    // Saved while the directory could not be asked: the next cycle owes it a look-up.
    const second = await addPending(TENANT_B, 'shared@b.example.com', 'other-source', {
      status: 'pending',
      lookedUpUpn: 'shared@b.example.com',
      lookUpOwed: true,
    });
    await planPendingLinks();
    await eventually(async () => (await linkOf(second)).status === 'conflict');
    await stack.host.queuesIdle();
    await planPendingLinks();
    await eventually(async () => (await linkOf(second)).checks === 1);
    await stack.host.queuesIdle();
    expect((await linkOf(second)).nextCheckAt).toBeDefined();

    // An administrator unlinks the holder: the claim is released and the conflict is due again.
    await services().adminLinks.unlink(TENANT_B, holder.pk, holder.id, {
      tenantId: TENANT_B,
      kind: 'system',
      id: 'test',
    });
    expect((await linkOf(second)).nextCheckAt).toBeUndefined();
    await planPendingLinks();
    await eventually(async () => (await linkOf(second)).status === 'linked');
    expect((await linkOf(second)).userId).toBe(user.id);
    await stack.host.queuesIdle();
  });

  it('retention: planned for each tenant with expired sensitive data, purged per tenant, active identities untouched', async () => {
    const longAgo = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const sensitive = {
      personalNumbers: [{ type: 'DkCpr' as const, value: '0101901234' }],
      identityDocumentReferences: [],
    };
    const make = async (tenantId: string, active: boolean) => {
      const attributes = {
        externalId: uuid7(),
        givenName: 'R',
        familyName: 'S',
        active,
        affiliationType: 'employment' as const,
        ...sensitive,
      };
      const doc = newIdentityDoc({
        id: uuid7(),
        tenantId,
        sourceKind: 'custom',
        sourceKey: SOURCE,
        attributes,
        now: longAgo,
      });
      return services().identities.create(doc);
    };
    const expired = [await make(DEV_TENANT_ID, false), await make(TENANT_B, false)];
    const active = await make(TENANT_B, true);
    expect((await call(`${stack.base}/admin/functions/retention`, { method: 'POST' })).status).toBe(202);
    await eventually(async () => (await Promise.all(expired.map(read))).every((d) => !d.hasSensitive));
    await stack.host.queuesIdle();
    for (const d of expired)
      expect(await read(d)).toMatchObject({
        personalNumbers: [],
        identityDocumentReferences: [],
        hasSensitive: false,
        version: d.version + 1,
      });
    expect(await read(active)).toMatchObject({
      personalNumbers: sensitive.personalNumbers,
      hasSensitive: true,
      version: active.version,
    });
    expect(stack.logs.some((l) => l.includes('retention planned') && l.includes('"units":2'))).toBe(true);
  });

  it('retention planning reads one item per due partition, not every due identity; units name their partition', async () => {
    const longAgo = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const due = (tenantId: string, sourceKey: string) =>
      newIdentityDoc({
        id: uuid7(),
        tenantId,
        sourceKind: 'custom',
        sourceKey,
        attributes: {
          externalId: uuid7(),
          givenName: 'R',
          familyName: 'S',
          active: false,
          affiliationType: 'employment' as const,
          personalNumbers: [{ type: 'DkCpr' as const, value: '0101901234' }],
          identityDocumentReferences: [],
        },
        now: longAgo,
      });
    const many = Array.from({ length: 40 }, () => due(TENANT_B, 'src:plan-a'));
    await services().identities.batchCreate(many[0]!.pk, many);
    const other = due(TENANT_B, 'src:plan-b');
    await services().identities.create(other);
    const sent: BackgroundWork[] = [];
    const queue: WorkQueue = { send: async (work) => void sent.push(work) } as WorkQueue;
    const before = storeCounters();
    const planned = await planRetention(services().store, queue, 90);
    const cost = diffCounters(storeCounters(), before);
    const mine = sent.filter((w) => w.partition === many[0]!.pk || w.partition === other.pk);
    expect(mine).toEqual([
      { kind: 'retention', tenantId: TENANT_B, partition: many[0]!.pk },
      { kind: 'retention', tenantId: TENANT_B, partition: other.pk },
    ]);
    // One single-item query per due partition and one that finds no more.
    expect(cost.queries).toBe(planned.units + 1);
    expect(cost.itemsReturned).toBe(planned.units);

    // A unit purges in its own partition only, in bounded pages that continue where they stopped.
    const units: BackgroundWork[] = [];
    const unitQueue: WorkQueue = { send: async (work) => void units.push(work) } as WorkQueue;
    const deps = { ...workDeps(services()), queue: unitQueue };
    const outcome = await runBackgroundWork(deps, mine[0]!);
    expect(outcome).toMatchObject({ done: 'retention', result: { purged: 40 }, continued: false });
    expect((await services().identities.get(other.pk, other.id))?.hasSensitive).toBe(true);
    // A tenant-wide unit (as planned before units named a partition) enqueues one unit per due partition.
    const wide = await runBackgroundWork(deps, { kind: 'retention', tenantId: TENANT_B });
    expect(wide).toMatchObject({ done: 'retention', continued: true });
    expect(units).toEqual([{ kind: 'retention', tenantId: TENANT_B, partition: other.pk }]);
  });
});
