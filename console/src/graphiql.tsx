/**
 * GraphiQL, served with the console's files (no CDN) under the same CSP, signed in like the console:
 * every request carries the administrator's token.
 */
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './index.css';
import './graphiql.css';
import type { PublicClientApplication } from '@azure/msal-browser';
import { createMsal, loadConfig, type ConsoleConfig } from './auth';

function Page() {
  const [state, setState] = useState<{ cfg: ConsoleConfig; pca: PublicClientApplication } | { error: string } | null>(
    null,
  );
  useEffect(() => {
    loadConfig()
      .then(async (cfg) => {
        if (!cfg.clientId) return setState({ error: 'The console is not set up (CONSOLE_CLIENT_ID).' });
        const pca = await createMsal(cfg);
        if (!pca.getActiveAccount()) {
          await pca.loginRedirect({ scopes: [cfg.apiScope], redirectStartPage: window.location.href });
          return;
        }
        setState({ cfg, pca });
      })
      .catch((err: unknown) => setState({ error: err instanceof Error ? err.message : 'Sign-in failed' }));
  }, []);
  if (!state) return <p>Signing in…</p>;
  if ('error' in state) return <p role="alert">{state.error}</p>;
  const { cfg, pca } = state;
  const fetcher = async (params: unknown) => {
    const account = pca.getActiveAccount();
    const token = account ? (await pca.acquireTokenSilent({ scopes: [cfg.apiScope], account })).accessToken : '';
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(params),
    });
    return res.json();
  };
  return <GraphiQL fetcher={fetcher} />;
}

createRoot(document.getElementById('graphiql')!).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
