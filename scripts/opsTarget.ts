/**
 * Which Cosmos DB account `npm run ops` talks to. With no COSMOS_ENDPOINT it is the local stack of
 * `npm start`: DEV_COSMOS_PORT when set, else the stack recorded in .local/stack.json, else the default
 * port (a recorded stack on other ports that no longer runs is refused, not guessed around), with its
 * well-known emulator key; a plain-HTTP endpoint is
 * accepted only on a loopback address (the local stack), where the local key is the default; any other
 * account is reached over HTTPS with COSMOS_KEY or, when that is unset, the signed-in Azure identity.
 */
import { LOCAL_COSMOS_KEY } from '../devhost/cosmosServer';
import { localStack, StackRecordError } from '../devhost/stackRecord';
import type { StoreConfig } from '../lib/store/store';

export class OpsSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsSettingError';
  }
}

type Env = Record<string, string | undefined>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

export interface OpsTarget {
  store: StoreConfig;
  /** The Key Vault of field encryption: KEY_VAULT_URL, else the local stack's stand-in (with the local store). */
  keyVault?: { url: string; keyName: string };
  /** Set when no COSMOS_ENDPOINT was given and the local stack is assumed. */
  note?: string;
}

/** The local engine's port: DEV_COSMOS_PORT when set, else the recorded stack's, else the default. */
function localCosmosPort(env: Env, stackFile: string | undefined): { port: string; recorded: boolean } {
  const fromEnv = value(env, 'DEV_COSMOS_PORT');
  if (fromEnv) return { port: fromEnv, recorded: false };
  try {
    const stack = localStack(stackFile);
    return { port: String(stack.ports.cosmos), recorded: stack.recorded };
  } catch (err) {
    if (err instanceof StackRecordError) throw new OpsSettingError(err.message);
    throw err;
  }
}

/** The local stack's Key Vault stand-in: DEV_KEY_VAULT_PORT when set, else the recorded stack's port, else the default. */
function localKeyVaultUrl(env: Env, stackFile: string | undefined): string {
  const fromEnv = value(env, 'DEV_KEY_VAULT_PORT');
  if (fromEnv) return `http://127.0.0.1:${fromEnv}`;
  try {
    return `http://127.0.0.1:${localStack(stackFile).ports.keyVault}`;
  } catch (err) {
    if (err instanceof StackRecordError) throw new OpsSettingError(err.message);
    throw err;
  }
}

export function opsTarget(env: Env, stackFile?: string): OpsTarget {
  const database = value(env, 'COSMOS_DATABASE') ?? 'business-identities';
  const configured = value(env, 'COSMOS_ENDPOINT');
  const local = configured ? undefined : localCosmosPort(env, stackFile);
  const endpoint = configured ?? `http://localhost:${local?.port ?? ''}`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new OpsSettingError(
      configured ? 'Setting COSMOS_ENDPOINT must be an absolute URL' : 'Setting DEV_COSMOS_PORT must be a port number',
    );
  }
  const loopback = LOOPBACK.has(url.hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    throw new OpsSettingError(
      'Setting COSMOS_ENDPOINT must be an https URL; plain http is accepted only for the local stack on a loopback address',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OpsSettingError('Setting COSMOS_ENDPOINT must be an https URL');
  const key = value(env, 'COSMOS_KEY') ?? (url.protocol === 'http:' ? LOCAL_COSMOS_KEY : undefined);
  const keyName = value(env, 'FIELD_ENCRYPTION_KEY_NAME') ?? 'field-encryption';
  const vaultUrl = value(env, 'KEY_VAULT_URL') ?? (configured ? undefined : localKeyVaultUrl(env, stackFile));
  return {
    store: { endpoint: endpoint.replace(/\/+$/, ''), key, database },
    ...(vaultUrl ? { keyVault: { url: vaultUrl, keyName } } : {}),
    note: configured
      ? undefined
      : `No COSMOS_ENDPOINT set: using the local stack of \`npm start\` at ${endpoint}${local?.recorded ? ' (recorded in .local/stack.json)' : ''}`,
  };
}
