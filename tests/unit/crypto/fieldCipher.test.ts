import { createHash } from 'node:crypto';
import {
  associatedData,
  contentHashKey,
  envelopeKeyId,
  EnvelopeError,
  isEnvelope,
  isKeyedHash,
  keyedHash,
  newDataKey,
  open,
  seal,
} from '../../../lib/crypto/fieldCipher';

const TENANT = '11111111-1111-4111-8111-111111111111';
const OTHER = '33333333-3333-4333-8333-333333333333';
const PN = 'personalNumbers.value';
const DOC = 'identityDocumentReferences.documentNumber';

describe('field cipher (AES-256-GCM envelope)', () => {
  const { key, keyId } = newDataKey();

  it('seals a value into a versioned compact envelope that opens to it, and holds no trace of the value', () => {
    const e = seal(key, keyId, '0101904321', associatedData(TENANT, PN));
    expect(e).toMatch(/^e1\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(isEnvelope(e)).toBe(true);
    expect(envelopeKeyId(e)).toBe(keyId);
    expect(e).not.toContain('0101904321');
    expect(open(key, e, associatedData(TENANT, PN))).toBe('0101904321');
  });

  it('is randomized: the same value sealed twice gives two envelopes', () => {
    const aad = associatedData(TENANT, PN);
    expect(seal(key, keyId, '0101904321', aad)).not.toBe(seal(key, keyId, '0101904321', aad));
  });

  it('binds the tenant and the attribute: an envelope moved to another tenant or field does not open', () => {
    const e = seal(key, keyId, 'P1234567', associatedData(TENANT, DOC));
    expect(() => open(key, e, associatedData(OTHER, DOC))).toThrow(EnvelopeError);
    expect(() => open(key, e, associatedData(TENANT, PN))).toThrow(EnvelopeError);
  });

  it('refuses a changed envelope, another key, and anything that is not an envelope, without repeating it', () => {
    const aad = associatedData(TENANT, PN);
    const e = seal(key, keyId, '0101904321', aad);
    const parts = e.split('.');
    const ct = parts[3]!;
    const flipped = [...parts.slice(0, 3), `${ct.startsWith('A') ? 'B' : 'A'}${ct.slice(1)}`, parts[4]].join('.');
    expect(() => open(key, flipped, aad)).toThrow(EnvelopeError);
    expect(() => open(newDataKey().key, e, aad)).toThrow(EnvelopeError);
    expect(() => open(key, '0101904321', aad)).toThrow(EnvelopeError);
    try {
      open(key, '0101904321', aad);
    } catch (err) {
      expect((err as Error).message).not.toContain('0101904321');
    }
  });

  it('never takes a plain value for an envelope', () => {
    for (const v of ['0101904321', '010190-4321', 'P1234567', 'e1', 'e1.a.b', 'e1.a.b.c', '', 'E1.a.b.c.d'])
      expect(isEnvelope(v)).toBe(false);
  });

  it('keys the content hash: not the plain hash, not computable without the key, stable with it', () => {
    const plain = createHash('sha256').update('attributes').digest('base64url').slice(0, 22);
    const hk = contentHashKey(key);
    const keyed = keyedHash(hk, plain);
    expect(keyed).toHaveLength(22);
    expect(isKeyedHash(keyed)).toBe(true);
    expect(isKeyedHash(plain)).toBe(false);
    expect(keyed).not.toContain(plain.slice(0, 8));
    expect(keyedHash(hk, plain)).toBe(keyed);
    expect(keyedHash(contentHashKey(newDataKey().key), plain)).not.toBe(keyed);
    // A keyed hash is kept as it is (never keyed twice).
    expect(keyedHash(hk, keyed)).toBe(keyed);
  });
});
