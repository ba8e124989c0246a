/**
 * No side doors: requests of a tenant's disabled (or unknown) SCIM integrations take from the tenant's SCIM
 * budget and its refusal pacing before anything is written, so a flood from many disabled integrations is held
 * to the tenant's budget, and their refusals are recorded at most ACTIVITY_TENANT_REFUSALS_PER_MINUTE times a
 * minute, the rest counted in one summary of the tenant.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, type DevClient } from '../../devhost/devData';
import { services } from '../../lib/services';

const TENANT = 'ffffffff-1111-4000-8000-000000000001';
const TENANT_PER_SECOND = 20;
const RECORDED_PER_MINUTE = 10;
const WINDOW_MS = 3_000;
const DISABLED = 6;
/** Senders per client: enough to keep the budget used up although refusals beyond a few a second wait 1 s each. */
const SENDERS = 8;

const client = (n: number): DevClient => ({
  name: `flood-${n}`,
  tenantId: TENANT,
  clientId: `dddddddd-1111-4000-8000-${String(n).padStart(12, '0')}`,
  secret: `flood-secret-${n}`,
  roles: [],
});

describe("a flood from a tenant's disabled integrations", () => {
  let stack: TestStack;
  const disabled = Array.from({ length: DISABLED }, (_, i) => client(i + 1));
  /** A client of the tenant that no integration has. */
  const unknown = client(99);
  const integrationIds: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        SCIM_RATE_LIMIT_PER_SECOND: String(TENANT_PER_SECOND),
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: String(TENANT_PER_SECOND),
        ACTIVITY_TENANT_REFUSALS_PER_MINUTE: String(RECORDED_PER_MINUTE),
        LOG_LEVEL: 'warn',
      },
    });
    await services().tenants.register(TENANT);
    const actor = { tenantId: TENANT, kind: 'system' as const, id: 'test' };
    for (const c of [...disabled, unknown]) stack.idp.addClient(c);
    for (const c of disabled) {
      const made = await services().integrations.create(TENANT, { displayName: c.name, clientId: c.clientId }, actor);
      await services().integrations.setEnabled(TENANT, made.id, false, actor);
      integrationIds.push(made.id);
    }
  });
  afterAll(async () => stack?.stop());

  it("is held to the tenant's SCIM budget and writes at most the bound of refusal records and one summary", async () => {
    const tokens = await Promise.all([...disabled, unknown].map((c) => stack.token(c)));
    const other = await stack.token(DEV_CLIENTS.scim);
    // The flood must fall in one minute of the recording bound.
    if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_500 - (Date.now() % 60_000)));
    const counts = { forbidden: 0, tooMany: 0 };
    const texts = new Set<string>();
    const until = Date.now() + WINDOW_MS;
    const sender = async (token: string) => {
      while (Date.now() < until) {
        const res = await call(`${stack.base}/scim/v2/Users?count=1`, { token });
        texts.add(res.text);
        if (res.status === 429) {
          counts.tooMany++;
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          expect((res.body as { detail?: string }).detail).toMatch(/organization's SCIM integrations together/);
        } else {
          expect(res.status).toBe(403);
          counts.forbidden++;
        }
      }
    };
    const flood = Promise.all(tokens.flatMap((token) => Array.from({ length: SENDERS }, () => sender(token))));
    // Meanwhile another tenant's integration is served.
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(`${stack.base}/scim/v2/Users?count=1`, { token: other })).status).toBe(200);
    await flood;

    // Answered 403 only within the tenant's budget: a burst of twice the rate, then the rate.
    expect(counts.forbidden).toBeLessThanOrEqual(2 * TENANT_PER_SECOND + TENANT_PER_SECOND * (WINDOW_MS / 1000 + 1));
    expect(counts.tooMany).toBeGreaterThan(0);
    for (const text of texts) for (const c of [...disabled, unknown]) expect(text).not.toContain(c.clientId);

    // Recorded: at most the bound one by one, the rest counted in one summary of the tenant.
    const docs = services().store.collection<{ id: string; pk: string; kind: string; count?: number }>('activity');
    const read = async () => {
      const all = [];
      for (const id of integrationIds)
        all.push(
          ...(await docs.queryAll({
            query: 'SELECT * FROM c WHERE c.pk = @pk',
            parameters: [{ name: '@pk', value: `${TENANT}|${id}` }],
          })),
        );
      return all;
    };
    let stored = await read();
    for (let i = 0; i < 50 && !stored.some((d) => d.kind === 'refusalCount'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      stored = await read();
    }
    expect(stored.filter((d) => d.kind === 'refusal').length).toBeLessThanOrEqual(RECORDED_PER_MINUTE);
    const summaries = stored.filter((d) => d.kind === 'refusalCount');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.count).toBeGreaterThan(0);
  }, 60_000);
});
