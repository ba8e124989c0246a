/** The signed-in console: header, navigation and the current page; a refused (non-admin) user sees why. */
import { useEffect, useState } from 'react';
import { Button, Tab, TabList, Text, Title3, Spinner, Title2, Body1 } from '@fluentui/react-components';
import { GraphQLRequestError, type Download, type Send } from './api';
import { useStyles } from './styles';
import { navigate, useRoute, type Route } from './route';
import { OverviewPage } from './pages/OverviewPage';
import { IntegrationsPage } from './pages/IntegrationsPage';
import { IdentitiesPage } from './pages/IdentitiesPage';
import { IdentityPage } from './pages/IdentityPage';
import { RunsPage } from './pages/RunsPage';
import { ManualPage } from './pages/ManualPage';
import { ActivityPage } from './pages/ActivityPage';
import { ErrorBar } from './data';

const SECTIONS: Array<{ page: Route['page']; label: string }> = [
  { page: 'overview', label: 'Overview' },
  { page: 'integrations', label: 'SCIM integrations' },
  { page: 'identities', label: 'Identities' },
  { page: 'runs', label: 'Runs' },
  { page: 'activity', label: 'Activity' },
  { page: 'manual', label: 'Manual identities' },
];

type Access = { state: 'checking' } | { state: 'ok' } | { state: 'refused' } | { state: 'error'; error: Error };

export function ConsoleShell({
  send,
  download,
  userName,
  onSignOut,
}: {
  send: Send;
  download: Download;
  userName: string;
  onSignOut: () => void;
}) {
  const styles = useStyles();
  const route = useRoute();
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  useEffect(() => {
    send('integrations').then(
      () => setAccess({ state: 'ok' }),
      (err: unknown) => {
        if (
          err instanceof GraphQLRequestError &&
          (err.code === 'AUTH_NOT_AUTHORIZED' || err.code === 'AUTH_NOT_AUTHENTICATED')
        )
          setAccess({ state: 'refused' });
        else setAccess({ state: 'error', error: err instanceof Error ? err : new Error('Failed') });
      },
    );
  }, [send]);

  const header = (
    <header className={styles.header}>
      <Title3 as="p">Business identities</Title3>
      <div className={styles.headerUser}>
        <Text>{userName}</Text>
        <Button appearance="secondary" size="small" onClick={onSignOut}>
          Sign out
        </Button>
      </div>
    </header>
  );
  if (access.state !== 'ok')
    return (
      <div className={styles.shell}>
        {header}
        <main className={styles.center}>
          {access.state === 'checking' && <Spinner label="Checking your access…" />}
          {access.state === 'error' && <ErrorBar error={access.error} />}
          {access.state === 'refused' && (
            <>
              <Title2 as="h1">You are not an administrator of this service</Title2>
              <Body1>
                You are signed in as {userName}, but the service refuses your account: the console needs the Admin app
                role of the Business Identity Provisioning Service, assigned to you in your organization's Entra ID
                (Enterprise applications → the service → Users and groups), and the Console.Admin permission granted.
                Ask your Entra administrator, then sign in again.
              </Body1>
              <Button onClick={onSignOut}>Sign out</Button>
            </>
          )}
        </main>
      </div>
    );
  const selected = route.page === 'identity' ? 'identities' : route.page;
  return (
    <div className={styles.shell}>
      {header}
      <div className={styles.body}>
        <nav className={styles.nav} aria-label="Console sections">
          <TabList
            vertical={window.matchMedia?.('(min-width: 701px)').matches ?? true}
            selectedValue={selected}
            onTabSelect={(_e, d) => navigate({ page: d.value as Route['page'] })}
          >
            {SECTIONS.map((s) => (
              <Tab key={s.page} value={s.page}>
                {s.label}
              </Tab>
            ))}
          </TabList>
        </nav>
        <main className={styles.main}>
          {route.page === 'overview' && <OverviewPage send={send} />}
          {route.page === 'integrations' && <IntegrationsPage send={send} />}
          {route.page === 'identities' && <IdentitiesPage send={send} source={route.source} />}
          {route.page === 'identity' && <IdentityPage send={send} source={route.source ?? ''} id={route.id ?? ''} />}
          {route.page === 'runs' && <RunsPage send={send} source={route.source} />}
          {route.page === 'manual' && <ManualPage send={send} />}
          {route.page === 'activity' && <ActivityPage send={send} download={download} source={route.source} />}
        </main>
      </div>
    </div>
  );
}
