/**
 * A tenant's SCIM budget is shared by all its integrations: two integrations of one tenant together are
 * accepted what the tenant budget allows, not twice what one gets, and another tenant is unaffected. The
 * number of enabled integrations per tenant is capped.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { ENABLED_LIST_ID, type EnabledListDoc } from '../../lib/integrations/enabledIntegrations';

type Gql = {
  data?: Record<string, { scimIntegration: { id: string; enabled: boolean } }> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; limit?: number } }>;
};

const WINDOW_MS = 3_000;
/** Senders per integration: enough to keep a budget used up although refusals beyond a few a second are paced (1 s each). */
const SENDERS = 32;
const CREATE =
  'mutation($i: CreateScimIntegrationInput!) { createScimIntegration(input: $i) { scimIntegration { id enabled } } }';
const ENABLE = 'mutation($id: ID!) { enableScimIntegration(input: { id: $id }) { scimIntegration { id enabled } } }';
const DISABLE = 'mutation($id: ID!) { disableScimIntegration(input: { id: $id }) { scimIntegration { id enabled } } }';

describe("a tenant's SCIM budget and its integrations", () => {
  let stack: TestStack;

  /** Requests of one integration sent for the window by SENDERS at once: how many were not refused with 429. */
  const flood = async (token: string, until: number): Promise<{ accepted: number; refused: number }> => {
    const counts = { accepted: 0, refused: 0 };
    const sender = async () => {
      while (Date.now() < until) {
        // An id that cannot exist: answered 404 after admission, without a store request.
        const res = await call(`${stack.base}/scim/v2/Users/no%23such`, { token });
        if (res.status === 429) {
          counts.refused++;
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        } else {
          expect(res.status).toBe(404);
          counts.accepted++;
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    return counts;
  };

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        SCIM_RATE_LIMIT_PER_SECOND: '20',
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: '20',
        SCIM_MAX_INTEGRATIONS_PER_TENANT: '3',
        LOG_LEVEL: 'warn',
      },
    });
    // Another customer with an integration of its own.
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    await services().integrations.create(
      UNREGISTERED_TENANT_ID,
      { displayName: 'Other SCIM', clientId: DEV_CLIENTS.otherAdmin.clientId },
      { tenantId: UNREGISTERED_TENANT_ID, kind: 'system', id: 'test' },
    );
  });
  afterAll(async () => stack?.stop());

  it('two integrations of one tenant are accepted at most 1.3 times what one gets alone; another tenant is unaffected', async () => {
    const [one, two, other] = await Promise.all([
      stack.token(DEV_CLIENTS.scim),
      stack.token(DEV_CLIENTS.scim2),
      stack.token(DEV_CLIENTS.otherAdmin),
    ]);
    const alone = await flood(one, Date.now() + WINDOW_MS);
    // Budgets and refusal allowances refill.
    await new Promise((r) => setTimeout(r, 5_000));
    const until = Date.now() + WINDOW_MS;
    const [first, second, otherTenant] = await Promise.all([flood(one, until), flood(two, until), flood(other, until)]);
    const together = first.accepted + second.accepted;
    // A budget of 20/s with bursts of 40: about 40 + 20 per second of the window.
    expect(alone.accepted).toBeGreaterThanOrEqual(60);
    expect(alone.accepted).toBeLessThanOrEqual(40 + 20 * (WINDOW_MS / 1000 + 2));
    expect(together).toBeLessThanOrEqual(1.3 * alone.accepted);
    expect(first.refused + second.refused).toBeGreaterThan(0);
    // The other tenant got what one integration gets alone.
    expect(otherTenant.accepted).toBeGreaterThanOrEqual(0.8 * alone.accepted);
    expect(otherTenant.accepted).toBeLessThanOrEqual(1.3 * alone.accepted);
    const refusal = await call(`${stack.base}/scim/v2/Users/no%23such`, { token: two });
    if (refusal.status === 429) expect((refusal.body as { detail?: string }).detail).toMatch(/integration/);
  }, 60_000);

  describe('at most SCIM_MAX_INTEGRATIONS_PER_TENANT enabled integrations (3 here; the dev tenant has 2)', () => {
    const gql = async (query: string, variables: Record<string, unknown>) =>
      call<Gql>(`${stack.base}/graphql`, {
        method: 'POST',
        token: await stack.token(DEV_CLIENTS.admin),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
    const clientId = (n: number) => `eeeeeeee-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const create = (n: number) =>
      gql(CREATE, { i: { displayName: `Cap test ${n} secret-name`, clientId: clientId(n) } });

    it('creating a fourth or enabling a disabled one beyond the cap is INTEGRATION_LIMIT_REACHED, without echo; disabled ones do not count', async () => {
      const third = await create(1);
      expect(third.body.errors).toBeUndefined();
      const thirdId = third.body.data!.createScimIntegration!.scimIntegration.id;

      const fourth = await create(2);
      expect(fourth.body.data).toBeNull();
      expect(fourth.body.errors?.map((e) => e.extensions?.code)).toEqual(['INTEGRATION_LIMIT_REACHED']);
      expect(fourth.body.errors?.[0]?.extensions?.limit).toBe(3);
      expect(fourth.text).not.toContain('secret-name');
      expect(fourth.text).not.toContain(clientId(2));
      expect(await services().integrations.findByClientId(DEV_TENANT_ID, clientId(2))).toBeUndefined();

      // A disabled integration frees its place, and enabling it again takes one.
      expect((await gql(DISABLE, { id: thirdId })).body.errors).toBeUndefined();
      const replacement = await create(3);
      expect(replacement.body.errors).toBeUndefined();
      const enableAgain = await gql(ENABLE, { id: thirdId });
      expect(enableAgain.body.errors?.map((e) => e.extensions?.code)).toEqual(['INTEGRATION_LIMIT_REACHED']);
      expect((await services().integrations.get(DEV_TENANT_ID, thirdId))?.enabled).toBe(false);

      // The list of integrations shows integrations only.
      const listed = await services().integrations.list(DEV_TENANT_ID);
      expect(listed.every((r) => typeof r.clientId === 'string' && r.clientId.length === 36)).toBe(true);
      expect(listed.filter((r) => r.enabled)).toHaveLength(3);

      // Free the place for the next test.
      const replacementId = replacement.body.data!.createScimIntegration!.scimIntegration.id;
      expect((await gql(DISABLE, { id: replacementId })).body.errors).toBeUndefined();
    });

    it('of 8 creates at once for the last place, exactly one is created', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(10 + i)));
      const codes = results.map((r) => (r.body.errors ? r.body.errors[0]?.extensions?.code : 'created'));
      expect(codes.filter((c) => c === 'created')).toHaveLength(1);
      expect(codes.filter((c) => c === 'INTEGRATION_LIMIT_REACHED')).toHaveLength(7);
      expect((await services().integrations.list(DEV_TENANT_ID)).filter((r) => r.enabled)).toHaveLength(3);
    });

    it('a place left by a crash is freed once it is over a minute old; a younger one is kept; a lost list is rebuilt from the records', async () => {
      const lists = services().store.collection<EnabledListDoc>('integrations');
      const enabled = (await services().integrations.list(DEV_TENANT_ID)).filter((r) => r.enabled);
      expect(enabled).toHaveLength(3);
      const last = enabled[enabled.length - 1]!;
      expect((await gql(DISABLE, { id: last.id })).body.errors).toBeUndefined();
      // As a crash between taking a place and writing the integration leaves it.
      const addPlace = async (since: string) => {
        const list = (await lists.read(DEV_TENANT_ID, ENABLED_LIST_ID))!;
        const { _etag, ...rest } = list;
        await lists.replace({ ...rest, places: [...list.places, { id: `lost-${since}`, since }] }, _etag);
      };
      await addPlace(new Date().toISOString());
      expect((await create(30)).body.errors?.map((e) => e.extensions?.code)).toEqual(['INTEGRATION_LIMIT_REACHED']);
      const list = (await lists.read(DEV_TENANT_ID, ENABLED_LIST_ID))!;
      const { _etag, ...rest } = list;
      await lists.replace(
        {
          ...rest,
          places: list.places.map((p) => (p.id.startsWith('lost-') ? { ...p, since: '2020-01-01T00:00:00.000Z' } : p)),
        },
        _etag,
      );
      const created = await create(31);
      expect(created.body.errors).toBeUndefined();
      expect((await lists.read(DEV_TENANT_ID, ENABLED_LIST_ID))!.places.some((p) => p.id.startsWith('lost-'))).toBe(
        false,
      );

      // Without its list (integrations from before the cap), the tenant's enabled records count.
      await lists.delete(DEV_TENANT_ID, ENABLED_LIST_ID);
      expect((await gql(ENABLE, { id: last.id })).body.errors?.map((e) => e.extensions?.code)).toEqual([
        'INTEGRATION_LIMIT_REACHED',
      ]);
      expect(
        (await gql(DISABLE, { id: created.body.data!.createScimIntegration!.scimIntegration.id })).body.errors,
      ).toBeUndefined();
      expect((await gql(ENABLE, { id: last.id })).body.errors).toBeUndefined();
      expect((await lists.read(DEV_TENANT_ID, ENABLED_LIST_ID))?.places).toHaveLength(3);
    });

    it('another tenant has its own places', async () => {
      const other = await services().integrations.create(
        UNREGISTERED_TENANT_ID,
        { displayName: 'Other SCIM 2', clientId: clientId(99) },
        { tenantId: UNREGISTERED_TENANT_ID, kind: 'system', id: 'test' },
      );
      expect(other.enabled).toBe(true);
    });
  });
});
