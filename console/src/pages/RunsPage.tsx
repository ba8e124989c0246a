import { lazy, Suspense } from 'react';
import {
  Spinner,
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Title2,
  Title3,
} from '@fluentui/react-components';
import type { ImportRun, Send } from '../api';
import { Show, useLoad, when } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { TableWrap } from '../TableWrap';
import { SourcePicker } from './SourcePicker';
import { RouteLink } from '../RouteLink';
import { RunStatusBadge } from './RunStatusBadge';
import { runTrend } from '../runTrend';

// The chart library is a large part of the console's code: it loads with the first Runs page, not with the console.
const RunChart = lazy(() => import('./RunChart').then((m) => ({ default: m.RunChart })));

function counts(r: ImportRun): string {
  if (r.importCounts) {
    const c = r.importCounts;
    return `created ${c.created}, updated ${c.updated}, deleted ${c.deleted}, unchanged ${c.unchanged}`;
  }
  if (r.associationCounts) {
    const c = r.associationCounts;
    return `associated ${c.associated}, unchanged ${c.unchanged}, unknown externalIds ${c.unknownExternalIds}, unknown UPNs ${c.unknownUserPrincipalNames}, conflicting ${c.conflictingUserPrincipalNames}, not done ${c.notDone}`;
  }
  return '—';
}

export function RunsPage({ send, source }: { send: Send; source: string | undefined }) {
  const styles = useStyles();
  const [runs] = useLoad(
    // Runs are kept 90 days and at most 100 are listed: all of them feed the chart, the newest 50 the table.
    async () => (source ? (await send('runs', { source, first: 100 })).importRuns : null),
    [send, source],
  );
  return (
    <>
      <Title2 as="h1">Runs</Title2>
      <div className={styles.row}>
        <SourcePicker
          send={send}
          value={source}
          kinds={['CUSTOM']}
          onChange={(s) => navigate({ page: 'runs', source: s })}
        />
      </div>
      {source && <RouteLink to={{ page: 'activity', source }}>Activity of this source</RouteLink>}
      {!source ? (
        <p>Choose a custom source to see its import and association runs.</p>
      ) : (
        <Show loaded={runs} label="runs" empty="This source has no run yet." isEmpty={(v) => !v || v.length === 0}>
          {(items) => (
            <>
              <Suspense fallback={<Spinner size="small" label="Loading the chart…" />}>
                <RunChart trend={runTrend(items ?? [], new Date())} />
              </Suspense>
              <Title3 as="h2">Recent runs</Title3>
              <TableWrap label="Recent runs">
                <Table aria-label="Runs">
                  <TableHeader>
                    <TableRow>
                      <TableHeaderCell>Started</TableHeaderCell>
                      <TableHeaderCell>Operation</TableHeaderCell>
                      <TableHeaderCell>Status</TableHeaderCell>
                      <TableHeaderCell>Submitted</TableHeaderCell>
                      <TableHeaderCell>Counts</TableHeaderCell>
                      <TableHeaderCell>Failure</TableHeaderCell>
                    </TableRow>
                  </TableHeader>
                  <TableBody>
                    {(items ?? []).slice(0, 50).map((r) => (
                      <TableRow key={r.id}>
                        <TableCell>{when(r.startedAt)}</TableCell>
                        <TableCell>{r.operation.toLowerCase()}</TableCell>
                        <TableCell>
                          <RunStatusBadge status={r.status} />
                        </TableCell>
                        <TableCell>{r.submitted}</TableCell>
                        <TableCell>{counts(r)}</TableCell>
                        <TableCell>{r.failure ? `${r.failure.code}: ${r.failure.message}` : '—'}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableWrap>
            </>
          )}
        </Show>
      )}
    </>
  );
}
