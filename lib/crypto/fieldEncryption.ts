/**
 * Turns field encryption on for a store from the settings (the composition root and the operator tools call
 * it): the Key Vault wrapper, the tenants' data keys, and the codec every collection then passes. Azure's
 * vault is reached with the app's managed identity (DefaultAzureCredential, as the store is); the local
 * stack's stand-in on a loopback http URL takes any bearer token, so it gets a fixed one and its challenge
 * (which names the stand-in's own host, not vault.azure.net) is not checked against Azure's domains.
 */
import { DefaultAzureCredential, type TokenCredential } from '@azure/identity';
import type { Settings } from '../config/settings';
import type { Store } from '../store/store';
import { DataKeys } from './dataKeys';
import { FieldCrypto } from './fieldCrypto';
import { KeyVaultWrapper } from './keyVaultWrapper';

const LOOPBACK_HTTP = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i;

/** The stand-in's credential: a token that means nothing anywhere else. */
const localStandInCredential: TokenCredential = {
  getToken: () => Promise.resolve({ token: 'local-key-vault-stand-in', expiresOnTimestamp: Date.now() + 3_600_000 }),
};

export function isLocalVault(vaultUrl: string): boolean {
  return LOOPBACK_HTTP.test(vaultUrl);
}

/** The Key Vault wrapper of the settings (the local stand-in's, or Azure's with the managed identity). */
export function keyVaultWrapper(vaultUrl: string, keyName: string): KeyVaultWrapper {
  const local = isLocalVault(vaultUrl);
  return new KeyVaultWrapper({
    vaultUrl,
    keyName,
    credential: local ? localStandInCredential : new DefaultAzureCredential(),
    disableChallengeResourceVerification: local,
    allowInsecureConnection: local,
  });
}

/** Field encryption over `store`'s key records, not installed on it (operator tools that see stored forms). */
export function fieldCryptoFor(store: Store, s: Settings['fieldEncryption'] & { keyVaultUrl: string }): FieldCrypto {
  const wrapper = keyVaultWrapper(s.keyVaultUrl, s.keyName);
  return new FieldCrypto(new DataKeys(store, wrapper, { cacheTtlMs: s.keyCacheSeconds * 1000 }));
}

/** Installs field encryption on `store`; undefined (and nothing installed) without KEY_VAULT_URL. */
export function enableFieldEncryption(store: Store, s: Settings['fieldEncryption']): FieldCrypto | undefined {
  if (!s.keyVaultUrl) return undefined;
  const crypto = fieldCryptoFor(store, { ...s, keyVaultUrl: s.keyVaultUrl });
  store.useCodec(crypto);
  return crypto;
}
