/**
 * Runs a query inside the partitions it concerns, over candidates taken from indexes:
 * - the partition named by the request (or by an equality on the partition-key path), else every partition;
 * - equality / IN on a path: the ids with that value; a range: a slice of the sorted index;
 * - keyset paging (`ORDER BY c.id` after an id, with TOP or a page size): the ids in order from
 *   that id, stopping once the page and the next item are found; with an equality on a field, the
 *   ids carrying that value in id order (a composite index on the field and id);
 * - ORDER BY one path DESC with TOP or a page size (first page): a walk down that path's sorted index;
 * - an OR of conjunctions: the union of each branch's cheapest index look-up;
 * - a page of an unordered query (results come in `_rid` order) or of one ordered by id descending: only the
 *   candidates from the continuation's place on are read, in that order, and (when every condition is
 *   understood) only until the page and the next match are found, as Cosmos DB serves a continuation
 *   without reading the earlier pages again;
 * - COUNT answered by index sizes where the conditions allow it.
 * The query evaluator then filters, sorts, projects and pages the candidates exactly as before,
 * so candidates only need to include every match. Queries the planner does not understand run
 * over every document of their partition.
 */
import type { CompiledQuery, QueryOutput } from './compiledQuery';
import { partitionKeyOf, type IndexedDocuments, type Partition } from './partition';
import { isScalar, lowerBound, valueAt, type Range, type Scalar } from './indexes';
import { continuationToken, type Json } from './library';
import { shapeOf, type CompareOp, type Condition, type Operand, type QueryShape } from './queryShape';

export interface QueryRequest {
  maxItemCount?: number | null;
  continuation?: { token: string } | null;
  partition?: { value: unknown };
}

type Resolved =
  | { kind: 'compare'; path: string[]; op: CompareOp; value: Scalar }
  | { kind: 'in'; path: string[]; values: Scalar[] }
  | { kind: 'any'; branches: Resolved[][] }
  | { kind: 'opaque' };

const shapes = new WeakMap<CompiledQuery, QueryShape>();

function shapeFor(q: CompiledQuery): QueryShape {
  let s = shapes.get(q);
  if (!s) shapes.set(q, (s = shapeOf(q.ast)));
  return s;
}

function resolve(operand: Operand, params: Map<string, unknown>): unknown {
  return operand.kind === 'const' ? operand.value : params.get(operand.name);
}

function resolveCondition(c: Condition, params: Map<string, unknown>): Resolved {
  if (c.kind === 'compare') {
    const value = resolve(c.operand, params);
    if (!isScalar(value)) return { kind: 'opaque' };
    if (c.op !== '=' && typeof value === 'boolean') return { kind: 'opaque' };
    return { kind: 'compare', path: c.path, op: c.op, value };
  }
  if (c.kind === 'in') {
    const values = c.operands.map((o) => resolve(o, params));
    if (!values.every(isScalar)) return { kind: 'opaque' };
    return { kind: 'in', path: c.path, values: [...new Set(values as Scalar[])] };
  }
  if (c.kind === 'any')
    return { kind: 'any', branches: c.branches.map((b) => b.map((x) => resolveCondition(x, params))) };
  return c;
}

/** The same answer as the query evaluator gives for these conditions (same types, ordinal compare). */
function matches(doc: Json, conditions: readonly Resolved[]): boolean {
  for (const c of conditions) {
    if (c.kind === 'opaque') return true;
    if (c.kind === 'any') {
      if (!c.branches.some((branch) => matches(doc, branch))) return false;
      continue;
    }
    const v = valueAt(doc, c.path);
    if (c.kind === 'in') {
      if (!c.values.some((x) => typeof x === typeof v && x === v)) return false;
      continue;
    }
    if (typeof v !== typeof c.value) return false;
    const x = v as Scalar;
    const ok =
      c.op === '='
        ? x === c.value
        : c.op === '>'
          ? x > c.value
          : c.op === '>='
            ? x >= c.value
            : c.op === '<'
              ? x < c.value
              : x <= c.value;
    if (!ok) return false;
  }
  return true;
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((k, i) => k === b[i]);

/** Range conditions of one path as one range (string or number values; the tightest bounds). */
function rangeOf(conditions: readonly Resolved[], path: readonly string[]): Range | undefined {
  const range: Range = {};
  let type: string | undefined;
  for (const c of conditions) {
    if (c.kind !== 'compare' || c.op === '=' || !samePath(c.path, path)) continue;
    const value = c.value as string | number;
    if (type !== undefined && typeof value !== type) return undefined;
    type = typeof value;
    if (c.op === '>' || c.op === '>=') {
      const inclusive = c.op === '>=';
      if (!range.lower || value > range.lower.value || (value === range.lower.value && !inclusive))
        range.lower = { value, inclusive };
    } else {
      const inclusive = c.op === '<=';
      if (!range.upper || value < range.upper.value || (value === range.upper.value && !inclusive))
        range.upper = { value, inclusive };
    }
  }
  return type ? range : undefined;
}

interface Plan {
  shape: QueryShape;
  conditions: Resolved[];
  understood: boolean;
  /** Keyset walk: stop after this many matches. */
  need: number;
  /** Lowest id a match can have (from `c.id >` conditions and the continuation). */
  idFrom?: { value: string; inclusive: boolean };
  idRange?: Range;
  /** A later page of the query (its continuation is the evaluator's to apply over every candidate). */
  continued?: boolean;
  /**
   * A page of an unordered query (`rid`: results in `_rid` order) or of one ordered by id, newest first
   * (`idDesc`): read candidates in that order from `from` (the continuation's), and `need` matches at most.
   */
  window?: { order: 'rid' | 'idDesc'; from?: string; need: number };
}

function docsOf(p: Partition, ids: Iterable<string>): Json[] {
  const out: Json[] = [];
  for (const id of ids) {
    const d = p.docs.get(id);
    if (d) out.push(d);
  }
  return out;
}

interface Lookup {
  cost: number;
  take: () => Json[];
}

/**
 * The cheapest index look-up that gives every document a conjunction may hold for (an equality, an IN list, a
 * range on one path, or an OR's union), or undefined when none of its conditions has one.
 */
function lookupOf(
  store: IndexedDocuments,
  p: Partition,
  conditions: readonly Resolved[],
  plan: Plan,
): Lookup | undefined {
  let best: Lookup | undefined;
  const offer = (cost: number, take: () => Json[]) => {
    if (!best || cost < best.cost) best = { cost, take };
  };
  for (const c of conditions) {
    if (c.kind === 'compare' && c.op === '=' && samePath(c.path, ['id'])) {
      const doc = typeof c.value === 'string' ? p.docs.get(c.value) : undefined;
      offer(doc ? 1 : 0, () => (doc ? [doc] : []));
    } else if (c.kind === 'compare' && c.op === '=') {
      const index = store.equalityIndex(c.path);
      const value = c.value;
      offer(index.size(p.key, value), () => load(p, index.ids(p.key, value), plan));
    } else if (c.kind === 'in') {
      const index = store.equalityIndex(c.path);
      offer(
        c.values.reduce<number>((n, v) => n + index.size(p.key, v), 0),
        () =>
          load(
            p,
            c.values.flatMap((v) => [...index.ids(p.key, v)]),
            plan,
          ),
      );
    } else if (c.kind === 'compare' && !samePath(c.path, ['id'])) {
      const range = rangeOf(conditions, c.path);
      if (!range) continue;
      const index = store.sortedIndex(c.path);
      offer(index.count(p.key, range), () => load(p, index.ids(p.key, range), plan));
    } else if (c.kind === 'any') {
      const union = unionOf(store, p, c.branches, plan);
      if (union) offer(union.cost, union.take);
    }
  }
  return best;
}

/** The union of each branch's look-up (a document found by two branches once), if every branch has one. */
function unionOf(
  store: IndexedDocuments,
  p: Partition,
  branches: readonly Resolved[][],
  plan: Plan,
): Lookup | undefined {
  const lookups: Lookup[] = [];
  for (const branch of branches) {
    const lookup = lookupOf(store, p, branch, plan);
    if (!lookup) return undefined;
    lookups.push(lookup);
  }
  return {
    cost: lookups.reduce((n, l) => n + l.cost, 0),
    take: () => {
      // By id: documents are kept as text, and each look-up parses its own copy.
      const byId = new Map<unknown, Json>();
      for (const l of lookups) for (const doc of l.take()) if (!byId.has(doc.id)) byId.set(doc.id, doc);
      return [...byId.values()];
    },
  };
}

/** The documents of `ids`, within the plan's window when it has one (documents stored without `_rid`: all). */
function load(p: Partition, ids: Iterable<string>, plan: Plan): Json[] {
  const w = plan.window;
  if (!w) return docsOf(p, ids);
  const all = [...ids];
  const ordered: Array<[string, string]> = [];
  for (const id of all) {
    if (w.order === 'idDesc') {
      if (w.from === undefined || id <= w.from) ordered.push([id, id]);
      continue;
    }
    const rid = p.docs.rid(id);
    if (rid === undefined) return docsOf(p, all);
    if (w.from === undefined || rid >= w.from) ordered.push([rid, id]);
  }
  const sign = w.order === 'idDesc' ? -1 : 1;
  ordered.sort((a, b) => sign * (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Json[] = [];
  for (const [, id] of ordered) {
    if (out.length >= w.need) break;
    const doc = p.docs.get(id);
    if (doc && matches(doc, plan.conditions)) out.push(doc);
  }
  return out;
}

/** Every document of the partition that can match, taken from the cheapest index. */
function candidatesIn(store: IndexedDocuments, p: Partition, plan: Plan): Json[] {
  const { conditions } = plan;
  let best: { cost: number; take: () => Json[] } | undefined;
  const offer = (cost: number, take: () => Json[]) => {
    if (!best || cost < best.cost) best = { cost, take };
  };
  for (const c of conditions)
    if (c.kind === 'compare' && c.op === '=' && samePath(c.path, ['id'])) {
      const doc = typeof c.value === 'string' ? p.docs.get(c.value) : undefined;
      return doc ? [doc] : [];
    }
  // An equality, an IN list, a range or an OR's union: the cheapest of them.
  const lookup = lookupOf(store, p, conditions, plan);
  if (lookup) offer(lookup.cost, lookup.take);
  const { idFrom, idRange } = plan;
  const ids = idFrom || idRange?.upper || plan.shape.orderById ? p.ids.sorted() : [];
  const start = idFrom ? lowerBound(ids, idFrom.value, !idFrom.inclusive) : 0;
  const end = idRange?.upper ? lowerBound(ids, idRange.upper.value as string, idRange.upper.inclusive) : ids.length;
  if (plan.shape.orderById && plan.understood && Number.isFinite(plan.need)) {
    // Keyset walk: expected cost is the page size divided by the share of documents that match.
    const share = best ? Math.max(best.cost, 1) / Math.max(p.docs.size, 1) : 1;
    offer(plan.need / share, () => {
      const out: Json[] = [];
      for (let i = start; i < end && out.length < plan.need; i++) {
        const doc = p.docs.get(ids[i] as string);
        if (doc && matches(doc, conditions)) out.push(doc);
      }
      return out;
    });
  }
  if (plan.shape.orderById && plan.understood && Number.isFinite(plan.need)) {
    // Keyset walk over one value's ids in id order (as a composite index on the field and id):
    // a filter on a value that a small share of the partition carries no longer reads all of them.
    for (const c of conditions) {
      if (c.kind !== 'compare' || c.op !== '=' || typeof c.value === 'boolean' || samePath(c.path, ['id'])) continue;
      const { path, value } = c;
      offer(Math.min(store.equalityIndex(path).size(p.key, value), plan.need), () => {
        const out: Json[] = [];
        const upper = idRange?.upper;
        for (const id of store.sortedIndex(path).idsWithValue(p.key, value, idFrom)) {
          if (
            out.length >= plan.need ||
            (upper && (id > String(upper.value) || (id === String(upper.value) && !upper.inclusive)))
          )
            break;
          const doc = p.docs.get(id);
          if (doc && matches(doc, conditions)) out.push(doc);
        }
        return out;
      });
    }
  }
  const descending = plan.shape.orderDescendingBy;
  if (descending && plan.understood && Number.isFinite(plan.need) && !plan.continued) {
    // ORDER BY one path DESC with TOP (or a first page): a walk down its sorted index, stopping once the
    // page (and the item that tells another follows) is found, as Cosmos DB serves it from its range index.
    const share = best ? Math.max(best.cost, 1) / Math.max(p.docs.size, 1) : 1;
    const range = rangeOf(conditions, descending) ?? {};
    offer(plan.need / share, () => {
      const out: Json[] = [];
      for (const id of store.sortedIndex(descending).idsDescending(p.key, range)) {
        if (out.length >= plan.need) break;
        const doc = p.docs.get(id);
        if (doc && matches(doc, conditions)) out.push(doc);
      }
      return out;
    });
  }
  if (idFrom || idRange?.upper) offer(Math.max(0, end - start), () => load(p, ids.slice(start, end), plan));
  offer(p.docs.size, () => (plan.window ? load(p, p.docs.keys(), plan) : [...p.docs.values()]));
  return (best as unknown as { take: () => Json[] }).take();
}

function fullyUnderstood(c: Resolved): boolean {
  return c.kind === 'opaque' ? false : c.kind === 'any' ? c.branches.every((b) => b.every(fullyUnderstood)) : true;
}

/** COUNT from index sizes alone, when the conditions are one equality/IN or one range (or none). */
function countFromIndexes(store: IndexedDocuments, p: Partition, conditions: readonly Resolved[]): number | undefined {
  if (conditions.length === 0) return p.docs.size;
  const paths = new Set(conditions.map((c) => (c.kind === 'opaque' || c.kind === 'any' ? '' : c.path.join('\u0000'))));
  if (paths.size !== 1 || paths.has('')) return undefined;
  const first = conditions[0];
  if (!first || first.kind === 'opaque' || first.kind === 'any' || samePath(first.path, ['id'])) return undefined;
  if (conditions.length === 1 && first.kind === 'compare' && first.op === '=')
    return store.equalityIndex(first.path).size(p.key, first.value);
  if (conditions.length === 1 && first.kind === 'in') {
    const index = store.equalityIndex(first.path);
    return first.values.reduce<number>((n, v) => n + index.size(p.key, v), 0);
  }
  if (conditions.every((c) => c.kind === 'compare' && c.op !== '=')) {
    const range = rangeOf(conditions, first.path);
    return range ? store.sortedIndex(first.path).count(p.key, range) : undefined;
  }
  return undefined;
}

function topOf(shape: QueryShape, params: Map<string, unknown>): number | undefined {
  if (!shape.top) return undefined;
  const v = resolve(shape.top, params);
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

export function runQuery(
  store: IndexedDocuments,
  query: CompiledQuery,
  parameters: ReadonlyArray<{ name: string; value: unknown }>,
  request: QueryRequest,
): QueryOutput {
  const params = new Map(parameters.map((p) => [p.name, p.value]));
  const runParams = Object.fromEntries(parameters.map((p) => [p.name.slice(1), p.value]));
  const run = (candidates: Json[]) => {
    store.examined += candidates.length;
    return query.run(candidates, {
      parameters: runParams,
      maxItemCount: request.maxItemCount,
      continuation: request.continuation,
      compositeIndexes: store.compositeIndexes(),
    });
  };
  const shape = shapeFor(query);
  if (!shape.plannable) return run(partitionsOf(store, request.partition).flatMap((p) => [...p.docs.values()]));

  let conditions = shape.conditions.map((c) => resolveCondition(c, params));
  // The partition-key condition selects the partition; inside it, it holds for every document.
  let partitionValue = request.partition;
  const pkCondition = conditions.find(
    (c) => c.kind === 'compare' && c.op === '=' && samePath(c.path, store.partitionKeyPath),
  );
  if (pkCondition && pkCondition.kind === 'compare') {
    if (partitionValue && partitionKeyOf(partitionValue.value) !== partitionKeyOf(pkCondition.value)) return run([]);
    partitionValue = { value: pkCondition.value };
    conditions = conditions.filter((c) => c !== pkCondition);
  }
  const partitions = partitionsOf(store, partitionValue);
  // An OR's conditions are checked by matches() too; only what no index or check understands is opaque.
  const understood = conditions.every((c) => c.kind !== 'opaque' && (c.kind !== 'any' || fullyUnderstood(c)));

  if (shape.countOnly && understood) {
    let total = 0;
    for (const p of partitions) {
      const n = countFromIndexes(store, p, conditions);
      total +=
        n ??
        candidatesIn(store, p, { shape, conditions, understood, need: Infinity }).filter((d) => matches(d, conditions))
          .length;
    }
    return { result: [total], continuation: null };
  }

  const top = topOf(shape, params);
  const pageNeed = request.maxItemCount && request.maxItemCount > 0 ? request.maxItemCount + 1 : Infinity;
  const need = top !== undefined ? top : pageNeed;
  const anyIdRange = rangeOf(conditions, ['id']);
  const idRange =
    anyIdRange && typeof (anyIdRange.lower ?? anyIdRange.upper)?.value === 'string' ? anyIdRange : undefined;
  let idFrom = idRange?.lower ? { value: String(idRange.lower.value), inclusive: idRange.lower.inclusive } : undefined;
  // With ORDER BY c.id the continuation names the id the next page starts at (without TOP,
  // which the evaluator applies from the first result, not from the continuation).
  if (shape.orderById && top === undefined && request.continuation?.token) {
    const rtd = continuationToken.decode(request.continuation.token).RTD?.[0];
    if (typeof rtd === 'string' && (!idFrom || rtd > idFrom.value)) idFrom = { value: rtd, inclusive: true };
  }
  const continued = Boolean(request.continuation?.token);
  /**
   * A page of an unordered query (results in `_rid` order) or of one ordered by id descending; none with TOP and
   * a continuation (the evaluator counts TOP from the first result).
   */
  function windowOf(): Plan['window'] {
    if (!shape.rowPerDocument || (top !== undefined && continued)) return undefined;
    const byIdDesc = shape.orderDescendingBy !== undefined && samePath(shape.orderDescendingBy, ['id']);
    if (shape.ordered && !byIdDesc) return undefined;
    const token = continued ? continuationToken.decode(request.continuation?.token ?? '') : undefined;
    const place = byIdDesc ? token?.RTD?.[0] : token?.RID;
    const from = typeof place === 'string' ? place : undefined;
    const most = understood ? need : Infinity;
    if (from === undefined && !Number.isFinite(most)) return undefined;
    return { order: byIdDesc ? 'idDesc' : 'rid', from, need: most };
  }
  const plan: Plan = { shape, conditions, understood, need, idFrom, idRange, continued, window: windowOf() };
  if (
    partitions.length > 1 &&
    understood &&
    top !== undefined &&
    shape.orderAscendingBy &&
    samePath(shape.orderAscendingBy, store.partitionKeyPath)
  ) {
    // ORDER BY the partition key with TOP (a walk over partitions, as a composite index ending in the
    // key serves it): partitions in key order, stopping once TOP matches are found.
    // String keys are `s<value>`: their order is the values' ordinal order.
    const ordered = [...partitions].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const candidates: Json[] = [];
    let found = 0;
    for (const p of ordered) {
      if (found >= top) break;
      for (const doc of candidatesIn(store, p, plan))
        if (matches(doc, conditions)) {
          candidates.push(doc);
          found++;
        }
    }
    return run(candidates);
  }
  return run(partitions.flatMap((p) => candidatesIn(store, p, plan)));
}

function partitionsOf(store: IndexedDocuments, partition: { value: unknown } | undefined): Partition[] {
  if (!partition) return [...store.partitions.values()];
  const p = store.partitions.get(partitionKeyOf(partition.value));
  return p ? [p] : [];
}
