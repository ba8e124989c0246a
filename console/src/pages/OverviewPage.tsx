import { Card, CardHeader, Link, Text, Title2, Title3, Badge } from '@fluentui/react-components';
import type { ImportRun, Send } from '../api';
import { Show, useLoad, when } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { RouteLink } from '../RouteLink';

export function OverviewPage({ send }: { send: Send }) {
  const styles = useStyles();
  const [sources] = useLoad(async () => (await send('sources')).sources, [send]);
  const [runs] = useLoad(async () => {
    const custom = (await send('sources')).sources.filter((s) => s.kind === 'CUSTOM');
    const all: ImportRun[] = [];
    for (const s of custom) all.push(...(await send('runs', { source: s.name, first: 5 })).importRuns);
    return all.sort((a, b) => b.startedAt.localeCompare(a.startedAt)).slice(0, 10);
  }, [send]);
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
                {when(r.startedAt)} · {r.source} · {r.operation.toLowerCase()} ·{' '}
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
                {r.failure ? ` · ${r.failure.code}` : ''}
              </li>
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}
