import type { Store, StoredDoc } from '../store/store';
import { isStoreError } from '../store/errors';
import { TtlCache } from '../util/ttlCache';
import { isGuid, normalizeGuid } from '../util/guid';
import { allTenants } from '../store/queries/tenants';

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
/** Bound on each cache: answers about unregistered tenants never push out registered ones. */
export const TENANT_CACHE_MAX_ENTRIES = 10_000;

/** Customer tenants registered with the service; tokens from other tenants are not authenticated. */
export class TenantRegistry {
  private readonly registered: TtlCache<string, true>;
  private readonly unregistered: TtlCache<string, false>;
  /** One store read per tenant at a time, however many requests ask. */
  private readonly lookups = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.registered = new TtlCache<string, true>(TENANT_LOOKUP_TTL_MS, TENANT_CACHE_MAX_ENTRIES, now);
    this.unregistered = new TtlCache<string, false>(TENANT_LOOKUP_TTL_MS, TENANT_CACHE_MAX_ENTRIES, now);
  }

  private get collection() {
    return this.store.collection<TenantRecord>('tenants');
  }

  async isRegistered(tenantId: string): Promise<boolean> {
    const id = normalizeGuid(tenantId);
    const cached = this.registered.get(id) ?? this.unregistered.get(id);
    if (cached !== undefined) return cached;
    const pending = this.lookups.get(id);
    if (pending) return pending;
    const lookup = (async () => {
      const found = (await this.collection.read(id, id)) !== undefined;
      this.remember(id, found);
      return found;
    })().finally(() => this.lookups.delete(id));
    this.lookups.set(id, lookup);
    return lookup;
  }

  private remember(id: string, found: boolean): void {
    if (found) {
      this.unregistered.delete(id);
      this.registered.set(id, true);
    } else {
      this.registered.delete(id);
      this.unregistered.set(id, false);
    }
  }

  /** Registers a tenant; returns false when it was registered already. */
  async register(tenantId: string): Promise<boolean> {
    if (!isGuid(tenantId)) throw new Error('A tenant id is a GUID');
    const id = normalizeGuid(tenantId);
    try {
      await this.collection.create({ id, pk: id, tenantId: id, registeredAt: new Date().toISOString() });
      this.remember(id, true);
      return true;
    } catch (err) {
      if (isStoreError(err, 'conflict')) return false;
      throw err;
    }
  }

  async remove(tenantId: string): Promise<boolean> {
    const id = normalizeGuid(tenantId);
    this.remember(id, false);
    return this.collection.delete(id, id);
  }

  /** Forgets cached answers (a registration made by another process, e.g. the operator command). */
  clearCache(): void {
    this.registered.clear();
    this.unregistered.clear();
  }

  async list(): Promise<TenantRecord[]> {
    // The container also holds each tenant's wrapped data key (lib/crypto/dataKeys.ts) in its partition.
    return (await this.collection.all(allTenants())).filter((r) => r.id === r.pk);
  }
}
