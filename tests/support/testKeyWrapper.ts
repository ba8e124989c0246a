/**
 * Key Vault's place in unit tests (an outside service, as tests/support/memoryDirectory.ts is Graph's): wraps
 * data keys with a key of its own (AES-GCM here; Key Vault's is RSA-OAEP-256) and counts its calls.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyWrapper, WrappedKey } from '../../lib/crypto/keyVaultWrapper';

export class TestWrapper implements KeyWrapper {
  readonly kek = randomBytes(32);
  version = 'v1';
  calls = { wrap: 0, unwrap: 0 };
  currentKeyId(): Promise<string> {
    return Promise.resolve(`https://kv.test/keys/k/${this.version}`);
  }
  async wrap(dataKey: Buffer): Promise<WrappedKey> {
    this.calls.wrap++;
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.kek, iv);
    const ct = Buffer.concat([iv, c.update(dataKey), c.final(), c.getAuthTag()]);
    return { wrapped: ct.toString('base64url'), wrappedBy: await this.currentKeyId() };
  }
  unwrap(key: WrappedKey): Promise<Buffer> {
    this.calls.unwrap++;
    const b = Buffer.from(key.wrapped, 'base64url');
    const d = createDecipheriv('aes-256-gcm', this.kek, b.subarray(0, 12));
    d.setAuthTag(b.subarray(b.length - 16));
    return Promise.resolve(Buffer.concat([d.update(b.subarray(12, b.length - 16)), d.final()]));
  }
}
