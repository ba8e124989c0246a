import { lazy, Suspense } from 'react';
import { Card, CardHeader, Link, Spinner, Text, Title2, Title3 } from '@fluentui/react-components';
import type { ImportRun, Send, SourceSummary } from '../api';
import { Show, useLoad, when, type Loaded } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { RouteLink } from '../RouteLink';
import { RunStatusBadge } from './RunStatusBadge';
import { runTrend, TREND_DAYS } from '../runTrend';

// The chart library loads only when a custom source has an import run to draw, not with the console.
const SmallRunChart = lazy(() => import('./RunChart').then((m) => ({ default: m.SmallRunChart })));

/** A custom source's import runs of the last 90 days as a small chart, once its runs are loaded. */
function SourceTrend({ source, runs }: { source: SourceSummary; runs: Loaded<Map<string, ImportRun[]>> }) {
  if (runs.state !== 'done') return null;
  const trend = runTrend(runs.value.get(source.name) ?? [], new Date());
  if (trend.runs.length === 0) return <Text size={200}>No import run in the last {TREND_DAYS} days.</Text>;
  return (
    <Suspense fallback={<Spinner size="tiny" label="Loading the chart…" />}>
      <SmallRunChart trend={trend} displayName={source.displayName} />
    </Suspense>
  );
}

export function OverviewPage({ send }: { send: Send }) {
  const styles = useStyles();
  const [sources] = useLoad(async () => (await send('sources')).sources, [send]);
  // Each custom source's runs (kept 90 days, at most 100 listed): its card's chart, and the recent runs below.
  const [runsBySource] = useLoad(async () => {
    const custom = (await send('sources')).sources.filter((s) => s.kind === 'CUSTOM');
    const lists = await Promise.all(
      custom.map(async (s) => [s.name, (await send('runs', { source: s.name, first: 100 })).importRuns] as const),
    );
    return new Map<string, ImportRun[]>(lists);
  }, [send]);
  const runs: Loaded<ImportRun[]> =
    runsBySource.state === 'done'
      ? {
          state: 'done',
          value: [...runsBySource.value.values()]
            .flat()
            .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
            .slice(0, 10),
        }
      : runsBySource;
  return (
    <>
      <Title2 as="h1">Overview</Title2>
      <Title3 as="h2">Identities per source</Title3>
      <Show loaded={sources} label="sources" empty="No source yet." isEmpty={(v) => v.length === 0}>
        {(items) => (
          <div className={styles.cards}>
            {items.map((s) => (
              <Card key={s.name}>
                <CardHeader
                  header={
                    <Link
                      href="#"
                      onClick={(e) => (e.preventDefault(), navigate({ page: 'identities', source: s.name }))}
                    >
                      {s.displayName}
                    </Link>
                  }
                  description={
                    <Text size={200}>
                      {s.kind === 'SCIM' ? 'SCIM integration' : s.kind === 'CUSTOM' ? 'Custom source' : 'Manual'}
                    </Text>
                  }
                />
                <dl className={styles.dl}>
                  <dt>Total</dt>
                  <dd>{s.counts.total}</dd>
                  <dt>Linked</dt>
                  <dd>{s.counts.linked}</dd>
                  <dt>Pending</dt>
                  <dd>{s.counts.pending}</dd>
                  <dt>Conflict</dt>
                  <dd>{s.counts.conflict}</dd>
                  <dt>Not asserted</dt>
                  <dd>{s.counts.notAsserted}</dd>
                </dl>
                {s.kind === 'CUSTOM' && <SourceTrend source={s} runs={runsBySource} />}
                {s.kind === 'CUSTOM' && (
                  <RouteLink to={{ page: 'runs', source: s.name }} label={`Runs of ${s.displayName}, with their chart`}>
                    Runs
                  </RouteLink>
                )}
                {s.kind !== 'MANUAL' && (
                  <RouteLink to={{ page: 'activity', source: s.name }} label={`Activity of ${s.displayName}`}>
                    Activity
                  </RouteLink>
                )}
              </Card>
            ))}
          </div>
        )}
      </Show>
      <Title3 as="h2">Recent runs</Title3>
      <Show loaded={runs} label="runs" empty="No import or association run yet." isEmpty={(v) => v.length === 0}>
        {(items) => (
          <ul>
            {items.map((r) => (
              <li key={r.id}>
                {when(r.startedAt)} · {r.source} · {r.operation.toLowerCase()} · <RunStatusBadge status={r.status} />
                {r.failure ? ` · ${r.failure.code}` : ''}
              </li>
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}
