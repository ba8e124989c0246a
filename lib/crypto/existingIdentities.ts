/**
 * Encrypts the identities stored before field encryption (`npm run ops -- encrypt-existing`): reads a
 * tenant's identities in their stored form (a store without the codec), and writes each one that still holds
 * a plain number or a plain content hash in its stored form (fieldCrypto.ts encode), with its entity tag.
 * Nothing of the resource changes (version and lastModified stay); the service reads plain identities as
 * before meanwhile and seals them on their next write anyway. Bulk work: low priority and paced by the
 * tenant's request units. Idempotent and resumable: an identity already sealed is skipped, a run stops after
 * `maxWrites`, and the next run goes on where work is left.
 */
import type { Store } from '../store/store';
import { rewriteTenantIdentities, type TenantRewriteResult } from '../identities/tenantRewrite';
import type { FieldCrypto } from './fieldCrypto';

export type EncryptExistingResult = TenantRewriteResult;

/** `rawStore` must be a store without field encryption installed: it reads and writes stored forms. */
export function encryptExisting(
  rawStore: Store,
  crypto: FieldCrypto,
  tenantId: string,
  maxWrites: number,
): Promise<EncryptExistingResult> {
  if (rawStore.codec) throw new Error('encryptExisting needs the stored form: a store without field encryption');
  return rewriteTenantIdentities(rawStore, tenantId, maxWrites, async (doc) => {
    const sealed = await crypto.encode('identities', doc);
    return sealed === doc ? undefined : sealed;
  });
}
