import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody, type ScimUser } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { newIdentityDoc } from '../../lib/identities/rules';
import { partitionKey } from '../../lib/identities/model';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';
import { purgePartitionExpiredSensitiveData } from '../../lib/identities/retention';
import { runTenantLinkCycle } from '../../lib/links/tenantLinkCycle';

/** `filter=meta.lastModified gt …` (spec §4.1 rule 1) must find every change, also during long background runs. */
describe('delta sync: meta.lastModified is the time of each write', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;

  beforeAll(async () => {
    stack = await startTestStack();
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
  });
  afterAll(async () => stack?.stop());

  /** Every User changed after `since`, paged as a client does. */
  async function changedSince(since: number): Promise<ScimUser[]> {
    const filter = encodeURIComponent(`meta.lastModified gt "${new Date(since).toISOString()}"`);
    const out: ScimUser[] = [];
    for (let start = 1; ; start += 100) {
      const page = await api.list(`?filter=${filter}&startIndex=${start}&count=100`);
      expect(page.status).toBe(200);
      out.push(...page.body.Resources);
      if (page.body.Resources.length < 100) return out;
    }
  }

  it('a client polling during a long link cycle (a first round over the directory, a page a unit) finds every identity it links', async () => {
    const svc = services();
    const integration = (await svc.integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const n = 300;
    const ids = new Set<string>();
    const created = new Date().toISOString();
    await forEachBounded(
      Array.from({ length: n }, (_, i) => i),
      32,
      async (i) => {
        const upn = `delta.${i}@dev.example.com`;
        const attributes = {
          externalId: `delta-${i}`,
          userName: upn,
          givenName: 'D',
          familyName: `${i}`,
          active: true,
          affiliationType: 'employment' as const,
          personalNumbers: [],
          identityDocumentReferences: [],
          directoryUserPrincipalName: upn,
        };
        const doc = newIdentityDoc({
          id: uuid7(),
          tenantId: DEV_TENANT_ID,
          sourceKind: 'scim',
          sourceKey: integration.id,
          attributes,
          now: created,
          link: { status: 'pending', lookedUpUpn: upn },
        });
        await svc.identities.create(doc);
        ids.add(doc.id);
        stack.directory.createUser(DEV_TENANT_ID, upn);
      },
    );

    // The client remembers when it polled and asks for changes after that, less a margin for writes in flight.
    const margin = 500;
    const seenLinked = new Set<string>();
    let watermark = Date.now();
    const poll = async (): Promise<void> => {
      const polledAt = Date.now();
      for (const u of await changedSince(watermark - margin))
        if (ids.has(u.id) && u[EXT]?.directoryLinkStatus === 'linked') seenLinked.add(u.id);
      watermark = polledAt;
    };
    // The run is a chain of units (as the queue runs them), its clock fixed when it was planned; here that clock
    // lags a minute behind, so a unit that stamped its writes with it would hide them from every poll after its start.
    // The client polls between the units: during the run, whatever the machine's speed.
    const runClock = new Date(Date.now() - 60_000);
    const deps = {
      store: svc.store,
      directory: svc.directory,
      claims: svc.claims,
      backoff: { baseSeconds: 0, maxSeconds: 0 },
    };
    let units = 0;
    let partialPolls = 0;
    for (;;) {
      // The directory stand-in pages 100 users: one page a unit spreads the links over several units.
      const unit = await runTenantLinkCycle(deps, DEV_TENANT_ID, runClock, { deltaPagesPerUnit: 1 });
      units++;
      await poll();
      if (seenLinked.size > 0 && seenLinked.size < n) partialPolls++;
      if (!unit.more) break;
    }
    await poll();

    expect(seenLinked.size).toBe(n);
    expect(units).toBeGreaterThanOrEqual(n / 100);
    expect(partialPolls).toBeGreaterThanOrEqual(2);
  });

  it('a SCIM write takes its time when it is written, after a slow directory look-up', async () => {
    stack.directory.throttleNext(1, 1); // the look-up waits the 1 s Retry-After, then succeeds
    const before = Date.now();
    const res = await api.create(userBody({}, { directoryUserPrincipalName: 'carol@dev.example.com' }));
    expect(res.status).toBe(201);
    expect(res.body[EXT]?.directoryLinkStatus).toBe('linked');
    expect(Date.parse(res.body.meta.lastModified)).toBeGreaterThanOrEqual(before + 900);
    expect(res.body.meta.created).toBe(res.body.meta.lastModified);

    stack.directory.throttleNext(1, 1);
    const beforePut = Date.now();
    const put = await api.put(
      res.body.id,
      userBody(
        { externalId: res.body.externalId, userName: res.body.userName },
        { directoryUserPrincipalName: 'bob@dev.example.com' },
      ),
    );
    expect(put.status).toBe(200);
    expect(Date.parse(put.body.meta.lastModified)).toBeGreaterThanOrEqual(beforePut + 900);
    await api.delete(res.body.id);
  });

  it('a retention run stamps each identity with the time of its write, not the run clock', async () => {
    const res = await api.create(
      userBody({ active: false }, { personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] }),
    );
    const runClock = new Date(Date.now() + 200 * 86_400_000); // a run whose clock says 200 days on
    const before = Date.now();
    const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const pk = partitionKey(DEV_TENANT_ID, integration.id);
    const result = await purgePartitionExpiredSensitiveData(services().store, pk, 90, 500, runClock);
    expect(result.purged).toBeGreaterThanOrEqual(1);
    const after = (
      await call<ScimUser>(`${stack.base}/scim/v2/Users/${res.body.id}`, { token: await stack.token(DEV_CLIENTS.scim) })
    ).body;
    expect(after[EXT]).not.toHaveProperty('personalNumbers');
    const stampedAt = Date.parse(after.meta.lastModified);
    expect(stampedAt).toBeGreaterThanOrEqual(before);
    expect(stampedAt).toBeLessThanOrEqual(Date.now());
  });
});
