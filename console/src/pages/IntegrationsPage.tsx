import { useState } from 'react';
import {
  Badge,
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
  MessageBar,
  MessageBarBody,
} from '@fluentui/react-components';
import type { ScimIntegration, Send } from '../api';
import { ErrorBar, Show, useAction, useLoad } from '../data';
import { useStyles } from '../styles';

export function IntegrationsPage({ send }: { send: Send }) {
  const styles = useStyles();
  const [list, reload] = useLoad(async () => (await send('integrations')).scimIntegrations, [send]);
  const [name, setName] = useState('');
  const [clientId, setClientId] = useState('');
  const { act, error, notice, setNotice } = useAction(reload);
  const toggle = (i: ScimIntegration) =>
    act(
      () => send(i.enabled ? 'disableIntegration' : 'enableIntegration', { input: { id: i.id } }),
      `${i.displayName} ${i.enabled ? 'disabled' : 'enabled'}`,
    );
  return (
    <>
      <Title2 as="h1">SCIM integrations</Title2>
      <form
        className={styles.row}
        aria-label="Create a SCIM integration"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => send('createIntegration', { input: { displayName: name, clientId } }), `${name} created`).then(
            () => {
              setName('');
              setClientId('');
            },
          );
        }}
      >
        <Field label="Display name" required>
          <Input value={name} onChange={(_e, d) => setName(d.value)} />
        </Field>
        <Field label="Client (application) id" required>
          <Input
            value={clientId}
            onChange={(_e, d) => setClientId(d.value)}
            placeholder="00000000-0000-0000-0000-000000000000"
          />
        </Field>
        <Button type="submit" appearance="primary" disabled={!name || !clientId}>
          Create integration
        </Button>
      </form>
      {error && <ErrorBar error={error} />}
      {notice && !error && (
        <MessageBar intent="success" role="status">
          <MessageBarBody>{notice}</MessageBarBody>
        </MessageBar>
      )}
      <Show loaded={list} label="integrations" empty="No SCIM integration yet." isEmpty={(v) => v.length === 0}>
        {(items) => (
          <div className={styles.tableWrap}>
            <Table aria-label="SCIM integrations">
              <TableHeader>
                <TableRow>
                  <TableHeaderCell>Name</TableHeaderCell>
                  <TableHeaderCell>Client id</TableHeaderCell>
                  <TableHeaderCell>Status</TableHeaderCell>
                  <TableHeaderCell>Actions</TableHeaderCell>
                </TableRow>
              </TableHeader>
              <TableBody>
                {items.map((i) => (
                  <TableRow key={i.id}>
                    <TableCell>{i.displayName}</TableCell>
                    <TableCell className={styles.mono}>{i.clientId}</TableCell>
                    <TableCell>
                      <Badge appearance="tint" color={i.enabled ? 'success' : 'danger'}>
                        {i.enabled ? 'Enabled' : 'Disabled'}
                      </Badge>
                    </TableCell>
                    <TableCell>
                      <div className={styles.row}>
                        <Button
                          size="small"
                          onClick={() => void toggle(i)}
                          aria-label={`${i.enabled ? 'Disable' : 'Enable'} ${i.displayName}`}
                        >
                          {i.enabled ? 'Disable' : 'Enable'}
                        </Button>
                        <Button
                          size="small"
                          aria-label={`Copy SCIM endpoint of ${i.displayName}`}
                          onClick={() =>
                            void navigator.clipboard
                              ?.writeText(i.scimEndpoint)
                              .then(() => setNotice(`SCIM endpoint copied: ${i.scimEndpoint}`))
                              .catch(() => setNotice(`SCIM endpoint: ${i.scimEndpoint}`))
                          }
                        >
                          Copy SCIM endpoint
                        </Button>
                      </div>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        )}
      </Show>
    </>
  );
}
