/**
 * One data key per tenant, kept in the store only wrapped by the Key Vault key (the `tenants` container,
 * the tenant's own partition, id `fieldKey`): removing that one document makes the tenant's numbers
 * unreadable and touches no other tenant (crypto-shredding). A tenant's key is created on its first
 * encrypted write; two instances that race both try to create it and the loser reads the winner's, so a
 * tenant never has two. Unwrapped keys stay in this process's memory for FIELD_KEY_CACHE_SECONDS at most
 * (a removed key is unusable everywhere within that time) and are never logged or returned by anything.
 */
import type { Store, StoredDoc, WithEtag } from '../store/store';
import { isStoreError, StoreError } from '../store/errors';
import { allTenants } from '../store/queries/tenants';
import { contentHashKey, newDataKey } from './fieldCipher';
import type { KeyWrapper } from './keyVaultWrapper';

export const FIELD_KEY_DOC_ID = 'fieldKey';

export interface FieldKeyDoc extends StoredDoc {
  kind: 'fieldKey';
  tenantId: string;
  /** Names the data key in every envelope it sealed. */
  keyId: string;
  /** The data key wrapped by the Key Vault key (base64url); absent once forgotten. */
  wrapped?: string;
  /** The Key Vault key id, with its version, that wrapped it. */
  wrappedBy?: string;
  createdAt: string;
  rewrappedAt?: string;
  /** Set by `forget-tenant-key`: the tenant's numbers are gone for good and no new key is made. */
  forgottenAt?: string;
}

/** An unwrapped data key: in memory only. */
export interface TenantKey {
  keyId: string;
  key: Buffer;
  hashKey: Buffer;
}

/** Raised on a write of a sensitive value for a tenant whose key was forgotten (offboarded). */
export class TenantKeyForgottenError extends Error {
  constructor() {
    super("The tenant's field encryption key was removed; its personal and document numbers cannot be stored");
    this.name = 'TenantKeyForgottenError';
  }
}

export interface DataKeyOptions {
  cacheTtlMs: number;
  now?: () => number;
}

export class DataKeys {
  private readonly cache = new Map<string, { key: Promise<TenantKey | undefined>; at: number }>();
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    readonly wrapper: KeyWrapper,
    private readonly options: DataKeyOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  private get docs() {
    return this.store.collection<FieldKeyDoc>('tenants');
  }

  /** The tenant's key record as stored (operator tools). */
  record(tenantId: string): Promise<WithEtag<FieldKeyDoc> | undefined> {
    return this.docs.read(tenantId.toLowerCase(), FIELD_KEY_DOC_ID);
  }

  /** The tenant's key, or undefined when it has none (never had one, or it was removed). */
  forReading(tenantId: string): Promise<TenantKey | undefined> {
    const id = tenantId.toLowerCase();
    const hit = this.cache.get(id);
    if (hit && this.now() - hit.at < this.options.cacheTtlMs) return hit.key;
    const key = this.load(id);
    this.cache.set(id, { key, at: this.now() });
    key.then(
      (k) => {
        // An absent key is asked for again at once next time: it may be created by a write meanwhile.
        if (!k) this.cache.delete(id);
      },
      () => this.cache.delete(id),
    );
    return key;
  }

  /** The tenant's key, created when it has none; TenantKeyForgottenError once forgotten. */
  async forWriting(tenantId: string): Promise<TenantKey> {
    const existing = await this.forReading(tenantId);
    if (existing) return existing;
    const id = tenantId.toLowerCase();
    if ((await this.record(id))?.forgottenAt) throw new TenantKeyForgottenError();
    const { keyId, key } = newDataKey();
    const wrapped = await vaultCall(() => this.wrapper.wrap(key));
    try {
      await this.docs.create({
        id: FIELD_KEY_DOC_ID,
        pk: id,
        kind: 'fieldKey',
        tenantId: id,
        keyId,
        ...wrapped,
        createdAt: new Date(this.now()).toISOString(),
      });
    } catch (err) {
      // Another instance created it first (or it was forgotten): use what is stored.
      if (!isStoreError(err, 'conflict')) throw err;
      this.cache.delete(id);
      const stored = await this.forReading(id);
      if (!stored) throw new TenantKeyForgottenError();
      return stored;
    }
    const made: TenantKey = { keyId, key, hashKey: contentHashKey(key) };
    this.cache.set(id, { key: Promise.resolve(made), at: this.now() });
    return made;
  }

  private async load(tenantId: string): Promise<TenantKey | undefined> {
    const doc = await this.record(tenantId);
    if (!doc?.wrapped || !doc.wrappedBy || doc.forgottenAt) return undefined;
    const { wrapped, wrappedBy } = doc;
    const key = await vaultCall(() => this.wrapper.unwrap({ wrapped, wrappedBy }));
    return { keyId: doc.keyId, key, hashKey: contentHashKey(key) };
  }

  /**
   * Wraps the tenant's data key again with the Key Vault key's current version (after a rotation); the
   * data key and every envelope stay as they are. False when it had no key or already used that version.
   */
  async rewrap(tenantId: string): Promise<boolean> {
    const doc = await this.record(tenantId);
    if (!doc?.wrapped || !doc.wrappedBy || doc.forgottenAt) return false;
    const current = await this.wrapper.currentKeyId();
    // Compared by key name and version: the vault's address is the configured one (keyVaultWrapper.ts).
    if (new URL(doc.wrappedBy).pathname === new URL(current).pathname) return false;
    const key = await this.wrapper.unwrap({ wrapped: doc.wrapped, wrappedBy: doc.wrappedBy });
    const rewrapped = await this.wrapper.wrap(key);
    const { _etag, ...rest } = doc;
    await this.docs.replace({ ...rest, ...rewrapped, rewrappedAt: new Date(this.now()).toISOString() }, _etag);
    return true;
  }

  /**
   * Crypto-shreds the tenant: its wrapped data key is replaced by a record that it was forgotten, so every
   * number sealed with it is unreadable for good and no new key is made for the tenant. True when a key was
   * removed. (A restore of the store from before this brings the wrapped key back: see docs/operations.md.)
   */
  async forget(tenantId: string): Promise<boolean> {
    const id = tenantId.toLowerCase();
    const doc = await this.record(id);
    const at = new Date(this.now()).toISOString();
    this.cache.delete(id);
    if (!doc) {
      await this.docs.upsert({
        id: FIELD_KEY_DOC_ID,
        pk: id,
        kind: 'fieldKey',
        tenantId: id,
        keyId: '',
        createdAt: at,
        forgottenAt: at,
      });
      return false;
    }
    if (doc.forgottenAt) return false;
    await this.docs.replace(
      {
        id: doc.id,
        pk: doc.pk,
        kind: 'fieldKey',
        tenantId: id,
        keyId: doc.keyId,
        createdAt: doc.createdAt,
        forgottenAt: at,
      },
      doc._etag,
    );
    return true;
  }

  /**
   * Rewraps every tenant's data key with the Key Vault key's current version (`rotate-keys`); identities are
   * not touched. Idempotent: keys already wrapped by the current version are skipped, so a run that stopped
   * is simply run again.
   */
  async rewrapAll(): Promise<{ keys: number; rewrapped: number }> {
    const records = (await this.docs.all(allTenants())).filter((d) => (d as { kind?: string }).kind === 'fieldKey');
    let rewrapped = 0;
    for (const r of records) if (await this.rewrap(r.tenantId)) rewrapped++;
    return { keys: records.filter((r) => !r.forgottenAt).length, rewrapped };
  }

  /** Forgets every cached key of this process. */
  clearCache(): void {
    this.cache.clear();
  }
}

/** Seconds a caller is asked to wait when Key Vault did not answer. */
const VAULT_RETRY_AFTER_MS = 5_000;

/**
 * A call to Key Vault whose outage (no answer, 5xx, 429) is the store's kind of outage: `unavailable`, so the
 * APIs answer 503 with Retry-After as for the store, and the retry policy waits and tries again. A refusal
 * (401, 403, 404: a missing role or key) stays an error an operator must fix.
 */
async function vaultCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const status = (err as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status < 500 && status !== 429) throw err;
    throw new StoreError('unavailable', 'Key Vault did not answer', VAULT_RETRY_AFTER_MS);
  }
}
