/**
 * The one call the imports make into field encryption: an import's content hashes keyed with the tenant's
 * hash key (HMAC-SHA-256, fieldCipher.ts) before they are compared or stored anywhere (identities, manifest,
 * staged parts). A store without field encryption (unit tests over a bare store) leaves them plain.
 */
import type { Store } from '../store/store';

/** The keyer of the tenant's content hashes; the identity function on a store without field encryption. */
export async function contentHashKeyer(store: Store, tenantId: string): Promise<(plainHash: string) => string> {
  return store.codec ? store.codec.hashKeyer(tenantId) : (plainHash) => plainHash;
}

/** The validated identities with their content hashes keyed for the tenant. */
export async function withKeyedHashes<V extends { hash: string }>(
  store: Store,
  tenantId: string,
  valid: V[],
): Promise<V[]> {
  if (!store.codec) return valid;
  const key = await contentHashKeyer(store, tenantId);
  return valid.map((v) => ({ ...v, hash: key(v.hash) }));
}
