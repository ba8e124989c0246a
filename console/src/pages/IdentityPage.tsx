import { useState } from 'react';
import {
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
  Title3,
} from '@fluentui/react-components';
import type { DocumentKind, Send } from '../api';
import { ErrorBar, Show, useAction, useLoad, when } from '../data';
import { navigate } from '../route';
import { useStyles } from '../styles';
import { StatusBadge } from './IdentitiesPage';
import { Confirm } from './Confirm';
import { useSourceNames } from './SourcePicker';
import { IdentityHistory } from './IdentityHistory';

const KIND: Record<DocumentKind, string> = {
  DK_CPR: 'Danish CPR number',
  PASSPORT: 'Passport',
  IDENTITY_CARD: 'Identity card',
};

export function IdentityPage({ send, source, id }: { send: Send; source: string; id: string }) {
  const styles = useStyles();
  const [loaded, reload] = useLoad(
    async () => (await send('identity', { source, id })).businessIdentity,
    [send, source, id],
  );
  const [upn, setUpn] = useState('');
  const nameOf = useSourceNames(send);
  const sourceName = nameOf(source);
  const { act, error } = useAction(() => {
    setUpn('');
    reload();
  });
  return (
    <Show loaded={loaded} label="the identity" empty="There is no such identity." isEmpty={(v) => v === null}>
      {(i) =>
        i && (
          <>
            <Link href="#" onClick={(e) => (e.preventDefault(), navigate({ page: 'identities', source: i.source }))}>
              ← Identities of {sourceName}
            </Link>
            <Title2 as="h1">
              {i.firstName} {i.lastName}
            </Title2>
            <dl className={styles.dl}>
              <dt>externalId</dt>
              <dd className={styles.mono}>{i.externalId}</dd>
              <dt>Source</dt>
              <dd>{sourceName}</dd>
              {i.userName && (
                <>
                  <dt>userName</dt>
                  <dd className={styles.mono}>{i.userName}</dd>
                </>
              )}
              <dt>Affiliation</dt>
              <dd>{i.affiliationType.toLowerCase()}</dd>
              <dt>Active</dt>
              <dd>{i.active ? 'Yes' : 'No'}</dd>
              <dt>Personal numbers</dt>
              <dd>
                {i.personalNumberTypes.map((k) => KIND[k] ?? k).join(', ') || 'None'} (kinds only; numbers are never
                shown)
              </dd>
              <dt>Identity documents</dt>
              <dd>{i.identityDocumentTypes.map((k) => KIND[k] ?? k).join(', ') || 'None'}</dd>
              <dt>Link status</dt>
              <dd>
                <StatusBadge status={i.directoryLinkStatus} />{' '}
                {i.directoryLinkSource ? `(${i.directoryLinkSource.toLowerCase()})` : ''}
              </dd>
              <dt>Asserted UPN</dt>
              <dd className={styles.mono}>{i.directoryUserPrincipalName ?? '—'}</dd>
              <dt>Linked user</dt>
              <dd className={styles.mono}>
                {i.linkedUserPrincipalName ?? '—'}
                {i.directoryLinkedUserId ? ` (${i.directoryLinkedUserId})` : ''}
              </dd>
              {i.conflictHeldBy && (
                <>
                  <dt>Held by</dt>
                  <dd>
                    <Link
                      href="#"
                      onClick={(e) => (
                        e.preventDefault(),
                        navigate({ page: 'identity', source: i.conflictHeldBy!.source, id: i.conflictHeldBy!.id })
                      )}
                    >
                      {i.conflictHeldBy.externalId} in {nameOf(i.conflictHeldBy.source)}
                    </Link>{' '}
                    holds this directory user
                  </dd>
                </>
              )}
              {(i.directoryLinkStatus === 'PENDING' || i.directoryLinkStatus === 'CONFLICT') && (
                <>
                  <dt>Checked next</dt>
                  <dd>{i.nextCheckAt ? when(i.nextCheckAt) : 'at the next background cycle'}</dd>
                </>
              )}
              <dt>Last modified</dt>
              <dd>{when(i.lastModified)}</dd>
            </dl>
            <Title3 as="h2">Manual link</Title3>
            {error && <ErrorBar error={error} />}
            <div className={styles.row}>
              <Field label="Directory user (UPN)">
                <Input value={upn} onChange={(_e, d) => setUpn(d.value)} />
              </Field>
              <Confirm
                trigger={
                  <Button appearance="primary" disabled={!upn.trim()}>
                    Link
                  </Button>
                }
                title="Link this identity?"
                text={`Link ${i.externalId} to ${upn.trim()}? A manual link stays until it is unlinked.`}
                confirmLabel="Link"
                onConfirm={() =>
                  void act(() => send('link', { input: { source: i.source, id: i.id, userPrincipalName: upn.trim() } }))
                }
              />
              <Confirm
                trigger={<Button disabled={i.directoryLinkStatus !== 'LINKED'}>Unlink</Button>}
                title="Unlink this identity?"
                text={`Unlink ${i.externalId} from its directory user?`}
                confirmLabel="Unlink"
                onConfirm={() => void act(() => send('unlink', { input: { source: i.source, id: i.id } }))}
              />
            </div>
            <IdentityHistory history={i.history} omitted={i.historyOmitted} />
            <Title3 as="h2">Link history</Title3>
            {i.linkHistory.length === 0 ? (
              <p>No link change recorded.</p>
            ) : (
              <div className={styles.tableWrap}>
                <Table aria-label="Link history">
                  <TableHeader>
                    <TableRow>
                      <TableHeaderCell>When</TableHeaderCell>
                      <TableHeaderCell>What</TableHeaderCell>
                      <TableHeaderCell>Status after</TableHeaderCell>
                      <TableHeaderCell>By</TableHeaderCell>
                    </TableRow>
                  </TableHeader>
                  <TableBody>
                    {i.linkHistory.map((h, n) => (
                      <TableRow key={n}>
                        <TableCell>{when(h.at)}</TableCell>
                        <TableCell>{h.action}</TableCell>
                        <TableCell>{h.status ?? '—'}</TableCell>
                        <TableCell className={styles.mono}>
                          {h.actorKind} {h.actorId}
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </div>
            )}
          </>
        )
      }
    </Show>
  );
}
