import { Field, Select } from '@fluentui/react-components';
import type { Send, SourceSummary } from '../api';
import { useLoad } from '../data';

/** Display names of sources (a SCIM integration's name instead of its id). */
export function useSourceNames(send: Send): (source: string) => string {
  const [sources] = useLoad(async () => (await send('sources')).sources, [send]);
  return (source) =>
    (sources.state === 'done' ? sources.value.find((s) => s.name === source)?.displayName : undefined) ?? source;
}

export function SourcePicker({
  send,
  value,
  onChange,
  kinds,
  emptyLabel = 'Choose a source…',
}: {
  send: Send;
  value: string | undefined;
  onChange: (name: string) => void;
  kinds?: Array<SourceSummary['kind']>;
  /** The choice of no source: asking to choose one, or a page's view of every source. */
  emptyLabel?: string;
}) {
  const [sources] = useLoad(async () => (await send('sources')).sources, [send]);
  const items = sources.state === 'done' ? sources.value.filter((s) => !kinds || kinds.includes(s.kind)) : [];
  return (
    <Field label="Source">
      <Select value={value ?? ''} onChange={(_e, d) => onChange(d.value)}>
        <option value="">{emptyLabel}</option>
        {items.map((s) => (
          <option key={s.name} value={s.name}>
            {s.displayName}
          </option>
        ))}
      </Select>
    </Field>
  );
}
