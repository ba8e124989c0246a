/**
 * What happened to a source, newest first: the changes of its identities (the attributes they changed, by
 * name), a SCIM integration's refused requests, a custom source's run outcomes. Filters: outcome, externalId, since; 25 entries a page; an entry naming a User links to it.
 */
import { useState } from 'react';
import {
  Badge,
  Body1,
  Button,
  Field,
  Input,
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Title2,
  makeStyles,
  mergeClasses,
  tokens,
} from '@fluentui/react-components';
import type { ActivityEntry, ActivityOutcome, Send } from '../api';
import { Show, useLoad, when } from '../data';
import { navigate } from '../route';
import { RouteLink } from '../RouteLink';
import { useStyles } from '../styles';
import { SourcePicker } from './SourcePicker';
import { AnyOfField } from './AnyOfField';

const OUTCOME_LABEL: Record<ActivityOutcome, string> = {
  SUCCEEDED: 'Succeeded',
  REFUSED: 'Refused',
  FAILED: 'Failed',
};
const OUTCOME_COLOR = { SUCCEEDED: 'success', REFUSED: 'warning', FAILED: 'danger' } as const;
export const ACTIVITY_PAGE_SIZE = 25;

/** Column widths of the table (its layout is fixed); on a narrow screen it scrolls inside its frame. */
const useColumns = makeStyles({
  table: { minWidth: '900px' },
  time: { width: '10%' },
  outcome: { width: '8%' },
  operation: { width: '14%' },
  status: { width: '10%' },
  externalId: { width: '10%' },
  identity: { width: '13%' },
  detail: { width: '22%' },
  correlation: { width: '13%' },
  // Entries of several lines keep a margin to the row lines.
  cell: { paddingTop: '6px', paddingBottom: '6px' },
  wrap: { overflowWrap: 'anywhere' },
  // An operation breaks at its space only (`PATCH` above `/Users/{id}`).
  code: { fontFamily: tokens.fontFamilyMonospace },
});

/** The detail column: the service's detail of a refusal or failure, else the attributes a change named. */
function detailOf(e: ActivityEntry): string {
  if (e.detail) return e.detail;
  return e.changedAttributes?.length ? `Changed ${e.changedAttributes.join(', ')}` : '—';
}

/** The status column: HTTP status and scimType of a SCIM refusal, else the service's code. */
function statusOf(e: ActivityEntry): string {
  if (e.httpStatus !== null) return [e.httpStatus, e.scimType].filter(Boolean).join(' ');
  return e.code ?? '—';
}

/** `since` as the API takes it: the local date and time the administrator entered, as an ISO time. */
function sinceOf(local: string): string | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function ActivityPage({ send, source }: { send: Send; source: string | undefined }) {
  const styles = useStyles();
  const [outcome, setOutcome] = useState<ActivityOutcome | ''>('');
  const [externalIdText, setExternalIdText] = useState('');
  const [sinceText, setSinceText] = useState('');
  const [applied, setApplied] = useState<{ externalId?: string; since?: string }>({});
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const [page] = useLoad(async () => {
    if (!source) return null;
    const filter = { ...(outcome ? { outcome } : {}), ...applied };
    return (await send('activity', { source, filter, first: ACTIVITY_PAGE_SIZE, after })).activity;
  }, [send, source, outcome, applied, after]);
  return (
    <>
      <Title2 as="h1">Activity</Title2>
      <Body1>
        What happened to a source, newest first: the changes of its identities (which attributes, by name), the requests
        of a SCIM integration that the service refused, and the outcomes of a custom source&apos;s imports and
        associations.
      </Body1>
      <form
        className={styles.row}
        role="search"
        aria-label="Activity filters"
        onSubmit={(e) => {
          e.preventDefault();
          const externalId = externalIdText.trim();
          const since = sinceOf(sinceText);
          setCursors([null]);
          setApplied({ ...(externalId ? { externalId } : {}), ...(since ? { since } : {}) });
        }}
      >
        <SourcePicker
          send={send}
          value={source}
          kinds={['SCIM', 'CUSTOM']}
          onChange={(s) => (setCursors([null]), navigate({ page: 'activity', source: s }))}
        />
        <AnyOfField
          label="Outcome"
          labels={OUTCOME_LABEL}
          value={outcome}
          onChange={(v) => (setCursors([null]), setOutcome(v))}
        />
        <Field label="externalId">
          <Input value={externalIdText} onChange={(_e, d) => setExternalIdText(d.value)} />
        </Field>
        <Field label="Since">
          <Input type="datetime-local" value={sinceText} onChange={(_e, d) => setSinceText(d.value)} />
        </Field>
        <Button type="submit">Filter</Button>
      </form>
      {!source ? (
        <p>Choose a SCIM integration or a custom source to see its activity.</p>
      ) : (
        <Show loaded={page} label="activity" empty="No activity matches." isEmpty={(v) => !v || v.nodes.length === 0}>
          {(v) =>
            v && (
              <>
                <ActivityTable source={source} items={v.nodes} />
                <div className={styles.row}>
                  <Button disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                    Newer entries
                  </Button>
                  <Button disabled={!v.hasNextPage} onClick={() => setCursors((c) => [...c, v.endCursor])}>
                    Older entries
                  </Button>
                </div>
              </>
            )
          }
        </Show>
      )}
    </>
  );
}

export function ActivityTable({ source, items }: { source: string; items: ActivityEntry[] }) {
  const styles = useStyles();
  const columns = useColumns();
  return (
    // Focusable, so a keyboard can scroll the table where it is wider than the screen.
    <div className={styles.tableWrap} role="region" aria-label="Activity entries" tabIndex={0}>
      <Table aria-label="Activity" className={columns.table}>
        <TableHeader>
          <TableRow>
            <TableHeaderCell className={columns.time}>Time</TableHeaderCell>
            <TableHeaderCell className={columns.outcome}>Outcome</TableHeaderCell>
            <TableHeaderCell className={columns.operation}>Operation</TableHeaderCell>
            <TableHeaderCell className={columns.status}>Status</TableHeaderCell>
            <TableHeaderCell className={columns.externalId}>externalId</TableHeaderCell>
            <TableHeaderCell className={columns.identity}>Identity</TableHeaderCell>
            <TableHeaderCell className={columns.detail}>Detail</TableHeaderCell>
            <TableHeaderCell className={columns.correlation}>Correlation id</TableHeaderCell>
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map((e, i) => (
            <TableRow key={`${e.at}-${e.correlationId ?? ''}-${i}`}>
              <TableCell className={columns.cell}>{when(e.at)}</TableCell>
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
                  <RouteLink to={{ page: 'identity', source, id: e.identityId }} label={`Identity ${e.identityId}`}>
                    <span className={styles.mono}>{e.identityId}</span>
                  </RouteLink>
                ) : (
                  '—'
                )}
              </TableCell>
              <TableCell className={mergeClasses(columns.cell, columns.wrap)}>{detailOf(e)}</TableCell>
              <TableCell className={mergeClasses(columns.cell, styles.mono)}>{e.correlationId ?? '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
