/**
 * Validation of a whole import set before anything is written (spec §4.2 rule 2): every problem
 * is collected with its index and field, never its value; one problem rejects the set.
 */
import { createHash } from 'node:crypto';
import {
  IDENTITY_ATTRIBUTES,
  VALUE_FORMATS,
  canonicalAttributes,
  modelEnumValue,
  oneOfGraphqlNames,
} from '../identities/attributes';
import type { AttributeRow, IdentityAttributeRow, ItemField } from '../identities/attributes';
import type { IdentityAttributes } from '../identities/model';
import { badInput, type FieldProblem } from '../util/domainError';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ImportRow = Extract<IdentityAttributeRow, { importField: string }>;
type ListRow = Extract<ImportRow, { type: 'list' }>;
type ItemInput<R> = R extends { items: readonly (infer F)[] }
  ? { [I in F as I extends { name: infer N extends string } ? N : never]?: string | null }
  : never;
/** The value an import (or a change of a Manual identity) sends for a row: GraphQL enum names, lists of items. */
export type ImportValue<R> = R extends { type: 'list' } ? Array<ItemInput<R>> : string;

/** An identity of an import set: the rows of the attribute table that have an import field. */
export type ImportIdentityInput = Simplify<
  {
    [R in ImportRow as R extends { optional: true } | ListRow ? never : R['importField']]: ImportValue<R>;
  } & {
    [R in ImportRow as R extends { optional: true } | ListRow ? R['importField'] : never]?: ImportValue<R> | null;
  }
>;

export interface ValidImportIdentity {
  attributes: IdentityAttributes;
  /** Hash of the attributes, to find what changed since the last import. */
  hash: string;
}

export const MAX_REPORTED_PROBLEMS = 100;
export const RESERVED_SOURCE = 'manual';

/** Source names: not empty, not `Manual` in any case, no control characters, at most 128 characters. */
export function validateSourceName(source: unknown, field = 'input.source'): string {
  if (typeof source !== 'string' || source.trim() === '') throw badInput([{ field, problem: 'must not be empty' }]);
  if (source.trim().toLowerCase() === RESERVED_SOURCE)
    throw badInput([{ field, problem: 'Manual is reserved for identities that administrators create' }]);
  // eslint-disable-next-line no-control-regex
  if (source.length > 128 || /[\u0000-\u001f\u007f]/.test(source))
    throw badInput([{ field, problem: 'must be at most 128 printable characters' }]);
  return source;
}

export function contentHash(a: IdentityAttributes): string {
  return createHash('sha256').update(canonicalAttributes(a, 'contentHash')).digest('base64url').slice(0, 22);
}

const ROWS: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;

type Add = (field: string, problem: string) => void;

/** A string that an import requires: present and not empty (not blank where the row says so), within its limit. */
function requiredText(row: AttributeRow, value: unknown, add: Add): string | undefined {
  const empty = typeof value !== 'string' || (row.blankRefusedInImports === true ? value.trim() === '' : value === '');
  const field = row.importField ?? row.name;
  if (empty) add(field, 'must not be empty');
  else if (row.maxLength !== undefined && value.length > row.maxLength)
    add(field, `must be at most ${row.maxLength} characters`);
  else return value;
  return undefined;
}

/** A value of a string or enum field (of a row or of a list's item) sent by an import, in its stored form. */
function importedValue(field: AttributeRow | ItemField, value: unknown, at: string, add: Add): unknown {
  if (field.type === 'enum') {
    const model = modelEnumValue(field.values ?? [], value);
    if (model === undefined) add(at, oneOfGraphqlNames(field.values ?? []));
    return model;
  }
  if (typeof value === 'string' && field.maxLength !== undefined && value.length > field.maxLength) {
    add(at, `must be at most ${field.maxLength} characters`);
    return undefined;
  }
  if (field.format === undefined) return value;
  const format = VALUE_FORMATS[field.format];
  const r = format.normalize(typeof value === 'string' ? value : '');
  if (!r.ok) add(at, format.importProblem);
  return r.ok ? r.value : undefined;
}

/** The items of a list: every field of an item is required; a plain text field must not be blank. */
function importedList(row: AttributeRow, items: ReadonlyArray<Record<string, unknown>>, add: Add): unknown[] {
  const field = row.importField ?? row.name;
  if (row.maxItems !== undefined && items.length > row.maxItems) {
    add(field, `must have at most ${row.maxItems} items`);
    return [];
  }
  const seenTypes = new Set<unknown>();
  const out: unknown[] = [];
  items.forEach((item, i) => {
    const values: Record<string, unknown> = {};
    let complete = true;
    for (const f of row.items ?? []) {
      const at = `${field}[${i}].${f.name}`;
      const raw = item[f.name];
      let value: unknown;
      if (f.type === 'string' && f.format === undefined && (typeof raw !== 'string' || raw.trim() === '')) {
        add(at, 'must be present');
      } else if (row.oneItemPerType !== undefined && f.name === 'type' && seenTypes.has(raw)) {
        value = importedValue(f, raw, at, add);
        if (value !== undefined) add(at, row.oneItemPerType.importProblem);
      } else {
        value = importedValue(f, raw, at, add);
      }
      if (f.name === 'type') seenTypes.add(raw);
      if (value === undefined) complete = false;
      values[f.name] = value;
    }
    if (complete) out.push(values);
  });
  return out;
}

function validateOne(
  input: ImportIdentityInput,
  index: number,
  problems: FieldProblem[],
): IdentityAttributes | undefined {
  const start = problems.length;
  const at = `identities[${index}]`;
  const add: Add = (field, problem) => problems.push({ index, field: `${at}.${field}`, problem });
  const sent = input as Record<string, unknown>;
  const attributes: Record<string, unknown> = {};
  for (const row of ROWS) {
    if (row.importField === undefined) {
      if (row.default !== undefined) attributes[row.name] = row.default;
      continue;
    }
    const raw = sent[row.importField];
    let value: unknown;
    if (row.type === 'list') value = importedList(row, Array.isArray(raw) ? raw : [], add);
    else if (row.type === 'string' && !row.optional) value = requiredText(row, raw, add);
    else if (row.optional && (raw === null || raw === undefined)) continue;
    else value = importedValue(row, raw, row.importField, add);
    if (value !== undefined) attributes[row.name] = value;
  }
  return problems.length > start ? undefined : (attributes as IdentityAttributes);
}

/** What is validated: a whole set (importBusinessIdentities) or one part of a staged import (addImportPart). */
export type ImportListKind = 'set' | 'part';

/**
 * Validates a whole set, or one part of a staged import; throws BAD_USER_INPUT listing the problems (first
 * 100, each with the identity's index in the list) when any exists.
 */
export function validateImportSet(
  identities: ImportIdentityInput[],
  kind: ImportListKind = 'set',
): ValidImportIdentity[] {
  const problems: FieldProblem[] = [];
  if (identities.length === 0)
    throw badInput(
      [{ field: 'input.identities', problem: 'must not be empty' }],
      kind === 'set' ? 'The import set is empty' : 'The part is empty',
    );
  const out: ValidImportIdentity[] = [];
  const firstIndex = new Map<string, number>();
  identities.forEach((input, i) => {
    const seen = firstIndex.get(input.externalId);
    if (seen !== undefined)
      problems.push({
        index: i,
        field: `identities[${i}].externalId`,
        problem: `occurs more than once (also at identities[${seen}])`,
      });
    else firstIndex.set(input.externalId, i);
    const attributes = validateOne(input, i, problems);
    if (attributes) out.push({ attributes, hash: contentHash(attributes) });
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
    throw badInput(
      shown,
      kind === 'set'
        ? `The import was rejected: ${problems.length} problem(s) in the set; nothing was changed`
        : `The part was refused: ${problems.length} problem(s) in it; it was not stored`,
    );
  }
  return out;
}
