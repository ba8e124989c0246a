/**
 * GraphiQL, served with the console's files (no CDN) under the same CSP, signed in like the console:
 * every request carries the administrator's token. It keeps nothing in the browser: its storage is the
 * page's memory (memoryStorage.ts), and the headers editor is off (the token is added here).
 */
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './index.css';
import './graphiql.css';
import type { PublicClientApplication } from '@azure/msal-browser';
import { createMsal, loadConfig, type ConsoleConfig } from './auth';
import { createMemoryStorage, forgetGraphiQL } from './memoryStorage';

// One store for the life of the page: a re-render keeps the editors' contents, a reload starts empty.
const storage = createMemoryStorage();
// What an earlier version of this page left in the browser (the query, variables, tabs and history) goes.
forgetGraphiQL(window.localStorage);

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
  return (
    <GraphiQL
      fetcher={fetcher}
      storage={storage}
      isHeadersEditorEnabled={false}
      shouldPersistHeaders={false}
      showPersistHeadersSettings={false}
      defaultEditorToolsVisibility="variables"
    />
  );
}

createRoot(document.getElementById('graphiql')!).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
