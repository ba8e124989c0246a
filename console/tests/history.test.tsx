import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import type { ReactElement } from 'react';
import type { IdentityDetail, Results, Send } from '../src/api';
import { IdentityPage } from '../src/pages/IdentityPage';

const inFluent = (ui: ReactElement) => render(<FluentProvider theme={webLightTheme}>{ui}</FluentProvider>);
const SOURCE = '0196f2c4-0000-7000-8000-00000000000a';

const identity = (more: Partial<IdentityDetail>): IdentityDetail => ({
  id: 'u-1',
  source: SOURCE,
  externalId: 'E1001',
  userName: 'anna.berg',
  affiliationType: 'EMPLOYMENT',
  firstName: 'Anna',
  lastName: 'Berg',
  active: true,
  birthDate: null,
  nationality: null,
  personalNumberTypes: ['DK_CPR'],
  identityDocumentTypes: [],
  directoryUserPrincipalName: null,
  directoryLinkStatus: 'NOT_ASSERTED',
  directoryLinkSource: null,
  directoryLinkedUserId: null,
  linkedUserPrincipalName: null,
  conflictHeldBy: null,
  nextCheckAt: null,
  created: '2026-03-01T08:00:00.000Z',
  lastModified: '2026-03-02T09:00:00.000Z',
  linkHistory: [],
  history: [],
  historyOmitted: 0,
  ...more,
});

function sender(businessIdentity: IdentityDetail) {
  return vi.fn(async (op: string) => {
    if (op === 'sources')
      return { sources: [{ name: SOURCE, kind: 'SCIM', displayName: 'HR SCIM', counts: { total: 1 } }] };
    return { businessIdentity } satisfies Results['identity'];
  }) as unknown as Send;
}

afterEach(cleanup);

describe('the identity page history', () => {
  it('lists the changes newest first: when, who, the operation and the attributes by name', async () => {
    const history: IdentityDetail['history'] = [
      {
        at: '2026-03-02T09:00:00.000Z',
        actor: { kind: 'INTEGRATION', id: SOURCE, displayName: 'HR SCIM' },
        operation: 'PATCH',
        changedAttributes: ['name.givenName'],
      },
      {
        at: '2026-03-01T08:00:00.000Z',
        actor: { kind: 'IMPORT_RUN', id: 'run-7', displayName: null },
        operation: 'CREATE',
        changedAttributes: ['userName', 'name.givenName', 'personalNumbers'],
      },
    ];
    inFluent(<IdentityPage send={sender(identity({ history, historyOmitted: 3 }))} source={SOURCE} id="u-1" />);
    const table = await screen.findByRole('table', { name: 'History' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(
      rows.map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      ),
    ).toEqual([
      [new Date('2026-03-02T09:00:00.000Z').toLocaleString(), 'SCIM integration: HR SCIM', 'PATCH', 'name.givenName'],
      [
        new Date('2026-03-01T08:00:00.000Z').toLocaleString(),
        'Import run: run-7',
        'CREATE',
        'userName, name.givenName, personalNumbers',
      ],
    ]);
    expect(screen.getByText('3 older changes are no longer kept one by one.')).toBeTruthy();
    expect(screen.queryByText('No changes recorded.')).toBeNull();
  });

  it('says so when no change is recorded', async () => {
    inFluent(<IdentityPage send={sender(identity({}))} source={SOURCE} id="u-1" />);
    expect(await screen.findByText('No changes recorded.')).toBeTruthy();
    expect(screen.queryByRole('table', { name: 'History' })).toBeNull();
    expect(screen.queryByText(/no longer kept/)).toBeNull();
  });
});
