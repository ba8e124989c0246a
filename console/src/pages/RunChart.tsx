/**
 * The created, updated and deleted identities of a custom source's import runs over the last 90 days, as a
 * stacked bar chart (Fluent's charts), with the runs whose deleted share stands out named and explained in
 * text beside it and a table of every run for keyboard and screen-reader users; and the same chart small, for
 * the source's card on the overview.
 */
import { useId, useState } from 'react';
import {
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Text,
  Title3,
  ToggleButton,
} from '@fluentui/react-components';
import { VerticalStackedBarChart, type VerticalStackedChartProps } from '@fluentui/react-charts';
import { percent, TREND_DAYS, type RunTrend, type TrendRun } from '../runTrend';
import { useStyles } from '../styles';
import { TableWrap } from '../TableWrap';

const COLORS = { created: '#107c10', updated: '#0f6cbd', deleted: '#c50f1f' } as const;
export const CHART_TITLE = `Created, updated and deleted identities per import run, last ${TREND_DAYS} days`;

const short = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** One label per run (two runs in the same minute get a number), marked when the run stands out. */
function labels(runs: TrendRun[]): string[] {
  const seen = new Map<string, number>();
  return runs.map((r) => {
    const base = short(r.startedAt);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const label = count > 1 ? `${base} (${count})` : base;
    return r.standsOut ? `⚠ ${label}` : label;
  });
}

/** The bars of the chart, each named with its run and counts (and why it stands out). */
function bars(runs: TrendRun[], names: string[]): VerticalStackedChartProps[] {
  return runs.map((r, n) => ({
    xAxisPoint: names[n]!,
    stackCallOutAccessibilityData: {
      ariaLabel: `${names[n]}: created ${r.created}, updated ${r.updated}, deleted ${r.deleted}${r.standsOut ? `. Stands out: ${r.standsOut}` : ''}`,
    },
    chartData: (['created', 'updated', 'deleted'] as const).map((k) => ({
      legend: k[0]!.toUpperCase() + k.slice(1),
      data: r[k],
      color: COLORS[k],
      callOutAccessibilityData: { ariaLabel: `${names[n]}: ${k} ${r[k]}` },
    })),
  }));
}

/** The runs that stand out, with their labels. */
const standingOut = (runs: TrendRun[], names: string[]) =>
  runs.flatMap((r, n) => (r.standsOut ? [{ run: r, label: names[n]! }] : []));

function Summary({ trend, marked }: { trend: RunTrend; marked: number }) {
  return (
    <>
      {trend.runs.length} import {trend.runs.length === 1 ? 'run' : 'runs'}
      {trend.medianShare !== null ? `; median deleted share ${percent(trend.medianShare)}` : ''};{' '}
      {marked === 0 ? 'none stands out.' : `${marked} ${marked === 1 ? 'stands' : 'stand'} out (marked ⚠).`}
    </>
  );
}

export function RunChart({ trend }: { trend: RunTrend }) {
  const styles = useStyles();
  const headingId = useId();
  const [asTable, setAsTable] = useState(false);
  const names = labels(trend.runs);
  const marked = standingOut(trend.runs, names);
  return (
    <section aria-labelledby={headingId} className={styles.trend}>
      <Title3 as="h2" id={headingId}>
        Import runs, last {TREND_DAYS} days
      </Title3>
      {trend.runs.length === 0 ? (
        <Text>No import run in the last {TREND_DAYS} days.</Text>
      ) : (
        <>
          <Text role="status">
            <Summary trend={trend} marked={marked.length} />
          </Text>
          <div className={styles.chart} role="figure" aria-label={CHART_TITLE}>
            <VerticalStackedBarChart
              data={bars(trend.runs, names)}
              chartTitle={CHART_TITLE}
              height={260}
              barWidth="auto"
              maxBarWidth={40}
              yAxisTitle="Identities"
              hideLabels
            />
          </div>
          {marked.length > 0 && (
            <>
              <Text weight="semibold">Runs that stand out</Text>
              <ul aria-label="Runs that stand out" className={styles.standsOut}>
                {marked.map(({ run, label }) => (
                  <li key={run.id}>
                    <strong>{label}</strong> ({run.status.toLowerCase()}): {run.standsOut}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div>
            <ToggleButton checked={asTable} onClick={() => setAsTable((v) => !v)}>
              Show as table
            </ToggleButton>
          </div>
          {asTable && (
            <TableWrap label="Import runs as a table">
              <Table aria-label={CHART_TITLE} size="small">
                <TableHeader>
                  <TableRow>
                    <TableHeaderCell>Run</TableHeaderCell>
                    <TableHeaderCell>Status</TableHeaderCell>
                    <TableHeaderCell>Created</TableHeaderCell>
                    <TableHeaderCell>Updated</TableHeaderCell>
                    <TableHeaderCell>Deleted</TableHeaderCell>
                    <TableHeaderCell>Deleted share</TableHeaderCell>
                    <TableHeaderCell>Stands out</TableHeaderCell>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {trend.runs.map((r, n) => (
                    <TableRow key={r.id}>
                      <TableCell>{names[n]}</TableCell>
                      <TableCell>{r.status.toLowerCase()}</TableCell>
                      <TableCell>{r.created}</TableCell>
                      <TableCell>{r.updated}</TableCell>
                      <TableCell>{r.deleted}</TableCell>
                      <TableCell>{r.deletedShare === null ? '—' : percent(r.deletedShare)}</TableCell>
                      <TableCell>{r.standsOut ?? 'No'}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableWrap>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The chart small, on a source's card: a picture of the runs (named by its summary; the bars take no focus,
 * the Runs page has them one by one and as a table), the summary and the runs that stand out in words.
 * Only drawn when the source has an import run in the window.
 */
export function SmallRunChart({ trend, displayName }: { trend: RunTrend; displayName: string }) {
  const styles = useStyles();
  const summaryId = useId();
  const names = labels(trend.runs);
  const marked = standingOut(trend.runs, names);
  return (
    <div className={styles.trend}>
      <div role="img" aria-label={`${CHART_TITLE}, ${displayName}`} aria-describedby={summaryId}>
        <div inert className={styles.smallChart}>
          <VerticalStackedBarChart
            data={bars(trend.runs, names)}
            height={130}
            barWidth="auto"
            maxBarWidth={16}
            hideLegend
            hideTooltip
            hideLabels
            hideTickOverlap
          />
        </div>
      </div>
      <Text size={200} id={summaryId}>
        <Summary trend={trend} marked={marked.length} />
      </Text>
      {marked.length > 0 && (
        <ul aria-label={`Runs of ${displayName} that stand out`} className={styles.standsOut}>
          {marked.map(({ run, label }) => (
            <li key={run.id}>
              <Text size={200}>
                <strong>{label}</strong>: {run.standsOut}
              </Text>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
