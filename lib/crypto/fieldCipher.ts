/**
 * The envelope of one encrypted field value (pure, node:crypto only): AES-256-GCM under a tenant's data key,
 * a random 96-bit IV per value (randomized: equal numbers give unequal envelopes, so nothing can be matched
 * or counted in the store), and the tenant and attribute path as associated data, so an envelope copied to
 * another tenant's identity or another attribute does not open. The stored form is one compact string,
 * `e1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts): `e1` is the format's version, `keyId` names the
 * tenant's data key (never the key itself). Also the keyed content hash of imports: HMAC-SHA-256 under a
 * key derived from the tenant's data key (HKDF), so a stored hash says nothing about a personal number.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export const ENVELOPE_VERSION = 'e1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DATA_KEY_BYTES = 32;

/** Raised when an envelope does not open: wrong key, another tenant or attribute, or a changed value. */
export class EnvelopeError extends Error {
  constructor(reason: string) {
    super(`An encrypted value could not be opened (${reason})`);
    this.name = 'EnvelopeError';
  }
}

/** Whether a stored value is an envelope of this format (a plain value never is: it holds no `e1.` prefix and four dots). */
export function isEnvelope(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${ENVELOPE_VERSION}.`) && value.split('.').length === 5;
}

/** The data key id an envelope names; undefined for anything that is not an envelope. */
export function envelopeKeyId(value: unknown): string | undefined {
  return isEnvelope(value) ? value.split('.')[1] : undefined;
}

/** What binds a value to its place: the tenant and the attribute path (e.g. `personalNumbers.value`). */
export function associatedData(tenantId: string, path: string): Buffer {
  return Buffer.from(`${ENVELOPE_VERSION}\n${tenantId.toLowerCase()}\n${path}`, 'utf8');
}

export function seal(key: Buffer, keyId: string, plaintext: string, aad: Buffer): string {
  if (key.length !== DATA_KEY_BYTES) throw new Error('A data key is 256 bits');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [ENVELOPE_VERSION, keyId, iv.toString('base64url'), ct.toString('base64url'), tag.toString('base64url')].join(
    '.',
  );
}

export function open(key: Buffer, envelope: string, aad: Buffer): string {
  if (!isEnvelope(envelope)) throw new EnvelopeError('not an envelope');
  const [, , ivText, ctText, tagText] = envelope.split('.') as [string, string, string, string, string];
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new EnvelopeError('malformed');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new EnvelopeError('authentication failed');
  }
}

/** The tenant's content-hash key: derived from its data key, so removing the data key removes it too. */
export function contentHashKey(dataKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'import content hash v1', 32));
}

/**
 * A keyed content hash starts with `:` (never in base64url), so a stored plain hash of before is told apart
 * from a keyed one and keyed on its next read or write; same length as the plain one (22 characters).
 */
export const KEYED_HASH_PREFIX = ':';

export function isKeyedHash(hash: string): boolean {
  return hash.startsWith(KEYED_HASH_PREFIX);
}

/** HMAC-SHA-256 of the plain content hash under the tenant's hash key; a keyed hash is returned as it is. */
export function keyedHash(hashKey: Buffer, plainHash: string): string {
  if (isKeyedHash(plainHash)) return plainHash;
  return KEYED_HASH_PREFIX + createHmac('sha256', hashKey).update(plainHash).digest('base64url').slice(0, 21);
}

/** A new random data key and its id (the id names it in envelopes; 64 random bits are plenty per tenant). */
export function newDataKey(): { keyId: string; key: Buffer } {
  return { keyId: randomBytes(8).toString('base64url'), key: randomBytes(DATA_KEY_BYTES) };
}
