/** Loads the sign-in configuration, signs the administrator in, and shows the console or why not. */
import { useEffect, useMemo, useState } from 'react';
import type { AccountInfo, PublicClientApplication } from '@azure/msal-browser';
import { InteractionRequiredAuthError } from '@azure/msal-browser';
import { MsalProvider } from '@azure/msal-react';
import { Button, MessageBar, MessageBarBody, Spinner, Title2, Body1 } from '@fluentui/react-components';
import { createMsal, loadConfig, type ConsoleConfig } from './auth';
import { createDownload, createSend } from './api';
import { ConsoleShell } from './ConsoleShell';
import { useStyles } from './styles';

type Boot =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'unconfigured' }
  | { state: 'ready'; cfg: ConsoleConfig; pca: PublicClientApplication };

export function Root() {
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });
  useEffect(() => {
    loadConfig()
      .then(async (cfg) => {
        if (!cfg.configured || !cfg.clientId) return setBoot({ state: 'unconfigured' });
        setBoot({ state: 'ready', cfg, pca: await createMsal(cfg) });
      })
      .catch((err: unknown) =>
        setBoot({ state: 'error', message: err instanceof Error ? err.message : 'Sign-in failed' }),
      );
  }, []);
  const styles = useStyles();
  if (boot.state === 'loading')
    return (
      <main className={styles.center}>
        <Spinner label="Loading the console…" />
      </main>
    );
  if (boot.state === 'error')
    return (
      <main className={styles.center}>
        <MessageBar intent="error">
          <MessageBarBody>{boot.message}</MessageBarBody>
        </MessageBar>
      </main>
    );
  if (boot.state === 'unconfigured')
    return (
      <main className={styles.center}>
        <Title2 as="h1">The console is not set up</Title2>
        <Body1>Set CONSOLE_CLIENT_ID to the console's app registration (see docs/console.md).</Body1>
      </main>
    );
  return (
    <MsalProvider instance={boot.pca}>
      <SignedIn cfg={boot.cfg} pca={boot.pca} />
    </MsalProvider>
  );
}

function SignedIn({ cfg, pca }: { cfg: ConsoleConfig; pca: PublicClientApplication }) {
  const styles = useStyles();
  const [account, setAccount] = useState<AccountInfo | null>(pca.getActiveAccount());
  const token = useMemo(
    () => async () => {
      const active = pca.getActiveAccount();
      if (!active) throw new Error('Not signed in');
      try {
        return (await pca.acquireTokenSilent({ scopes: [cfg.apiScope], account: active })).accessToken;
      } catch (err) {
        if (err instanceof InteractionRequiredAuthError) await pca.acquireTokenRedirect({ scopes: [cfg.apiScope] });
        throw err;
      }
    },
    [pca, cfg.apiScope],
  );
  const send = useMemo(() => createSend(token), [token]);
  const download = useMemo(() => createDownload(token), [token]);
  if (!account)
    return (
      <main className={styles.center}>
        <Title2 as="h1">Business identities</Title2>
        <Body1>Administrator console. Sign in with your work account; you need the service's Admin role.</Body1>
        <Button appearance="primary" onClick={() => void pca.loginRedirect({ scopes: [cfg.apiScope] })}>
          Sign in
        </Button>
      </main>
    );
  return (
    <ConsoleShell
      send={send}
      download={download}
      userName={account.username}
      onSignOut={() => {
        setAccount(null);
        void pca.logoutRedirect({ account });
      }}
    />
  );
}
