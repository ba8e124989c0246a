/**
 * Secondary indexes of one container, per logical partition: equality (value -> ids) and sorted
 * (value order, for ranges and counts). They are built on the first query that needs a path and
 * kept up to date by every write from then on, so any document kind and any field can be indexed.
 */
import type { Json } from './library';

export type Scalar = string | number | boolean;

export function valueAt(doc: Json, path: readonly string[]): unknown {
  let v: unknown = doc;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Json)[key];
  }
  return v;
}

export function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

/** A key that tells values of different types apart ("1" is not 1). */
export function scalarKey(v: Scalar): string {
  return `${typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b'}${String(v)}`;
}

/** Position of the first element >= value (or > value with `after`) in a sorted array. */
export function lowerBound<T>(arr: readonly T[], value: T, after = false): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const m = arr[mid] as T;
    if (m < value || (after && m === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function insertSorted<T>(arr: T[], value: T): void {
  const at = arr.length === 0 || (arr[arr.length - 1] as T) < value ? arr.length : lowerBound(arr, value);
  arr.splice(at, 0, value);
}

export function removeSorted<T>(arr: T[], value: T): void {
  const at = lowerBound(arr, value);
  if (arr[at] === value) arr.splice(at, 1);
}

/**
 * The ids of a partition in ascending order. An id that does not sort last waits in a pending list
 * and is merged in when the order is next needed, so a run of writes with random ids (claims keyed by
 * directory object id, audit entries) costs a sort and one merge instead of a shift of the list per write.
 */
export class SortedIds {
  private list: string[] = [];
  private pending: string[] = [];

  get size(): number {
    return this.list.length + this.pending.length;
  }

  insert(id: string): void {
    const last = this.list[this.list.length - 1];
    if (this.pending.length === 0 && (last === undefined || last < id)) this.list.push(id);
    else this.pending.push(id);
  }

  remove(id: string): void {
    removeSorted(this.sorted(), id);
  }

  /** The ids in order (merging what is pending first). */
  sorted(): string[] {
    if (this.pending.length > 0) this.merge();
    return this.list;
  }

  private merge(): void {
    const add = this.pending.sort();
    const merged: string[] = new Array<string>(this.list.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.list.length && j < add.length)
      merged[k++] = (this.list[i] as string) < (add[j] as string) ? (this.list[i++] as string) : (add[j++] as string);
    while (i < this.list.length) merged[k++] = this.list[i++] as string;
    while (j < add.length) merged[k++] = add[j++] as string;
    this.list = merged;
    this.pending = [];
  }
}

/** Ids by exact scalar value of one path (one id kept as a string: most values of key fields are unique). */
export class EqualityIndex {
  private readonly byPartition = new Map<string, Map<string, string | Set<string>>>();

  constructor(readonly path: readonly string[]) {}

  /** Indexes `doc` (under `id`, when given: the partition's own id string, so the index keeps no copy of it). */
  add(partition: string, doc: Json, id: string = String(doc.id)): void {
    const v = valueAt(doc, this.path);
    if (!isScalar(v)) return;
    let values = this.byPartition.get(partition);
    if (!values) this.byPartition.set(partition, (values = new Map()));
    const key = scalarKey(v);
    const held = values.get(key);
    if (held === undefined) values.set(key, id);
    else if (typeof held === 'string') {
      if (held !== id) values.set(key, new Set([held, id]));
    } else held.add(id);
  }

  remove(partition: string, doc: Json): void {
    const v = valueAt(doc, this.path);
    if (!isScalar(v)) return;
    const values = this.byPartition.get(partition);
    const key = scalarKey(v);
    const held = values?.get(key);
    const id = String(doc.id);
    if (held === undefined || !values) return;
    if (typeof held === 'string') {
      if (held === id) values.delete(key);
      return;
    }
    held.delete(id);
    if (held.size === 1) values.set(key, held.values().next().value as string);
  }

  dropPartition(partition: string): void {
    this.byPartition.delete(partition);
  }

  size(partition: string, value: Scalar): number {
    const held = this.byPartition.get(partition)?.get(scalarKey(value));
    return held === undefined ? 0 : typeof held === 'string' ? 1 : held.size;
  }

  ids(partition: string, value: Scalar): readonly string[] {
    const held = this.byPartition.get(partition)?.get(scalarKey(value));
    return held === undefined ? [] : typeof held === 'string' ? [held] : [...held];
  }
}

interface Entry {
  v: string | number;
  id: string;
}

function entryBefore(a: Entry, b: Entry): boolean {
  return a.v < b.v || (a.v === b.v && a.id < b.id);
}

/** Entries sorted by (value, id), one list per value type (values of different types never compare). */
class SortedEntries {
  readonly strings: Entry[] = [];
  readonly numbers: Entry[] = [];

  list(v: string | number): Entry[] {
    return typeof v === 'string' ? this.strings : this.numbers;
  }
}

function entryPosition(list: readonly Entry[], e: Entry): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entryBefore(list[mid] as Entry, e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface Range {
  lower?: { value: string | number; inclusive: boolean };
  upper?: { value: string | number; inclusive: boolean };
}

/** Ids sorted by the string or number value of one path: ranges and their sizes in O(log n). */
export class SortedIndex {
  private readonly byPartition = new Map<string, SortedEntries>();

  constructor(readonly path: readonly string[]) {}

  add(partition: string, doc: Json): void {
    const v = valueAt(doc, this.path);
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) return;
    let entries = this.byPartition.get(partition);
    if (!entries) this.byPartition.set(partition, (entries = new SortedEntries()));
    const list = entries.list(v);
    const e = { v, id: String(doc.id) };
    const last = list[list.length - 1];
    list.splice(!last || entryBefore(last, e) ? list.length : entryPosition(list, e), 0, e);
  }

  /** Indexes a partition's documents (with their ids) at once: one sort instead of an insertion per document. */
  load(partition: string, docs: Iterable<readonly [string, Json]>): void {
    let entries = this.byPartition.get(partition);
    if (!entries) this.byPartition.set(partition, (entries = new SortedEntries()));
    for (const [id, doc] of docs) {
      const v = valueAt(doc, this.path);
      if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) entries.list(v).push({ v, id });
    }
    const order = (a: Entry, b: Entry) => (entryBefore(a, b) ? -1 : entryBefore(b, a) ? 1 : 0);
    entries.strings.sort(order);
    entries.numbers.sort(order);
  }

  remove(partition: string, doc: Json): void {
    const v = valueAt(doc, this.path);
    if (typeof v !== 'string' && typeof v !== 'number') return;
    const list = this.byPartition.get(partition)?.list(v);
    if (!list) return;
    const at = entryPosition(list, { v, id: String(doc.id) });
    const found = list[at];
    if (found && found.v === v && found.id === doc.id) list.splice(at, 1);
  }

  dropPartition(partition: string): void {
    this.byPartition.delete(partition);
  }

  /** [start, end) positions of the range in the list of its value type. */
  private bounds(partition: string, range: Range): { list: readonly Entry[]; start: number; end: number } {
    const typed = range.lower?.value ?? range.upper?.value ?? '';
    const list = this.byPartition.get(partition)?.list(typed) ?? [];
    const position = (value: string | number, afterEqual: boolean): number => {
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const m = (list[mid] as Entry).v;
        if (m < value || (afterEqual && m === value)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const start = range.lower ? position(range.lower.value, !range.lower.inclusive) : 0;
    const end = range.upper ? position(range.upper.value, range.upper.inclusive) : list.length;
    return { list, start, end: Math.max(start, end) };
  }

  count(partition: string, range: Range): number {
    const { start, end } = this.bounds(partition, range);
    return end - start;
  }

  /** Ids with exactly `value` in id order, from `from` on: the walk of a composite (value, id) index. */
  *idsWithValue(
    partition: string,
    value: string | number,
    from?: { value: string; inclusive: boolean },
  ): Generator<string> {
    const list = this.byPartition.get(partition)?.list(value) ?? [];
    for (let i = entryPosition(list, { v: value, id: from?.value ?? '' }); i < list.length; i++) {
      const e = list[i] as Entry;
      if (e.v !== value) return;
      if (from && !from.inclusive && e.id === from.value) continue;
      yield e.id;
    }
  }

  /** Ids of the range from its greatest value down (ties: greatest id first); strings unless the range says numbers. */
  *idsDescending(partition: string, range: Range): Generator<string> {
    const { list, start, end } = this.bounds(partition, range);
    for (let i = end - 1; i >= start; i--) yield (list[i] as Entry).id;
  }

  ids(partition: string, range: Range): string[] {
    const { list, start, end } = this.bounds(partition, range);
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push((list[i] as Entry).id);
    return out;
  }
}
