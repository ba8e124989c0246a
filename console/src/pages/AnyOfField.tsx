import { Field, Select } from '@fluentui/react-components';

/** A filter field choosing one value of `labels` (shown by its label) or "Any" (the empty string). */
export function AnyOfField<T extends string>({
  label,
  labels,
  value,
  onChange,
}: {
  label: string;
  labels: Record<T, string>;
  value: T | '';
  onChange: (value: T | '') => void;
}) {
  return (
    <Field label={label}>
      <Select value={value} onChange={(_e, d) => onChange(d.value as T | '')}>
        <option value="">Any</option>
        {(Object.keys(labels) as T[]).map((v) => (
          <option key={v} value={v}>
            {labels[v]}
          </option>
        ))}
      </Select>
    </Field>
  );
}
