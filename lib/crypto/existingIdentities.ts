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
import { isStoreError } from '../store/errors';
import { atLowPriority } from '../store/priority';
import { tenantIdentities } from '../store/queries/identities';
import type { IdentityDoc } from '../identities/model';
import type { FieldCrypto } from './fieldCrypto';

export const ENCRYPT_PAGE_SIZE = 100;

export interface EncryptExistingResult {
  read: number;
  written: number;
  /** Changed or deleted between reading and writing (the service sealed them itself). */
  changedMeanwhile: number;
  more: boolean;
}

/** `rawStore` must be a store without field encryption installed: it reads and writes stored forms. */
export function encryptExisting(
  rawStore: Store,
  crypto: FieldCrypto,
  tenantId: string,
  maxWrites: number,
): Promise<EncryptExistingResult> {
  if (rawStore.codec) throw new Error('encryptExisting needs the stored form: a store without field encryption');
  return atLowPriority(() => run(rawStore, crypto, tenantId, maxWrites), tenantId);
}

async function run(store: Store, crypto: FieldCrypto, tenantId: string, maxWrites: number) {
  const identities = store.collection<IdentityDoc>('identities');
  const result: EncryptExistingResult = { read: 0, written: 0, changedMeanwhile: 0, more: false };
  let continuationToken: string | undefined;
  do {
    const page = await identities.page(tenantIdentities(tenantId), {
      maxItemCount: ENCRYPT_PAGE_SIZE,
      ...(continuationToken !== undefined ? { continuationToken } : {}),
    });
    for (const doc of page.items) {
      result.read++;
      const { _etag, ...rest } = doc;
      const sealed = await crypto.encode('identities', rest);
      if (sealed === rest) continue;
      if (result.written >= maxWrites) return { ...result, more: true };
      try {
        await identities.replace(sealed, _etag);
        result.written++;
      } catch (err) {
        if (!isStoreError(err, 'preconditionFailed') && !isStoreError(err, 'notFound')) throw err;
        result.changedMeanwhile++;
      }
    }
    continuationToken = page.continuationToken;
  } while (continuationToken !== undefined);
  return result;
}
