/** Sign-in with MSAL (authorization code + PKCE); tokens stay in sessionStorage, never localStorage. */
import { BrowserCacheLocation, PublicClientApplication, type Configuration } from '@azure/msal-browser';

export interface ConsoleConfig {
  configured: boolean;
  clientId: string | null;
  authority: string;
  apiScope: string;
  authorityMetadata: Record<string, string> | null;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch('/console/config.json', { cache: 'no-cache' });
  if (!res.ok) throw new Error(`The console configuration could not be loaded (HTTP ${res.status})`);
  return (await res.json()) as ConsoleConfig;
}

export const redirectUri = () => `${window.location.origin}/console/`;

export function msalConfiguration(cfg: ConsoleConfig): Configuration {
  const auth: Configuration['auth'] = {
    clientId: cfg.clientId ?? '',
    authority: cfg.authority,
    redirectUri: redirectUri(),
    postLogoutRedirectUri: redirectUri(),
    // Back to the page that asked for the sign-in (a deep link survives it).
    navigateToLoginRequestUrl: true,
  };
  if (cfg.authorityMetadata) {
    // A local identity provider over HTTP: MSAL only discovers HTTPS authorities, so it gets the endpoints here.
    const url = new URL(cfg.authority);
    auth.authority = cfg.authority.replace(/^http:/, 'https:');
    auth.knownAuthorities = [url.host];
    auth.authorityMetadata = JSON.stringify(cfg.authorityMetadata);
  }
  return {
    auth,
    cache: {
      cacheLocation: BrowserCacheLocation.SessionStorage,
      temporaryCacheLocation: BrowserCacheLocation.SessionStorage,
    },
  };
}

export async function createMsal(cfg: ConsoleConfig): Promise<PublicClientApplication> {
  const pca = new PublicClientApplication(msalConfiguration(cfg));
  await pca.initialize();
  const result = await pca.handleRedirectPromise();
  if (result?.account) pca.setActiveAccount(result.account);
  else if (!pca.getActiveAccount()) {
    const [first] = pca.getAllAccounts();
    if (first) pca.setActiveAccount(first);
  }
  return pca;
}
