import { useState } from 'react';
import {
  Badge,
  Button,
  Field,
  Input,
  Link,
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Title2,
} from '@fluentui/react-components';
import type { BusinessIdentityFilter, Identity, LinkStatus, Send } from '../api';
import { Show, useLoad } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { SourcePicker } from './SourcePicker';
import { AnyOfField } from './AnyOfField';
import { RouteLink } from '../RouteLink';

export const STATUS_LABEL: Record<LinkStatus, string> = {
  LINKED: 'Linked',
  PENDING: 'Pending',
  CONFLICT: 'Conflict',
  NOT_ASSERTED: 'Not asserted',
};
const STATUS_COLOR = {
  LINKED: 'success',
  PENDING: 'warning',
  CONFLICT: 'danger',
  NOT_ASSERTED: 'informative',
} as const;

export function StatusBadge({ status }: { status: LinkStatus }) {
  return (
    <Badge appearance="tint" color={STATUS_COLOR[status]}>
      {STATUS_LABEL[status]}
    </Badge>
  );
}

export function IdentitiesPage({ send, source }: { send: Send; source: string | undefined }) {
  const styles = useStyles();
  const [status, setStatus] = useState<LinkStatus | ''>('');
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const [page] = useLoad(async () => {
    if (!source) return null;
    const filter: BusinessIdentityFilter = {};
    if (status) filter.linkStatus = status;
    if (search) filter.search = search;
    return (await send('identities', { source, filter, first: 25, after })).businessIdentities;
  }, [send, source, status, search, after]);
  return (
    <>
      <Title2 as="h1">Identities</Title2>
      <form
        className={styles.row}
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([null]);
          setSearch(searchText.trim());
        }}
      >
        <SourcePicker
          send={send}
          value={source}
          onChange={(s) => (setCursors([null]), navigate({ page: 'identities', source: s }))}
        />
        <AnyOfField
          label="Link status"
          labels={STATUS_LABEL}
          value={status}
          onChange={(v) => (setCursors([null]), setStatus(v))}
        />
        <Field label="externalId or UPN">
          <Input value={searchText} onChange={(_e, d) => setSearchText(d.value)} />
        </Field>
        <Button type="submit">Search</Button>
      </form>
      {source && source.toLowerCase() !== 'manual' && (
        <RouteLink to={{ page: 'activity', source }}>Activity of this source: refused requests and runs</RouteLink>
      )}
      {!source ? (
        <p>Choose a source to see its identities.</p>
      ) : (
        <Show loaded={page} label="identities" empty="No identity matches." isEmpty={(v) => !v || v.nodes.length === 0}>
          {(v) =>
            v && (
              <>
                <IdentityTable items={v.nodes} />
                <div className={styles.row}>
                  <Button disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                    Previous page
                  </Button>
                  <Button disabled={!v.hasNextPage} onClick={() => setCursors((c) => [...c, v.endCursor])}>
                    Next page
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

export function IdentityTable({ items, actions }: { items: Identity[]; actions?: (i: Identity) => React.ReactNode }) {
  const styles = useStyles();
  return (
    <div className={styles.tableWrap}>
      <Table aria-label="Identities">
        <TableHeader>
          <TableRow>
            <TableHeaderCell>externalId</TableHeaderCell>
            <TableHeaderCell>Name</TableHeaderCell>
            <TableHeaderCell>Active</TableHeaderCell>
            <TableHeaderCell>Link</TableHeaderCell>
            <TableHeaderCell>Directory user</TableHeaderCell>
            {actions && <TableHeaderCell>Actions</TableHeaderCell>}
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map((i) => (
            <TableRow key={i.id}>
              <TableCell>
                <Link
                  href="#"
                  onClick={(e) => (e.preventDefault(), navigate({ page: 'identity', source: i.source, id: i.id }))}
                >
                  {i.externalId}
                </Link>
              </TableCell>
              <TableCell>
                {i.firstName} {i.lastName}
              </TableCell>
              <TableCell>{i.active ? 'Yes' : 'No'}</TableCell>
              <TableCell>
                <StatusBadge status={i.directoryLinkStatus} />
              </TableCell>
              <TableCell className={styles.mono}>
                {i.linkedUserPrincipalName ?? i.directoryUserPrincipalName ?? '—'}
              </TableCell>
              {actions && <TableCell>{actions(i)}</TableCell>}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
