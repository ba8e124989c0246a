import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import type { ReactElement } from 'react';
import type { ImportRun, Send } from '../src/api';
import { RunsPage } from '../src/pages/RunsPage';
import { CHART_TITLE } from '../src/pages/RunChart';
import { OverviewPage } from '../src/pages/OverviewPage';

const inFluent = (ui: ReactElement) => render(<FluentProvider theme={webLightTheme}>{ui}</FluentProvider>);
const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(Date.now() - d * DAY).toISOString();

const run = (n: number, deleted: number): ImportRun => ({
  id: `run-${n}`,
  operation: 'IMPORT',
  source: 'HR',
  clientId: 'c',
  status: 'COMPLETED',
  startedAt: daysAgo(10 - n),
  endedAt: daysAgo(10 - n),
  submitted: 1000 - deleted,
  dryRun: false,
  importCounts: { created: 1, updated: 5, deleted, unchanged: 1000 - 5 - deleted },
  associationCounts: null,
  failure: null,
});

function sender(runs: ImportRun[]) {
  return vi.fn(async (op: string) => {
    if (op === 'sources')
      return { sources: [{ name: 'HR', kind: 'CUSTOM', displayName: 'HR', counts: { total: 1000 } }] };
    return { importRuns: runs };
  }) as unknown as Send;
}

afterEach(cleanup);

describe('the runs chart', () => {
  it('names the chart, explains the run that stands out in text and lists every run as a table on request', async () => {
    const runs = [run(1, 1), run(2, 1), run(3, 300), run(4, 1)].reverse();
    inFluent(<RunsPage send={sender(runs)} source="HR" />);
    expect(await screen.findByRole('figure', { name: CHART_TITLE })).toBeTruthy();
    expect(screen.getByText(/4 import runs; median deleted share 0\.1 %; 1 stands out/)).toBeTruthy();
    const marked = within(screen.getByRole('list', { name: 'Runs that stand out' })).getAllByRole('listitem');
    expect(marked).toHaveLength(1);
    expect(marked[0]!.textContent).toContain(
      'Deleted 30 % of the source (300 of 1000), more than 3 times the median of 0.1 % over the last 90 days.',
    );
    expect(screen.queryByRole('table', { name: CHART_TITLE })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show as table' }));
    const rows = within(screen.getByRole('table', { name: CHART_TITLE }))
      .getAllByRole('row')
      .slice(1);
    expect(rows).toHaveLength(4);
    const cells = rows.map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );
    expect(cells.map((c) => c.slice(2, 6))).toEqual([
      ['1', '5', '1', '0.1 %'],
      ['1', '5', '1', '0.1 %'],
      ['1', '5', '300', '30 %'],
      ['1', '5', '1', '0.1 %'],
    ]);
    expect(cells[2]![0]).toMatch(/^⚠ /);
    expect(cells[2]![6]).toMatch(/^Deleted 30 %/);
    expect(cells[0]![6]).toBe('No');
  });

  it('says when the source had no import in the last 90 days', async () => {
    inFluent(<RunsPage send={sender([{ ...run(1, 0), startedAt: daysAgo(120) }])} source="HR" />);
    expect(await screen.findByText('No import run in the last 90 days.')).toBeTruthy();
  });

  it("draws the runs small on the source's card on the overview, the run that stands out named in text, linked to the Runs page", async () => {
    const runs = [run(1, 1), run(2, 1), run(3, 300), run(4, 1)].reverse();
    const send = sender(runs);
    inFluent(<OverviewPage send={send} />);
    const chart = await screen.findByRole('img', { name: `${CHART_TITLE}, HR` });
    // The picture takes no focus: its runs are named in the text beside it and one by one on the Runs page.
    expect(chart.firstElementChild?.hasAttribute('inert')).toBe(true);
    expect(chart.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(chart.getAttribute('aria-describedby')!)?.textContent).toBe(
      '4 import runs; median deleted share 0.1 %; 1 stands out (marked ⚠).',
    );
    const marked = within(screen.getByRole('list', { name: 'Runs of HR that stand out' })).getAllByRole('listitem');
    expect(marked).toHaveLength(1);
    expect(marked[0]!.textContent).toMatch(
      /^⚠ .+: Deleted 30 % of the source \(300 of 1000\), more than 3 times the median of 0\.1 % over the last 90 days\.$/,
    );
    expect(screen.getByRole('link', { name: 'Runs of HR, with their chart' }).getAttribute('href')).toBe(
      '/console/runs?source=HR',
    );
    // One list of runs serves the chart and the recent runs.
    expect(vi.mocked(send).mock.calls.filter(([op]) => op === 'runs')).toEqual([
      ['runs', { source: 'HR', first: 100 }],
    ]);
  });

  it('says on the card when the source had no import in the last 90 days, and draws nothing', async () => {
    inFluent(<OverviewPage send={sender([{ ...run(1, 0), startedAt: daysAgo(120) }])} />);
    expect(await screen.findByText('No import run in the last 90 days.')).toBeTruthy();
    expect(screen.queryByRole('img')).toBeNull();
  });
});
