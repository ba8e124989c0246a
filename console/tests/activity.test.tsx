import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import type { ReactElement } from 'react';
import type { ActivityEntry, Download, Send } from '../src/api';
import { ActivityPage, exportPath } from '../src/pages/ActivityPage';

const inFluent = (ui: ReactElement) => render(<FluentProvider theme={webLightTheme}>{ui}</FluentProvider>);
const SOURCE = '0196f2c4-0000-7000-8000-00000000000a';
const USER = '0196f2c4-0000-7000-8000-0000000000b1';
const RUN = '0196f2c4-0000-7000-8000-0000000000c1';
const noDownload = (async () => new Blob([])) as Download;

const entry = (more: Partial<ActivityEntry>): ActivityEntry => ({
  at: '2026-03-01T08:00:02.000Z',
  source: SOURCE,
  operation: 'POST /Users',
  action: 'CREATE',
  outcome: 'REFUSED',
  httpStatus: 409,
  scimType: 'uniqueness',
  code: null,
  detail: 'Another User of the integration has the same externalId',
  recommendedAction: 'Let the connector match existing Users on externalId before creating.',
  externalId: 'E-1001',
  identityId: null,
  changedAttributes: null,
  correlationId: 'corr-1',
  runId: null,
  counts: null,
  durationMs: null,
  actor: null,
  ...more,
});

const ENTRIES = [
  entry({}),
  entry({
    at: '2026-03-01T08:00:01.000Z',
    operation: 'PATCH /Users/{id}',
    action: 'UPDATE',
    httpStatus: 412,
    scimType: null,
    detail: 'The User changed after the version in If-Match',
    externalId: null,
    identityId: USER,
    correlationId: 'corr-2',
  }),
];

const RUN_ENTRY = entry({
  source: 'HR',
  operation: 'import',
  action: 'OTHER',
  outcome: 'SUCCEEDED',
  httpStatus: null,
  scimType: null,
  detail: 'created 2, updated 0, deleted 0, unchanged 0',
  recommendedAction: null,
  externalId: null,
  runId: RUN,
  counts: [
    { name: 'created', count: 2 },
    { name: 'updated', count: 0 },
    { name: 'deleted', count: 0 },
    { name: 'unchanged', count: 0 },
  ],
  durationMs: 1500,
  correlationId: 'corr-run',
});

type Page = { nodes: ActivityEntry[]; endCursor: string | null; hasNextPage: boolean };

function sender(pages: Record<string, Page>, byRun: Page | undefined = undefined) {
  return vi.fn(async (op: string, variables?: Record<string, unknown>) => {
    if (op === 'sources')
      return { sources: [{ name: SOURCE, kind: 'SCIM', displayName: 'HR SCIM', counts: { total: 0 } }] };
    const filter = variables?.filter as { run?: string } | undefined;
    if (filter?.run && byRun) return { activity: byRun };
    return { activity: pages[String(variables?.after ?? '')] ?? { nodes: [], endCursor: null, hasNextPage: false } };
  });
}

afterEach(cleanup);

describe('ActivityPage', () => {
  it('lists the entries newest first, each User linked to its identity page', async () => {
    const send = sender({ '': { nodes: ENTRIES, endCursor: 'c1', hasNextPage: false } });
    inFluent(<ActivityPage send={send as unknown as Send} download={noDownload} source={SOURCE} />);
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

  it('sends outcome and action at once, and externalId, from and until on Filter, from the first page', async () => {
    const send = sender({ '': { nodes: ENTRIES, endCursor: 'c1', hasNextPage: true } });
    inFluent(<ActivityPage send={send as unknown as Send} download={noDownload} source={SOURCE} />);
    await screen.findByRole('table', { name: 'Activity' });
    fireEvent.click(screen.getByRole('button', { name: 'Older entries' }));
    await waitFor(() => expect(send).toHaveBeenLastCalledWith('activity', expect.objectContaining({ after: 'c1' })));
    fireEvent.change(screen.getByLabelText('Outcome'), { target: { value: 'REFUSED' } });
    fireEvent.change(screen.getByLabelText('Action'), { target: { value: 'CREATE' } });
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', {
        source: SOURCE,
        filter: { outcome: 'REFUSED', action: 'CREATE' },
        first: 25,
        after: null,
      }),
    );
    fireEvent.change(screen.getByLabelText('externalId'), { target: { value: ' E-1001 ' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-01T09:30' } });
    fireEvent.change(screen.getByLabelText('Until'), { target: { value: '2026-03-02T00:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', {
        source: SOURCE,
        filter: {
          outcome: 'REFUSED',
          action: 'CREATE',
          externalId: 'E-1001',
          from: new Date('2026-03-01T09:30').toISOString(),
          until: new Date('2026-03-02T00:00').toISOString(),
        },
        first: 25,
        after: null,
      }),
    );
  });

  it('says when nothing matches; without a source it lists every source with the source as a column', async () => {
    inFluent(<ActivityPage send={sender({}) as unknown as Send} download={noDownload} source={SOURCE} />);
    expect((await screen.findByRole('status')).textContent).toBe('No activity matches.');
    cleanup();
    const send = sender({ '': { nodes: [RUN_ENTRY, ...ENTRIES], endCursor: null, hasNextPage: false } });
    inFluent(<ActivityPage send={send as unknown as Send} download={noDownload} source={undefined} />);
    const table = await screen.findByRole('table', { name: 'Activity' });
    expect(within(table).getByRole('columnheader', { name: 'Source' })).toBeTruthy();
    expect(send).toHaveBeenCalledWith('activity', { source: null, filter: {}, first: 25, after: null });
    expect(within(within(table).getAllByRole('row')[1]!).getAllByRole('cell')[1]?.textContent).toBe('HR');
  });

  it('shows a run as one row with its counts, and its changes on View changes', async () => {
    const change = entry({
      source: 'HR',
      operation: 'IMPORT_CREATE',
      outcome: 'SUCCEEDED',
      httpStatus: null,
      scimType: null,
      detail: null,
      recommendedAction: null,
      changedAttributes: ['name.givenName'],
      runId: RUN,
      actor: { kind: 'IMPORT_RUN', id: RUN, displayName: 'HR' },
    });
    const send = sender(
      { '': { nodes: [RUN_ENTRY], endCursor: null, hasNextPage: false } },
      { nodes: [change], endCursor: null, hasNextPage: false },
    );
    inFluent(<ActivityPage send={send as unknown as Send} download={noDownload} source="HR" />);
    const table = await screen.findByRole('table', { name: 'Activity' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(within(row).getByText('created 2, updated 0, deleted 0, unchanged 0')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: 'View changes' }));
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', { source: null, filter: { run: RUN }, first: 25, after: null }),
    );
    expect(await screen.findByText('Changed name.givenName')).toBeTruthy();
    expect(screen.getByText(/Changes of the import run of/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Back to all activity' }));
    await waitFor(() =>
      expect(send).toHaveBeenLastCalledWith('activity', { source: 'HR', filter: {}, first: 25, after: null }),
    );
  });

  it("opens an entry's details with the recommended action, and downloads the selection", async () => {
    const send = sender({ '': { nodes: ENTRIES, endCursor: null, hasNextPage: false } });
    const download = vi.fn(async () => new Blob(['at\n']));
    const created = vi.fn(() => 'blob:x');
    URL.createObjectURL = created;
    URL.revokeObjectURL = vi.fn();
    inFluent(<ActivityPage send={send as unknown as Send} download={download} source={SOURCE} />);
    const table = await screen.findByRole('table', { name: 'Activity' });
    fireEvent.click(within(within(table).getAllByRole('row')[1]!).getByRole('button', { name: /^Details/ }));
    const panel = await screen.findByRole('region', { name: 'Entry details' });
    expect(within(panel).getByText('Recommended action')).toBeTruthy();
    expect(within(panel).getByText(/match existing Users on externalId/)).toBeTruthy();
    expect(within(panel).getByText('corr-1')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Outcome'), { target: { value: 'REFUSED' } });
    fireEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() =>
      expect(download).toHaveBeenCalledWith(`/activity/export?format=csv&source=${SOURCE}&outcome=REFUSED`),
    );
    await waitFor(() => expect(created).toHaveBeenCalled());
  });

  it('builds the export path of a selection', () => {
    expect(exportPath('json', undefined, { run: RUN, action: 'CREATE' })).toBe(
      `/activity/export?format=json&run=${RUN}&action=CREATE`,
    );
  });
});
