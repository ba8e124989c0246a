import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import type { ReactElement } from 'react';
import type { ActivityEntry, Send } from '../src/api';
import { ActivityPage } from '../src/pages/ActivityPage';

const inFluent = (ui: ReactElement) => render(<FluentProvider theme={webLightTheme}>{ui}</FluentProvider>);
const SOURCE = '0196f2c4-0000-7000-8000-00000000000a';
const USER = '0196f2c4-0000-7000-8000-0000000000b1';

const entry = (more: Partial<ActivityEntry>): ActivityEntry => ({
  at: '2026-03-01T08:00:02.000Z',
  operation: 'POST /Users',
  outcome: 'REFUSED',
  httpStatus: 409,
  scimType: 'uniqueness',
  code: null,
  detail: 'Another User of the integration has the same externalId',
  externalId: 'E-1001',
  identityId: null,
  changedAttributes: null,
  correlationId: 'corr-1',
  ...more,
});

const ENTRIES = [
  entry({}),
  entry({
    at: '2026-03-01T08:00:01.000Z',
    operation: 'PATCH /Users/{id}',
    httpStatus: 412,
    scimType: null,
    detail: 'The User changed after the version in If-Match',
    externalId: null,
    identityId: USER,
    correlationId: 'corr-2',
  }),
];

function sender(pages: Record<string, { nodes: ActivityEntry[]; endCursor: string | null; hasNextPage: boolean }>) {
  return vi.fn(async (op: string, variables?: Record<string, unknown>) => {
    if (op === 'sources')
      return { sources: [{ name: SOURCE, kind: 'SCIM', displayName: 'HR SCIM', counts: { total: 0 } }] };
    return { activity: pages[String(variables?.after ?? '')] ?? { nodes: [], endCursor: null, hasNextPage: false } };
  });
}

afterEach(cleanup);

describe('ActivityPage', () => {
  it('lists the entries newest first, each User linked to its identity page', async () => {
    const send = sender({ '': { nodes: ENTRIES, endCursor: 'c1', hasNextPage: false } });
    inFluent(<ActivityPage send={send as unknown as Send} source={SOURCE} />);
    const table = await screen.findByRole('table', { name: 'Activity' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[2]?.textContent)).toEqual([
      'POST /Users',
      'PATCH /Users/{id}',
    ]);
    expect(within(rows[0]!).getByText('409 uniqueness')).toBeTruthy();
    expect(within(rows[0]!).getByText('E-1001')).toBeTruthy();
    expect(within(rows[0]!).queryByRole('link')).toBeNull();
    const link = within(rows[1]!).getByRole('link', { name: `Identity ${USER}` });
    expect(link.getAttribute('href')).toBe(`/console/identity/${SOURCE}/${USER}`);
    expect(within(rows[1]!).getByText('Refused')).toBeTruthy();
  });

  it('sends the outcome at once and the externalId and time on Filter, from the first page', async () => {
    const send = sender({ '': { nodes: ENTRIES, endCursor: 'c1', hasNextPage: true } });
    inFluent(<ActivityPage send={send as unknown as Send} source={SOURCE} />);
    await screen.findByRole('table', { name: 'Activity' });
    fireEvent.click(screen.getByRole('button', { name: 'Older entries' }));
    await waitFor(() => expect(send).toHaveBeenLastCalledWith('activity', expect.objectContaining({ after: 'c1' })));
    fireEvent.change(screen.getByLabelText('Outcome'), { target: { value: 'REFUSED' } });
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', {
        source: SOURCE,
        filter: { outcome: 'REFUSED' },
        first: 25,
        after: null,
      }),
    );
    fireEvent.change(screen.getByLabelText('externalId'), { target: { value: ' E-1001 ' } });
    fireEvent.change(screen.getByLabelText('Since'), { target: { value: '2026-03-01T09:30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', {
        source: SOURCE,
        filter: { outcome: 'REFUSED', externalId: 'E-1001', since: new Date('2026-03-01T09:30').toISOString() },
        first: 25,
        after: null,
      }),
    );
  });

  it('says when nothing matches, and asks for a source when none is chosen', async () => {
    inFluent(<ActivityPage send={sender({}) as unknown as Send} source={SOURCE} />);
    expect((await screen.findByRole('status')).textContent).toBe('No activity matches.');
    cleanup();
    inFluent(<ActivityPage send={sender({}) as unknown as Send} source={undefined} />);
    expect(screen.getByText(/Choose a SCIM integration or a custom source/)).toBeTruthy();
  });

  it('names the attributes a succeeded change changed, never a value', async () => {
    const changed = entry({
      outcome: 'SUCCEEDED',
      operation: 'PATCH',
      httpStatus: null,
      scimType: null,
      detail: null,
      identityId: USER,
      changedAttributes: ['name.givenName', 'personalNumbers'],
      correlationId: null,
    });
    const send = sender({ '': { nodes: [changed], endCursor: null, hasNextPage: false } });
    inFluent(<ActivityPage send={send as unknown as Send} source={SOURCE} />);
    const table = await screen.findByRole('table', { name: 'Activity' });
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells.map((c) => c.textContent)).toEqual([
      expect.any(String),
      'Succeeded',
      'PATCH',
      '—',
      'E-1001',
      USER,
      'Changed name.givenName, personalNumbers',
      '—',
    ]);
  });
});
