import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import type { ReactElement } from 'react';
import { GraphQLRequestError, type Send } from '../src/api';
import { IntegrationsPage } from '../src/pages/IntegrationsPage';
import { ConsoleShell } from '../src/ConsoleShell';
import { IdentityTable } from '../src/pages/IdentitiesPage';

const inFluent = (ui: ReactElement) => render(<FluentProvider theme={webLightTheme}>{ui}</FluentProvider>);
const integration = {
  id: 'i-1',
  displayName: 'HR SCIM',
  clientId: 'aaaaaaaa-0000-4000-8000-000000000009',
  enabled: true,
  scimEndpoint: 'https://svc.example/scim/v2',
};

afterEach(cleanup);

describe('IntegrationsPage', () => {
  it('shows loading, then the integrations with their status', async () => {
    let resolve: (v: unknown) => void = () => undefined;
    const send = vi.fn(() => new Promise((r) => (resolve = r))) as unknown as Send;
    inFluent(<IntegrationsPage send={send} />);
    expect(screen.getByText('Loading integrations…')).toBeTruthy();
    resolve({ scimIntegrations: [integration] });
    expect(await screen.findByText('HR SCIM')).toBeTruthy();
    expect(screen.getByText('Enabled')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Disable HR SCIM' })).toBeTruthy();
  });

  it('shows the empty state and the error state', async () => {
    inFluent(<IntegrationsPage send={(async () => ({ scimIntegrations: [] })) as unknown as Send} />);
    expect(await screen.findByText('No SCIM integration yet.')).toBeTruthy();
    cleanup();
    const failing = (async () => {
      throw new GraphQLRequestError('The store is unavailable', 'STORE_UNAVAILABLE');
    }) as unknown as Send;
    inFluent(<IntegrationsPage send={failing} />);
    expect((await screen.findByRole('alert')).textContent).toContain('STORE_UNAVAILABLE');
  });

  it('creates an integration with the labelled fields', async () => {
    const send = vi.fn(async (op: string) =>
      op === 'integrations' ? { scimIntegrations: [] } : { createScimIntegration: { scimIntegration: integration } },
    );
    inFluent(<IntegrationsPage send={send as unknown as Send} />);
    fireEvent.change(screen.getByLabelText(/Display name/), { target: { value: 'HR SCIM' } });
    fireEvent.change(screen.getByLabelText(/Client \(application\) id/), { target: { value: integration.clientId } });
    fireEvent.click(screen.getByRole('button', { name: 'Create integration' }));
    await waitFor(() =>
      expect(send).toHaveBeenCalledWith('createIntegration', {
        input: { displayName: 'HR SCIM', clientId: integration.clientId },
      }),
    );
  });
});

describe('ConsoleShell', () => {
  it('tells a signed-in user without the Admin role why the console refuses them', async () => {
    const send = (async () => {
      throw new GraphQLRequestError('Not authorized', 'AUTH_NOT_AUTHORIZED');
    }) as unknown as Send;
    inFluent(
      <ConsoleShell
        send={send}
        download={async () => new Blob([])}
        userName="reader@dev.example.com"
        onSignOut={() => undefined}
      />,
    );
    expect(await screen.findByRole('heading', { name: 'You are not an administrator of this service' })).toBeTruthy();
    expect(screen.queryByRole('tab')).toBeNull();
  });
});

describe('IdentityTable', () => {
  it('shows link status and the linked UPN, never a number', () => {
    inFluent(
      <IdentityTable
        items={[
          {
            id: '1',
            source: 'HR',
            externalId: 'E-1',
            userName: null,
            affiliationType: 'EMPLOYMENT',
            firstName: 'Ada',
            lastName: 'Lund',
            active: true,
            birthDate: null,
            nationality: null,
            personalNumberTypes: ['DK_CPR'],
            identityDocumentTypes: [],
            directoryUserPrincipalName: null,
            directoryLinkStatus: 'LINKED',
            directoryLinkSource: 'ASSERTED',
            directoryLinkedUserId: 'u-1',
            linkedUserPrincipalName: 'ada@corp.example',
            conflictHeldBy: null,
            nextCheckAt: null,
            created: '2026-01-01T00:00:00Z',
            lastModified: '2026-01-01T00:00:00Z',
          },
        ]}
      />,
    );
    expect(screen.getByText('Linked')).toBeTruthy();
    expect(screen.getByText('ada@corp.example')).toBeTruthy();
  });
});
