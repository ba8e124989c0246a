/**
 * App-only tokens for Microsoft Graph in a customer tenant. The credential kind is the
 * only difference between Azure (certificate, or a user-assigned managed identity as a federated
 * client assertion) and the local stack (client secret against the identity-provider stand-in).
 */
import {
  ClientAssertionCredential,
  ClientCertificateCredential,
  ManagedIdentityCredential,
  type TokenCredential,
} from '@azure/identity';
import { ConfigError, type Settings } from '../config/settings';

export interface GraphTokenProvider {
  getToken(tenantId: string): Promise<string>;
}

export const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';
const REFRESH_MARGIN_MS = 5 * 60_000;

export class TokenFetchError extends Error {
  constructor(readonly status: number) {
    super(`The identity provider refused the token request (HTTP ${status})`);
    this.name = 'TokenFetchError';
  }
}

/** Caches one token per tenant until shortly before it expires; concurrent callers share one request. */
abstract class CachingProvider implements GraphTokenProvider {
  private readonly cache = new Map<string, Promise<{ token: string; expiresAt: number }>>();

  protected abstract fetchToken(tenantId: string): Promise<{ token: string; expiresAt: number }>;

  async getToken(tenantId: string): Promise<string> {
    const hit = this.cache.get(tenantId);
    if (hit) {
      const value = await hit.catch(() => undefined);
      if (value && value.expiresAt - REFRESH_MARGIN_MS > Date.now()) return value.token;
    }
    const pending = this.fetchToken(tenantId);
    this.cache.set(tenantId, pending);
    pending.catch(() => this.cache.delete(tenantId));
    return (await pending).token;
  }
}

/** Client credentials with a client secret, form-encoded (the local stack; also works against Entra). */
export class ClientSecretTokenProvider extends CachingProvider {
  constructor(
    private readonly authority: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {
    super();
  }

  protected async fetchToken(tenantId: string): Promise<{ token: string; expiresAt: number }> {
    const res = await fetch(`${this.authority}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.clientId,
        client_secret: this.clientSecret,
        scope: GRAPH_SCOPE,
      }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new TokenFetchError(res.status);
    const body = (await res.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new TokenFetchError(res.status);
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3599;
    return { token: body.access_token, expiresAt: Date.now() + expiresIn * 1000 };
  }
}

/** Any @azure/identity credential, one per tenant. */
class AzureIdentityTokenProvider extends CachingProvider {
  private readonly credentials = new Map<string, TokenCredential>();

  constructor(private readonly credentialFor: (tenantId: string) => TokenCredential) {
    super();
  }

  protected async fetchToken(tenantId: string): Promise<{ token: string; expiresAt: number }> {
    let credential = this.credentials.get(tenantId);
    if (!credential) {
      credential = this.credentialFor(tenantId);
      this.credentials.set(tenantId, credential);
    }
    const token = await credential.getToken(GRAPH_SCOPE);
    if (!token) throw new TokenFetchError(0);
    return { token: token.token, expiresAt: token.expiresOnTimestamp };
  }
}

export function createGraphTokenProvider(s: Settings): GraphTokenProvider {
  const { graph, auth } = s;
  switch (graph.credential) {
    case 'clientSecret':
      return new ClientSecretTokenProvider(auth.authority, graph.clientId ?? '', graph.clientSecret ?? '');
    case 'certificate': {
      // In Azure the PEM arrives through a Key Vault reference (GRAPH_CERTIFICATE); a file path is for other hosts.
      const clientId = graph.clientId ?? '';
      const { certificate, certificatePath } = graph;
      const options = { authorityHost: auth.authority };
      return new AzureIdentityTokenProvider((tenantId) =>
        certificate
          ? new ClientCertificateCredential(tenantId, clientId, { certificate }, options)
          : new ClientCertificateCredential(tenantId, clientId, { certificatePath: certificatePath ?? '' }, options),
      );
    }
    case 'managedIdentity': {
      // A user-assigned managed identity signs a client assertion for the multi-tenant application
      // (federated identity credential), so no secret or certificate is stored anywhere. Only user-assigned
      // identities can be federated credentials; the system-assigned identity keeps serving Cosmos DB and storage.
      const clientId = graph.managedIdentityClientId;
      if (!clientId)
        throw new ConfigError(
          'GRAPH_MANAGED_IDENTITY_CLIENT_ID',
          'is required when GRAPH_CREDENTIAL is managedIdentity',
        );
      const managedIdentity = new ManagedIdentityCredential({ clientId });
      const assertion = async (): Promise<string> =>
        (await managedIdentity.getToken('api://AzureADTokenExchange/.default')).token;
      return new AzureIdentityTokenProvider(
        (tenantId) =>
          new ClientAssertionCredential(tenantId, graph.clientId ?? '', assertion, { authorityHost: auth.authority }),
      );
    }
  }
}
