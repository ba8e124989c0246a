/**
 * managedIdentity mode asks the user-assigned Graph identity (by its client id) for the federated
 * assertion; the system-assigned identity, which Cosmos DB and storage use, is never asked.
 */
import type { TokenCredential } from '@azure/identity';
import { ConfigError, loadSettings } from '../../../lib/config/settings';

const created: Array<{ kind: string; args: unknown[] }> = [];

jest.mock('@azure/identity', () => {
  const record = (kind: string) =>
    class {
      constructor(...args: unknown[]) {
        created.push({ kind, args });
      }
      async getToken(): Promise<{ token: string; expiresOnTimestamp: number }> {
        const assertion = created.find((c) => c.kind === 'ClientAssertionCredential')?.args[2] as
          (() => Promise<string>) | undefined;
        const token =
          kind === 'ClientAssertionCredential' && assertion ? `graph-token-for(${await assertion()})` : `${kind}-token`;
        return { token, expiresOnTimestamp: Date.now() + 3_600_000 };
      }
    };
  return {
    ManagedIdentityCredential: record('ManagedIdentityCredential'),
    ClientAssertionCredential: record('ClientAssertionCredential'),
    ClientCertificateCredential: record('ClientCertificateCredential'),
  } satisfies Record<string, new (...args: never[]) => TokenCredential>;
});

// Imported after the mock is declared (jest hoists jest.mock above the imports).
import { createGraphTokenProvider } from '../../../lib/directory/graphTokens';

const base = {
  PUBLIC_BASE_URL: 'https://svc.example.com',
  COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/',
  GRAPH_CREDENTIAL: 'managedIdentity',
  GRAPH_CLIENT_ID: '5d2a7f0e-8b1c-4e3d-9f6a-2b4c6d8e0f12',
};
const TENANT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

beforeEach(() => {
  created.length = 0;
});

describe('Graph tokens in managedIdentity mode', () => {
  it('uses ManagedIdentityCredential with the user-assigned client id for the assertion of the application', async () => {
    const provider = createGraphTokenProvider(
      loadSettings({ ...base, GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001' }),
    );
    await expect(provider.getToken(TENANT)).resolves.toBe('graph-token-for(ManagedIdentityCredential-token)');
    const identities = created.filter((c) => c.kind === 'ManagedIdentityCredential');
    expect(identities).toEqual([
      { kind: 'ManagedIdentityCredential', args: [{ clientId: 'cccccccc-0000-4000-8000-000000000001' }] },
    ]);
    expect(created.find((c) => c.kind === 'ClientAssertionCredential')?.args.slice(0, 2)).toEqual([
      TENANT,
      base.GRAPH_CLIENT_ID,
    ]);
  });

  it('refuses to fall back to the system-assigned identity when no client id is configured', () => {
    let err: unknown;
    try {
      createGraphTokenProvider(loadSettings(base));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).setting).toBe('GRAPH_MANAGED_IDENTITY_CLIENT_ID');
    expect(created.filter((c) => c.kind === 'ManagedIdentityCredential')).toEqual([]);
  });
});
