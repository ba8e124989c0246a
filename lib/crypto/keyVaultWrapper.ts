/**
 * The seam to Key Vault: wraps and unwraps tenants' data keys with the service's key (RSA-OAEP-256) through
 * `@azure/keyvault-keys`, so the key-encryption key never leaves the vault. The app's identity needs only
 * get, wrapKey and unwrapKey ("Key Vault Crypto Service Encryption User"). New data keys are wrapped by the
 * key's current version, looked up at most once per KEY_LOOKUP_TTL_MS, so a rotation (a new version) is used
 * by every instance soon after; a wrapped key names the version that wrapped it, and unwrapping uses that one.
 */
import type { TokenCredential } from '@azure/identity';
import { CryptographyClient, KeyClient, type KeyVaultKey } from '@azure/keyvault-keys';

export const WRAP_ALGORITHM = 'RSA-OAEP-256';
const KEY_LOOKUP_TTL_MS = 5 * 60_000;

export interface WrappedKey {
  /** The wrapped data key, base64url. */
  wrapped: string;
  /** The Key Vault key id (with its version) that wrapped it. */
  wrappedBy: string;
}

export interface KeyWrapper {
  wrap(dataKey: Buffer): Promise<WrappedKey>;
  unwrap(key: WrappedKey): Promise<Buffer>;
  /** The key id (with version) new data keys are wrapped with. */
  currentKeyId(): Promise<string>;
  /** Makes a new version of the key (operators only); its id. */
  rotate?(): Promise<string>;
}

export interface KeyVaultWrapperOptions {
  vaultUrl: string;
  keyName: string;
  credential: TokenCredential;
  /** The local stack's stand-in answers the challenge for its own host; Azure's vaults are always verified. */
  disableChallengeResourceVerification?: boolean;
  /** Plain http: only the local stack's stand-in on a loopback address (the settings refuse it in production). */
  allowInsecureConnection?: boolean;
  now?: () => number;
}

export class KeyVaultWrapper implements KeyWrapper {
  private readonly keys: KeyClient;
  private current?: { key: Promise<KeyVaultKey>; at: number };
  private readonly clients = new Map<string, CryptographyClient>();
  private readonly now: () => number;

  constructor(private readonly options: KeyVaultWrapperOptions) {
    this.now = options.now ?? Date.now;
    this.keys = new KeyClient(options.vaultUrl, options.credential, this.clientOptions());
  }

  private clientOptions() {
    return {
      disableChallengeResourceVerification: this.options.disableChallengeResourceVerification ?? false,
      allowInsecureConnection: this.options.allowInsecureConnection ?? false,
      // A short stall at most when the vault does not answer: the caller gets 503 with Retry-After (dataKeys.ts).
      retryOptions: { maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 1_000 },
    };
  }

  private currentKey(): Promise<KeyVaultKey> {
    const at = this.now();
    if (!this.current || at - this.current.at > KEY_LOOKUP_TTL_MS) {
      const key = this.keys.getKey(this.options.keyName);
      this.current = { key, at };
      key.catch(() => (this.current = undefined));
    }
    return this.current.key;
  }

  private client(keyId: string, key?: KeyVaultKey): CryptographyClient {
    let c = this.clients.get(keyId);
    if (!c) {
      c = new CryptographyClient(key ?? keyId, this.options.credential, this.clientOptions());
      this.clients.set(keyId, c);
    }
    return c;
  }

  async currentKeyId(): Promise<string> {
    const key = await this.currentKey();
    if (!key.id) throw new Error('Key Vault answered a key without an id');
    return key.id;
  }

  async wrap(dataKey: Buffer): Promise<WrappedKey> {
    const key = await this.currentKey();
    const keyId = key.id ?? '';
    const result = await this.client(keyId, key).wrapKey(WRAP_ALGORITHM, dataKey);
    return { wrapped: Buffer.from(result.result).toString('base64url'), wrappedBy: result.keyID ?? keyId };
  }

  async unwrap(key: WrappedKey): Promise<Buffer> {
    const result = await this.client(this.inThisVault(key.wrappedBy)).unwrapKey(
      WRAP_ALGORITHM,
      Buffer.from(key.wrapped, 'base64url'),
    );
    return Buffer.from(result.result);
  }

  /**
   * The key version named by a stored key id, in the configured vault: the host a token is sent to never comes
   * from the store (whoever can write a document must not redirect the app's identity), and a vault reached
   * under another address (the local stand-in on another port) still finds its versions.
   */
  private inThisVault(keyId: string): string {
    const match = /\/keys\/([^/]+)\/([^/?#]+)\/?$/.exec(new URL(keyId).pathname);
    if (!match) throw new Error('A wrapped data key names no key version');
    return `${this.options.vaultUrl.replace(/\/+$/, '')}/keys/${match[1]}/${match[2]}`;
  }

  /**
   * Makes a new version of the key (the operator's `rotate-keys`; needs Key Vault Crypto Officer, which the
   * app's identity does not have): its id, which wraps data keys from now on.
   */
  async rotate(): Promise<string> {
    const key = await this.keys.rotateKey(this.options.keyName);
    this.refresh();
    if (!key.id) throw new Error('Key Vault answered a key without an id');
    return key.id;
  }

  /** Forgets the cached current version (after a rotation in this process). */
  refresh(): void {
    this.current = undefined;
  }
}
