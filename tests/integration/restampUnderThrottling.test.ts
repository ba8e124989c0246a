/**
 * Spec §4.1 rule 1 on a store that throttles (the local engine with a request-unit budget, as
 * DEV_COSMOS_RU_PER_SECOND=250): every writer of identities stamps each try, so no version is stored
 * one second or more after the lastModified it carries, and a client polling `meta.lastModified gt
 * <its last poll less one second>` finds every final version: a version is missed only when it is stored
 * one second or more after the lastModified it carries. The time of storage is the engine's `_ts` (whole
 * seconds, rounded down), so such a version shows as `_ts` ≥ lastModified + 1 s. (With the store client
 * resending throttled writes unchanged, background links under this load were stored up to 1.3 s late.) Writers: SCIM saves, background links, retention purges,
 * administrator link and unlink, imports.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services, workDeps } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';
import { RETRY, retrying } from '../../lib/store/retryPolicy';
import { runTenantLinkCycle } from '../../lib/links/tenantLinkCycle';
import { purgePartitionExpiredSensitiveData } from '../../lib/identities/retention';
import { customSourceKey } from '../../lib/imports/importer';
import { upnKey } from '../../lib/identities/upn';

/** The background budget with more tries: the test's own set-up and units outlast a container kept busy. */
const withThrottleRetry = <T>(fn: () => Promise<T>, attempts: number) =>
  retrying({ ...RETRY.background, throttled: { ...RETRY.background.throttled, attempts } }, fn);

type Gql = { data?: Record<string, Record<string, unknown>> | null; errors?: Array<{ message: string }> };

const TENANT = 'f1f1f1f1-0000-4000-8000-00000000000f';
// Enough writes per writer to meet the throttled seconds the noise makes (it alone is over the budget).
const N = 40;
const BALLAST = { pk: 'ballast', id: 'ballast' };

describe('every writer stamps each try while the store throttles', () => {
  let stack: TestStack;
  let throttledBefore = 0;

  /** Versions (of identities matching `where`) stored one second or more after the lastModified they carry. */
  const storedLate = async (where: string, parameters: Array<{ name: string; value: string }> = []) => {
    const rows = await services()
      .store.collection('identities')
      .queryAll<{ ts: number; lastModified: string }>({
        query: `SELECT VALUE { ts: c._ts, lastModified: c.lastModified } FROM c WHERE ${where}`,
        parameters,
      });
    return { rows: rows.length, late: rows.filter((r) => r.ts * 1000 - Date.parse(r.lastModified) >= 1000) };
  };
  const seed = async (docs: IdentityDoc[]) =>
    forEachBounded(docs, 8, async (d) => void (await withThrottleRetry(() => services().identities.create(d), 40)));
  const identity = (source: string, i: number, extra: Partial<IdentityDoc> = {}): IdentityDoc => {
    const upn = `${source}.${i}@f.example.com`;
    return {
      ...newIdentityDoc({
        id: uuid7(),
        tenantId: TENANT,
        sourceKind: 'custom',
        sourceKey: source,
        attributes: {
          externalId: `${source}-${i}`,
          givenName: 'G',
          familyName: 'F',
          active: true,
          affiliationType: 'employment',
          personalNumbers: [],
          identityDocumentReferences: [],
          directoryUserPrincipalName: upn,
        },
        now: new Date().toISOString(),
      }),
      ...extra,
    };
  };
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(async () => {
    stack = await startTestStack({ cosmosRuPerSecond: 250, env: { SCIM_RATE_LIMIT_PER_SECOND: '100000' } });
    await withThrottleRetry(
      () =>
        services()
          .store.collection<{ id: string; pk: string; filler: string }>('identities')
          .upsert({ ...BALLAST, filler: 'x'.repeat(1_000_000) }),
      40,
    );
    await services().tenants.register(TENANT);
    stack.idp.addClient({
      tenantId: TENANT,
      clientId: SERVICE_GRAPH_CLIENT.clientId,
      secret: SERVICE_GRAPH_CLIENT.secret,
      roles: [],
    });
  });
  /**
   * Other work on the container while a writer writes: every two seconds, four reads of a 1 MB item at
   * once (about 580 RU), by the client that waits out throttling as the store client does. The
   * container's budget is then used up for seconds at a time, so a writer's requests are throttled
   * with waits of a second or more, as on a busy Cosmos DB container.
   */
  let noise: { stop: boolean; done?: Promise<void> } = { stop: true };
  beforeEach(() => {
    throttledBefore = stack.cosmosRequestUnits().throttled;
    noise = { stop: false };
    const current = noise;
    const ballast = services().store.collection('identities');
    current.done = (async () => {
      while (!current.stop) {
        await Promise.all(Array.from({ length: 4 }, () => ballast.read(BALLAST.pk, BALLAST.id).catch(() => undefined)));
        await new Promise((r) => setTimeout(r, 2000));
      }
    })();
  });
  afterEach(async () => {
    noise.stop = true;
    await noise.done;
  });
  afterAll(async () => stack?.stop());

  /** As a SCIM client does: a 429 or 503 is sent again after its Retry-After. */
  const untilAnswered = async <T extends { status: number; headers: Headers }>(send: () => Promise<T>): Promise<T> => {
    for (let i = 0; ; i++) {
      const res = await send();
      if ((res.status !== 429 && res.status !== 503) || i >= 20) return res;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
    }
  };

  it('SCIM creates and PATCHes', async () => {
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const ids: string[] = [];
    await forEachBounded(
      Array.from({ length: N }, (_, i) => i),
      32,
      async () => {
        const body = userBody();
        const res = await untilAnswered(() => api.create(body));
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      },
    );
    await forEachBounded(ids, 32, async (id) => {
      const res = await untilAnswered(() =>
        api.patch(id, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'name.familyName', value: 'Patched' }],
        }),
      );
      expect(res.status).toBe(200);
    });
    const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const result = await storedLate('c.pk = @pk', [
      { name: '@pk', value: partitionKey(DEV_TENANT_ID, integration.id) },
    ]);
    expect(result.rows).toBeGreaterThanOrEqual(N);
    expect(result.late).toEqual([]);
  }, 180_000);

  it('background links', async () => {
    const docs = Array.from({ length: N }, (_, i) => {
      const d = identity('bg', i);
      const upn = d.directoryUserPrincipalName ?? '';
      return { ...d, link: { status: 'pending' as const, lookedUpUpn: upn, upnKey: upnKey(upn) } };
    });
    await seed(docs);
    for (const d of docs) stack.directory.createUser(TENANT, d.directoryUserPrincipalName ?? '');
    const deps = workDeps(services());
    let linked = 0;
    for (let i = 0; i < 5 && linked < N; i++) linked += (await runTenantLinkCycle(deps, TENANT)).linked;
    expect(linked).toBe(N);
    const result = await storedLate("c.pk = @pk AND c.link.status = 'linked'", [
      { name: '@pk', value: partitionKey(TENANT, 'bg') },
    ]);
    expect(result.rows).toBe(N);
    expect(result.late).toEqual([]);
  }, 180_000);

  it('retention purges', async () => {
    const longAgo = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const docs = Array.from({ length: N }, (_, i) =>
      identity('ret', i, {
        active: false,
        inactiveSince: longAgo,
        personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
        hasSensitive: true,
      }),
    );
    await seed(docs);
    let purged = 0;
    // Four units at once over the same partition, each run again while more is due.
    await forEachBounded([0, 1, 2, 3], 4, async () => {
      let more = true;
      while (more) {
        // A unit the store throttled beyond its waits fails and is retried, as the queue does.
        const result = await withThrottleRetry(
          () => purgePartitionExpiredSensitiveData(services().store, partitionKey(TENANT, 'ret'), 90, 500),
          40,
        );
        purged += result.purged;
        more = result.more;
      }
    });
    expect(purged).toBe(N);
    const result = await storedLate('c.pk = @pk AND c.hasSensitive = false', [
      { name: '@pk', value: partitionKey(TENANT, 'ret') },
    ]);
    expect(result.rows).toBe(N);
    expect(result.late).toEqual([]);
  }, 180_000);

  it('administrator link and unlink', async () => {
    const docs = Array.from({ length: N }, (_, i) => identity('adm', i));
    await seed(docs);
    const users = docs.map((d) => stack.directory.createUser(TENANT, `admin.${d.externalId}@f.example.com`));
    const actor = { tenantId: TENANT, kind: 'system' as const, id: 'test' };
    await forEachBounded(docs, 32, async (d, i) => {
      // An administrator's call that the store throttled beyond its wait is sent again, as a client does.
      await withThrottleRetry(
        () => services().adminLinks.link(TENANT, d.pk, d.id, { directoryUserId: users[i]!.id }, actor),
        40,
      );
    });
    const afterLink = await storedLate("c.pk = @pk AND c.link.status = 'linked'", [
      { name: '@pk', value: partitionKey(TENANT, 'adm') },
    ]);
    expect(afterLink.rows).toBe(N);
    expect(afterLink.late).toEqual([]);
    await forEachBounded(docs, 32, async (d) => {
      await withThrottleRetry(() => services().adminLinks.unlink(TENANT, d.pk, d.id, actor), 40);
    });
    const afterUnlink = await storedLate("c.pk = @pk AND c.link.status = 'notAsserted'", [
      { name: '@pk', value: partitionKey(TENANT, 'adm') },
    ]);
    expect(afterUnlink.rows).toBe(N);
    expect(afterUnlink.late).toEqual([]);
  }, 180_000);

  it('imports (creates, then updates)', async () => {
    const people = (lastName: string) =>
      Array.from({ length: 3 * N }, (_, i) => ({
        externalId: `I-${i}`,
        affiliationType: 'EMPLOYMENT',
        firstName: 'F',
        lastName,
      }));
    for (const lastName of ['First', 'Second']) {
      const res = await gql(
        'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated } }',
        { i: { source: 'Throttled', identities: people(lastName) } },
      );
      expect(res.body.errors).toBeUndefined();
    }
    const result = await storedLate('c.pk = @pk', [
      { name: '@pk', value: partitionKey(DEV_TENANT_ID, customSourceKey('Throttled')) },
    ]);
    expect(result.rows).toBe(3 * N);
    expect(result.late).toEqual([]);
  }, 180_000);

  afterEach(() => {
    // The store did throttle during the test: otherwise it would show nothing.
    expect(stack.cosmosRequestUnits().throttled - throttledBefore).toBeGreaterThan(0);
  });
});
