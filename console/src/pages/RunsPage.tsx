import {
  Badge,
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Title2,
} from '@fluentui/react-components';
import type { ImportRun, Send } from '../api';
import { Show, useLoad, when } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { SourcePicker } from './SourcePicker';
import { RouteLink } from '../RouteLink';

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
    async () => (source ? (await send('runs', { source, first: 50 })).importRuns : null),
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
            <div className={styles.tableWrap}>
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
                  {(items ?? []).map((r) => (
                    <TableRow key={r.id}>
                      <TableCell>{when(r.startedAt)}</TableCell>
                      <TableCell>{r.operation.toLowerCase()}</TableCell>
                      <TableCell>
                        <Badge
                          appearance="tint"
                          color={
                            r.status === 'COMPLETED'
                              ? 'success'
                              : r.status === 'RUNNING' || r.status === 'QUEUED'
                                ? 'informative'
                                : 'danger'
                          }
                        >
                          {r.status}
                        </Badge>
                      </TableCell>
                      <TableCell>{r.submitted}</TableCell>
                      <TableCell>{counts(r)}</TableCell>
                      <TableCell>{r.failure ? `${r.failure.code}: ${r.failure.message}` : '—'}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </div>
          )}
        </Show>
      )}
    </>
  );
}
