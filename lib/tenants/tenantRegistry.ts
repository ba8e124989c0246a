import type { Store, StoredDoc } from '../store/store';
import { isStoreError } from '../store/errors';
import { TtlCache } from '../util/ttlCache';
import { isGuid, normalizeGuid } from '../util/guid';

export interface TenantRecord extends StoredDoc {
  tenantId: string;
  registeredAt: string;
}

/**
 * How long an instance trusts its cached answer: a tenant registered or removed on another instance
 * (or by the operator command) is seen by every instance within this time; on the instance that made
 * the change at once.
 */
export const TENANT_LOOKUP_TTL_MS = 5_000;

/** Customer tenants registered with the service; tokens from other tenants are not authenticated. */
export class TenantRegistry {
  private readonly cache: TtlCache<string, boolean>;

  constructor(
    private readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.cache = new TtlCache<string, boolean>(TENANT_LOOKUP_TTL_MS, 10_000, now);
  }

  private get collection() {
    return this.store.collection<TenantRecord>('tenants');
  }

  async isRegistered(tenantId: string): Promise<boolean> {
    const id = normalizeGuid(tenantId);
    const cached = this.cache.get(id);
    if (cached !== undefined) return cached;
    const found = (await this.collection.read(id, id)) !== undefined;
    this.cache.set(id, found);
    return found;
  }

  /** Registers a tenant; returns false when it was registered already. */
  async register(tenantId: string): Promise<boolean> {
    if (!isGuid(tenantId)) throw new Error('A tenant id is a GUID');
    const id = normalizeGuid(tenantId);
    try {
      await this.collection.create({ id, pk: id, tenantId: id, registeredAt: new Date().toISOString() });
      this.cache.set(id, true);
      return true;
    } catch (err) {
      if (isStoreError(err, 'conflict')) return false;
      throw err;
    }
  }

  async remove(tenantId: string): Promise<boolean> {
    const id = normalizeGuid(tenantId);
    this.cache.delete(id);
    return this.collection.delete(id, id);
  }

  /** Forgets cached answers (a registration made by another process, e.g. the operator command). */
  clearCache(): void {
    this.cache.clear();
  }

  async list(): Promise<TenantRecord[]> {
    return this.collection.queryAll<TenantRecord>({ query: 'SELECT * FROM c ORDER BY c.id' });
  }
}
