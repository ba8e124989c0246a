import { useState } from 'react';
import { Button, Field, Input, Select, Title2, Title3, MessageBar, MessageBarBody } from '@fluentui/react-components';
import type { AffiliationType, Identity, Send } from '../api';
import { ErrorBar, Show, useAction, useLoad } from '../data';
import { useStyles } from '../styles';
import { IdentityTable } from './IdentitiesPage';
import { Confirm } from './Confirm';

const AFFILIATIONS: AffiliationType[] = ['EMPLOYMENT', 'ENROLLMENT', 'ENGAGEMENT', 'OTHER'];

interface Form {
  externalId: string;
  firstName: string;
  lastName: string;
  affiliationType: AffiliationType;
  cpr: string;
}
const EMPTY: Form = { externalId: '', firstName: '', lastName: '', affiliationType: 'EMPLOYMENT', cpr: '' };

export function ManualPage({ send }: { send: Send }) {
  const styles = useStyles();
  const [list, reload] = useLoad(
    async () => (await send('identities', { source: 'Manual', first: 100 })).businessIdentities.nodes,
    [send],
  );
  const [form, setForm] = useState<Form>(EMPTY);
  const [editing, setEditing] = useState<Identity | null>(null);
  const { act, error, notice } = useAction(() => {
    setForm(EMPTY);
    setEditing(null);
    reload();
  });
  const set = (k: keyof Form) => (_e: unknown, d: { value: string }) => setForm((f) => ({ ...f, [k]: d.value }));
  const submit = () => {
    const common = { firstName: form.firstName, lastName: form.lastName, affiliationType: form.affiliationType };
    const numbers = form.cpr ? { personalNumbers: [{ type: 'DK_CPR' as const, value: form.cpr }] } : {};
    if (editing)
      return act(
        () => send('updateManual', { input: { id: editing.id, ...common, ...numbers } }),
        `${editing.externalId} saved`,
      );
    return act(
      () => send('createManual', { input: { externalId: form.externalId, ...common, ...numbers } }),
      `${form.externalId} created`,
    );
  };
  return (
    <>
      <Title2 as="h1">Manual identities</Title2>
      <Title3 as="h2">{editing ? `Edit ${editing.externalId}` : 'Create a manual identity'}</Title3>
      <form
        className={styles.row}
        aria-label={editing ? 'Edit a manual identity' : 'Create a manual identity'}
        onSubmit={(e) => (e.preventDefault(), void submit())}
      >
        <Field label="externalId" required>
          <Input
            value={editing ? editing.externalId : form.externalId}
            disabled={!!editing}
            onChange={set('externalId')}
          />
        </Field>
        <Field label="First name" required>
          <Input value={form.firstName} onChange={set('firstName')} />
        </Field>
        <Field label="Last name" required>
          <Input value={form.lastName} onChange={set('lastName')} />
        </Field>
        <Field label="Affiliation">
          <Select value={form.affiliationType} onChange={set('affiliationType')}>
            {AFFILIATIONS.map((a) => (
              <option key={a} value={a}>
                {a.toLowerCase()}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="CPR number (write-only)" hint={editing ? 'Leave empty to keep the stored numbers' : 'Optional'}>
          <Input type="password" autoComplete="off" value={form.cpr} onChange={set('cpr')} />
        </Field>
        <Button
          type="submit"
          appearance="primary"
          disabled={!form.firstName || !form.lastName || (!editing && !form.externalId)}
        >
          {editing ? 'Save' : 'Create'}
        </Button>
        {editing && <Button onClick={() => (setEditing(null), setForm(EMPTY))}>Cancel</Button>}
      </form>
      {error && <ErrorBar error={error} />}
      {notice && !error && (
        <MessageBar intent="success" role="status">
          <MessageBarBody>{notice}</MessageBarBody>
        </MessageBar>
      )}
      <Title3 as="h2">Manual identities</Title3>
      <Show loaded={list} label="manual identities" empty="No manual identity yet." isEmpty={(v) => v.length === 0}>
        {(items) => (
          <IdentityTable
            items={items}
            actions={(i) => (
              <div className={styles.row}>
                <Button
                  size="small"
                  aria-label={`Edit ${i.externalId}`}
                  onClick={() => {
                    setEditing(i);
                    setForm({
                      ...EMPTY,
                      firstName: i.firstName,
                      lastName: i.lastName,
                      affiliationType: i.affiliationType,
                    });
                  }}
                >
                  Edit
                </Button>
                <Confirm
                  trigger={
                    <Button size="small" disabled={!i.active} aria-label={`Deactivate ${i.externalId}`}>
                      Deactivate
                    </Button>
                  }
                  title="Deactivate this identity?"
                  text={`${i.externalId} becomes inactive; its personal numbers and document references are deleted after the retention period.`}
                  confirmLabel="Deactivate"
                  onConfirm={() =>
                    void act(() => send('deactivateManual', { input: { id: i.id } }), `${i.externalId} deactivated`)
                  }
                />
                <Confirm
                  trigger={
                    <Button size="small" aria-label={`Delete ${i.externalId}`}>
                      Delete
                    </Button>
                  }
                  title="Delete this identity?"
                  text={`${i.externalId} and everything stored about it are deleted. This cannot be undone.`}
                  confirmLabel="Delete"
                  onConfirm={() =>
                    void act(() => send('deleteManual', { input: { id: i.id } }), `${i.externalId} deleted`)
                  }
                />
              </div>
            )}
          />
        )}
      </Show>
    </>
  );
}
