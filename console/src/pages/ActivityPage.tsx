/**
 * What happened, newest first, as Entra's provisioning logs show it: of one source or of all (the source as a
 * column). A custom source's import or association run is one row with its counts; "View changes" drills into
 * the changes it made. Filters: source, outcome, action, externalId, from, until; 25 entries a page. A row's
 * "Details" opens the detail panel (operation, status, scimType, attributes by name, correlation id, who, and
 * for a refusal what the connector's owner should change); never a value. The current selection downloads as
 * CSV or JSON lines (GET /activity/export, streamed by the service).
 */
import { useState } from 'react';
import {
  Badge,
  Body1,
  Button,
  Field,
  Input,
  MessageBar,
  MessageBarBody,
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Title2,
  Title3,
  makeStyles,
  mergeClasses,
  tokens,
} from '@fluentui/react-components';
import type { ActivityAction, ActivityEntry, ActivityFilter, ActivityOutcome, Download, Send } from '../api';
import { Show, useLoad, when } from '../data';
import { navigate } from '../route';
import { RouteLink } from '../RouteLink';
import { useStyles } from '../styles';
import { SourcePicker, useSourceNames } from './SourcePicker';
import { AnyOfField } from './AnyOfField';

const OUTCOME_LABEL: Record<ActivityOutcome, string> = {
  SUCCEEDED: 'Succeeded',
  REFUSED: 'Refused',
  FAILED: 'Failed',
};
const ACTION_LABEL: Record<ActivityAction, string> = {
  CREATE: 'Create',
  UPDATE: 'Update',
  DELETE: 'Delete',
  LINK: 'Link',
  UNLINK: 'Unlink',
  OTHER: 'Other',
};
const OUTCOME_COLOR = { SUCCEEDED: 'success', REFUSED: 'warning', FAILED: 'danger' } as const;
const ACTOR_LABEL: Record<string, string> = {
  INTEGRATION: 'SCIM integration',
  IMPORT_RUN: 'Run',
  ADMINISTRATOR: 'Administrator',
  BACKGROUND: 'Background work',
};
export const ACTIVITY_PAGE_SIZE = 25;

/** Column widths of the table (its layout is fixed); on a narrow screen it scrolls inside its frame. */
const useColumns = makeStyles({
  table: { minWidth: '980px' },
  time: { width: '10%' },
  source: { width: '9%' },
  outcome: { width: '8%' },
  operation: { width: '13%' },
  status: { width: '9%' },
  externalId: { width: '9%' },
  identity: { width: '12%' },
  detail: { width: '20%' },
  more: { width: '10%' },
  // Entries of several lines keep a margin to the row lines.
  cell: { paddingTop: '6px', paddingBottom: '6px' },
  wrap: { overflowWrap: 'anywhere' },
  // An operation breaks at its space only (`PATCH` above `/Users/{id}`).
  code: { fontFamily: tokens.fontFamilyMonospace },
  panel: {
    border: `1px solid ${tokens.colorNeutralStroke1}`,
    borderRadius: tokens.borderRadiusMedium,
    padding: '12px 16px',
  },
  facts: { display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: '16px', rowGap: '4px', margin: 0 },
  term: { fontWeight: tokens.fontWeightSemibold },
  fact: { margin: 0, overflowWrap: 'anywhere' },
  pair: { display: 'contents' },
});

/** A run's counts as the summary row shows them: `created 3, updated 1, …`. */
function countsOf(e: ActivityEntry): string | null {
  return e.counts?.length ? e.counts.map((c) => `${c.name} ${c.count}`).join(', ') : null;
}

/** The detail column: a run's counts, the service's detail of a refusal or failure, else the attributes a change named. */
function detailOf(e: ActivityEntry): string {
  if (e.outcome === 'SUCCEEDED' && countsOf(e)) return countsOf(e) ?? '';
  if (e.detail) return e.detail;
  return e.changedAttributes?.length ? `Changed ${e.changedAttributes.join(', ')}` : '—';
}

/** The status column: HTTP status and scimType of a SCIM refusal, else the service's code. */
function statusOf(e: ActivityEntry): string {
  if (e.httpStatus !== null) return [e.httpStatus, e.scimType].filter(Boolean).join(' ');
  return e.code ?? '—';
}

/** A time the administrator entered (local date and time) as the API takes it: an ISO time. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The export's query parameters of a selection (the same names as the GraphQL filter). */
export function exportPath(format: 'csv' | 'json', source: string | undefined, filter: ActivityFilter): string {
  const q = new URLSearchParams({ format });
  if (source) q.set('source', source);
  for (const [k, v] of Object.entries(filter)) if (typeof v === 'string' && v !== '') q.set(k, v);
  return `/activity/export?${q.toString()}`;
}

/** Saves a file the browser holds (a download link clicked once). */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface Applied {
  externalId?: string;
  from?: string;
  until?: string;
}

export function ActivityPage({
  send,
  download,
  source,
}: {
  send: Send;
  download: Download;
  source: string | undefined;
}) {
  const styles = useStyles();
  const columns = useColumns();
  const [outcome, setOutcome] = useState<ActivityOutcome | ''>('');
  const [action, setAction] = useState<ActivityAction | ''>('');
  const [externalIdText, setExternalIdText] = useState('');
  const [fromText, setFromText] = useState('');
  const [untilText, setUntilText] = useState('');
  const [applied, setApplied] = useState<Applied>({});
  const [run, setRun] = useState<ActivityEntry | null>(null);
  const [selected, setSelected] = useState<ActivityEntry | null>(null);
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [downloading, setDownloading] = useState<string | null>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const sourceName = useSourceNames(send);
  const after = cursors[cursors.length - 1] ?? null;
  const filter: ActivityFilter = {
    ...(outcome ? { outcome } : {}),
    ...(action ? { action } : {}),
    ...applied,
    ...(run?.runId ? { run: run.runId } : {}),
  };
  const filterKey = JSON.stringify(filter);
  const [page] = useLoad(async () => {
    const f = JSON.parse(filterKey) as ActivityFilter;
    return (
      await send('activity', { source: f.run ? null : (source ?? null), filter: f, first: ACTIVITY_PAGE_SIZE, after })
    ).activity;
  }, [send, source, filterKey, after]);
  const restart = () => (setCursors([null]), setSelected(null));
  const get = async (format: 'csv' | 'json') => {
    setDownloading(format);
    setDownloadError(null);
    try {
      const blob = await download(exportPath(format, run ? undefined : source, filter));
      save(blob, `activity.${format === 'csv' ? 'csv' : 'jsonl'}`);
    } catch (err) {
      setDownloadError(err instanceof Error ? err.message : 'The download failed');
    } finally {
      setDownloading(null);
    }
  };
  return (
    <>
      <Title2 as="h1">Activity</Title2>
      <Body1>
        What happened, newest first: each import or association run as one entry with its counts (view its changes), the
        changes of identities (which attributes, by name), and the requests of a SCIM integration that the service
        refused, with what to change.
      </Body1>
      <form
        className={styles.row}
        role="search"
        aria-label="Activity filters"
        onSubmit={(e) => {
          e.preventDefault();
          const externalId = externalIdText.trim();
          const from = isoOf(fromText);
          const until = isoOf(untilText);
          restart();
          setApplied({ ...(externalId ? { externalId } : {}), ...(from ? { from } : {}), ...(until ? { until } : {}) });
        }}
      >
        <SourcePicker
          send={send}
          value={source}
          emptyLabel="All sources"
          onChange={(s) => (restart(), setRun(null), navigate({ page: 'activity', ...(s ? { source: s } : {}) }))}
        />
        <AnyOfField
          label="Outcome"
          labels={OUTCOME_LABEL}
          value={outcome}
          onChange={(v) => (restart(), setOutcome(v))}
        />
        <AnyOfField label="Action" labels={ACTION_LABEL} value={action} onChange={(v) => (restart(), setAction(v))} />
        <Field label="externalId">
          <Input value={externalIdText} onChange={(_e, d) => setExternalIdText(d.value)} />
        </Field>
        <Field label="From">
          <Input type="datetime-local" value={fromText} onChange={(_e, d) => setFromText(d.value)} />
        </Field>
        <Field label="Until">
          <Input type="datetime-local" value={untilText} onChange={(_e, d) => setUntilText(d.value)} />
        </Field>
        <Button type="submit">Filter</Button>
      </form>
      <div className={styles.row}>
        <Button disabled={downloading !== null} onClick={() => void get('csv')}>
          {downloading === 'csv' ? 'Downloading…' : 'Download CSV'}
        </Button>
        <Button disabled={downloading !== null} onClick={() => void get('json')}>
          {downloading === 'json' ? 'Downloading…' : 'Download JSON lines'}
        </Button>
      </div>
      {downloadError && (
        <MessageBar intent="error">
          <MessageBarBody>{downloadError}</MessageBarBody>
        </MessageBar>
      )}
      {run && (
        <MessageBar intent="info">
          <MessageBarBody>
            Changes of the {run.operation} run of {when(run.at)} ({run.source}): {countsOf(run) ?? 'no counts'}.{' '}
            <Button appearance="transparent" onClick={() => (restart(), setRun(null))}>
              Back to all activity
            </Button>
          </MessageBarBody>
        </MessageBar>
      )}
      <Show loaded={page} label="activity" empty="No activity matches." isEmpty={(v) => v.nodes.length === 0}>
        {(v) => (
          <>
            <ActivityTable
              source={source}
              sourceName={sourceName}
              items={v.nodes}
              onDetails={setSelected}
              onRun={(e) => (restart(), setRun(e))}
            />
            <div className={styles.row}>
              <Button disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Newer entries
              </Button>
              <Button disabled={!v.hasNextPage} onClick={() => setCursors((c) => [...c, v.endCursor])}>
                Older entries
              </Button>
            </div>
          </>
        )}
      </Show>
      {selected && (
        <section className={columns.panel} aria-labelledby="activity-entry-details">
          <Title3 as="h2" id="activity-entry-details">
            Entry details
          </Title3>
          <EntryDetails entry={selected} sourceName={sourceName} />
          <Button onClick={() => setSelected(null)}>Close details</Button>
        </section>
      )}
    </>
  );
}

function EntryDetails({ entry: e, sourceName: name }: { entry: ActivityEntry; sourceName: (s: string) => string }) {
  const columns = useColumns();
  const facts: Array<[string, string | null]> = [
    ['Time', when(e.at)],
    ['Source', name(e.source)],
    ['Operation', e.operation],
    ['Action', ACTION_LABEL[e.action]],
    ['Outcome', OUTCOME_LABEL[e.outcome]],
    ['HTTP status', e.httpStatus === null ? null : String(e.httpStatus)],
    ['scimType', e.scimType],
    ['Code', e.code],
    ['Detail', e.detail],
    ['Recommended action', e.recommendedAction],
    ['Attributes', e.changedAttributes?.length ? e.changedAttributes.join(', ') : null],
    ['Counts', countsOf(e)],
    ['Duration', e.durationMs === null ? null : `${(e.durationMs / 1000).toFixed(1)} s`],
    ['By', e.actor ? `${ACTOR_LABEL[e.actor.kind] ?? e.actor.kind}: ${e.actor.displayName ?? e.actor.id}` : null],
    ['externalId', e.externalId],
    ['Identity', e.identityId],
    ['Run', e.runId],
    ['Correlation id', e.correlationId],
  ];
  return (
    <dl className={columns.facts}>
      {facts
        .filter((f): f is [string, string] => f[1] !== null && f[1] !== '')
        .map(([term, value]) => (
          <div key={term} className={columns.pair}>
            <dt className={columns.term}>{term}</dt>
            <dd className={columns.fact}>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

export function ActivityTable({
  source,
  sourceName,
  items,
  onDetails,
  onRun,
}: {
  source: string | undefined;
  /** A source's display name (a SCIM integration's name instead of its id). */
  sourceName: (source: string) => string;
  items: ActivityEntry[];
  onDetails: (e: ActivityEntry) => void;
  onRun: (e: ActivityEntry) => void;
}) {
  const styles = useStyles();
  const columns = useColumns();
  const tenantWide = source === undefined;
  return (
    // Focusable, so a keyboard can scroll the table where it is wider than the screen.
    <div className={styles.tableWrap} role="region" aria-label="Activity entries" tabIndex={0}>
      <Table aria-label="Activity" className={columns.table}>
        <TableHeader>
          <TableRow>
            <TableHeaderCell className={columns.time}>Time</TableHeaderCell>
            {tenantWide && <TableHeaderCell className={columns.source}>Source</TableHeaderCell>}
            <TableHeaderCell className={columns.outcome}>Outcome</TableHeaderCell>
            <TableHeaderCell className={columns.operation}>Operation</TableHeaderCell>
            <TableHeaderCell className={columns.status}>Status</TableHeaderCell>
            <TableHeaderCell className={columns.externalId}>externalId</TableHeaderCell>
            <TableHeaderCell className={columns.identity}>Identity</TableHeaderCell>
            <TableHeaderCell className={columns.detail}>Detail</TableHeaderCell>
            <TableHeaderCell className={columns.more}>More</TableHeaderCell>
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map((e, i) => (
            <TableRow key={`${e.at}-${e.correlationId ?? ''}-${i}`}>
              <TableCell className={columns.cell}>{when(e.at)}</TableCell>
              {tenantWide && (
                <TableCell className={mergeClasses(columns.cell, columns.wrap)}>{sourceName(e.source)}</TableCell>
              )}
              <TableCell className={columns.cell}>
                <Badge appearance="tint" color={OUTCOME_COLOR[e.outcome]}>
                  {OUTCOME_LABEL[e.outcome]}
                </Badge>
              </TableCell>
              <TableCell className={mergeClasses(columns.cell, columns.code)}>{e.operation}</TableCell>
              <TableCell className={columns.cell}>{statusOf(e)}</TableCell>
              <TableCell className={mergeClasses(columns.cell, styles.mono)}>{e.externalId ?? '—'}</TableCell>
              <TableCell className={columns.cell}>
                {e.identityId ? (
                  <RouteLink
                    to={{ page: 'identity', source: source ?? e.source, id: e.identityId }}
                    label={`Identity ${e.identityId}`}
                  >
                    <span className={styles.mono}>{e.identityId}</span>
                  </RouteLink>
                ) : (
                  '—'
                )}
              </TableCell>
              <TableCell className={mergeClasses(columns.cell, columns.wrap)}>{detailOf(e)}</TableCell>
              <TableCell className={columns.cell}>
                <Button size="small" onClick={() => onDetails(e)} aria-label={`Details of the entry of ${when(e.at)}`}>
                  Details
                </Button>
                {e.counts && e.runId && (
                  <Button size="small" appearance="subtle" onClick={() => onRun(e)}>
                    View changes
                  </Button>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
