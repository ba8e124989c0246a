import { TENANT_CACHE_MAX_ENTRIES, TENANT_LOOKUP_TTL_MS, TenantRegistry } from '../../../lib/tenants/tenantRegistry';
import type { Store } from '../../../lib/store/store';

const REGISTERED = '11111111-1111-4111-8111-111111111111';
const randomTenant = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** A store with one registered tenant that counts its point reads. */
function storeWith(registered: string[]): { store: Store; reads: () => number } {
  let reads = 0;
  const collection = {
    read: async (_pk: string, id: string) => {
      reads++;
      await new Promise((r) => setImmediate(r));
      return registered.includes(id) ? { id, pk: id, tenantId: id, registeredAt: '' } : undefined;
    },
  };
  return { store: { collection: () => collection } as unknown as Store, reads: () => reads };
}

describe('TenantRegistry caches', () => {
  it('answers about unregistered tenants cannot push a registered one out of its cache', async () => {
    const { store, reads } = storeWith([REGISTERED]);
    const clock = { t: 0 };
    const registry = new TenantRegistry(store, () => clock.t);
    expect(await registry.isRegistered(REGISTERED)).toBe(true);
    // Twice the cache's size of unregistered tenants, 500 looked up at once (one event-loop turn a batch).
    for (let i = 0; i < TENANT_CACHE_MAX_ENTRIES * 2; i += 500) {
      const answers = await Promise.all(
        Array.from({ length: 500 }, (_, k) => registry.isRegistered(randomTenant(i + k))),
      );
      expect(answers.every((a) => a === false)).toBe(true);
    }
    const before = reads();
    expect(await registry.isRegistered(REGISTERED)).toBe(true);
    expect(reads()).toBe(before);
    clock.t += TENANT_LOOKUP_TTL_MS;
    expect(await registry.isRegistered(REGISTERED)).toBe(true);
    expect(reads()).toBe(before + 1);
  });

  it('caches negative answers too, and concurrent lookups of one tenant share one read', async () => {
    const { store, reads } = storeWith([REGISTERED]);
    const registry = new TenantRegistry(store, () => 0);
    const answers = await Promise.all(Array.from({ length: 10 }, () => registry.isRegistered(randomTenant(7))));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(await registry.isRegistered(randomTenant(7))).toBe(false);
    expect(reads()).toBe(1);
  });
});
