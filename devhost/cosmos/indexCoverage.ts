/**
 * Whether a container's indexing policy can serve a query, as Cosmos DB decides it:
 * - every path the WHERE clause reads must be indexed, else the query scans its partitions
 *   (answered, but charged per document read);
 * - ORDER BY one path needs that path indexed (range), ORDER BY several a composite index with
 *   exactly those paths and directions (or all reversed); Cosmos DB refuses the query otherwise;
 * - an equality filter on one path with ORDER BY another is served well only by a composite index
 *   (filtered path first, ordered path last): without it the engine walks the ordered index and reads
 *   every document to filter it. A query whose equality filters have no such composite is a gap too.
 * `id` and `_ts` are always indexed; the partition-key filter selects the partition and needs no index.
 * `ARRAY_CONTAINS(c.path, value)` reads the elements of the array: it is served by an index on `/path/[]/?`.
 */
import type { Json } from './library';
import { memberPath, shapeOf } from './queryShape';
import type { IndexingPolicy } from './requestCharge';
import { isIndexedPath } from './requestCharge';

export interface QueryIndexNeeds {
  /** Every path the WHERE clause reads (outside the partition-key equality). */
  filtered: string[][];
  /** Paths compared for equality (or IN) at the top level of the WHERE clause. */
  equality: string[][];
  orderBy: Array<{ path: string[]; descending: boolean }>;
}

export interface CoverageGaps {
  /** Filtered paths the policy does not index (the query scans). */
  unindexedFilters: string[];
  /** Why the policy cannot order the results (Cosmos DB answers 400). */
  orderRefused?: string;
  /** ORDER BY with an equality filter and no composite index to serve the pair. */
  missingComposite?: string;
}

const ALWAYS_INDEXED = new Set(['id', '_ts']);

function isNode(x: unknown): x is Json {
  return typeof x === 'object' && x !== null;
}

const pathText = (path: readonly string[]) => '/' + path.join('/');

/** The elements' path (`[…path, '[]']`) of `ARRAY_CONTAINS(<root path>, …)`, else undefined. */
function arrayElementsPath(node: Json, root: string): string[] | undefined {
  if (node.type !== 'scalar_function_expression' || !isNode(node.name) || !Array.isArray(node.arguments))
    return undefined;
  if (String(node.name.name).toUpperCase() !== 'ARRAY_CONTAINS') return undefined;
  const array = memberPath(node.arguments[0], root);
  return array && array.length > 0 ? [...array, '[]'] : undefined;
}

export function queryIndexNeeds(ast: Json, partitionKeyPath: readonly string[]): QueryIndexNeeds {
  const body = ast.body;
  const needs: QueryIndexNeeds = { filtered: [], equality: [], orderBy: [] };
  if (!isNode(body)) return needs;
  const from = isNode(body.from) ? body.from : undefined;
  const source = isNode(from?.source) ? from.source : undefined;
  const collection = isNode(source?.expression) ? source.expression : undefined;
  const root =
    isNode(source?.alias) && typeof source.alias.name === 'string'
      ? source.alias.name
      : isNode(collection?.expression) && typeof collection.expression.name === 'string'
        ? collection.expression.name
        : 'c';
  const isPk = (p: readonly string[]) =>
    p.length === partitionKeyPath.length && p.every((k, i) => k === partitionKeyPath[i]);
  const seen = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (!isNode(node)) return;
    const path = memberPath(node, root) ?? arrayElementsPath(node, root);
    if (path && path.length > 0) {
      const key = path.join('/');
      if (!seen.has(key)) {
        seen.add(key);
        needs.filtered.push(path);
      }
      if (path[path.length - 1] === '[]' && Array.isArray(node.arguments)) walk(node.arguments.slice(1));
      return;
    }
    for (const value of Object.values(node)) walk(value);
  };
  if (isNode(body.where)) walk(body.where.condition);
  const shape = shapeOf(ast);
  for (const c of shape.conditions)
    if ((c.kind === 'compare' && c.op === '=') || c.kind === 'in')
      if (!isPk(c.path) && !needs.equality.some((p) => p.join('/') === c.path.join('/'))) needs.equality.push(c.path);
  needs.filtered = needs.filtered.filter((p) => !isPk(p));
  if (isNode(body.orderBy) && Array.isArray(body.orderBy.expressions))
    for (const e of body.orderBy.expressions as Json[]) {
      const path = memberPath(e.expression, root);
      if (path) needs.orderBy.push({ path, descending: String(e.order ?? 'ASC').toUpperCase() === 'DESC' });
    }
  return needs;
}

interface CompositePath {
  path: string;
  order?: string;
}

function compositesOf(policy: IndexingPolicy): CompositePath[][] {
  return (policy.compositeIndexes ?? []) as CompositePath[][];
}

const descendingIn = (p: CompositePath) => p.order === 'descending';

export function coverageGaps(needs: QueryIndexNeeds, policy: IndexingPolicy): CoverageGaps {
  const indexed = (path: readonly string[]) =>
    (path.length === 1 && ALWAYS_INDEXED.has(path[0] as string)) || isIndexedPath(policy, path);
  const gaps: CoverageGaps = { unindexedFilters: needs.filtered.filter((p) => !indexed(p)).map(pathText) };
  const order = needs.orderBy;
  const composites = compositesOf(policy);
  if (order.length === 1) {
    const only = order[0]!;
    if (!indexed(only.path)) gaps.orderRefused = `ORDER BY ${pathText(only.path)} needs a range index on that path`;
    const equalities = needs.equality.filter((p) => p.join('/') !== only.path.join('/'));
    if (equalities.length > 0) {
      const served = composites.some((composite) => {
        const last = composite[composite.length - 1];
        if (!last || last.path !== pathText(only.path) || composite.length < 2) return false;
        const leading = composite.slice(0, -1);
        return leading.every((p) => equalities.some((e) => pathText(e) === p.path));
      });
      if (!served)
        gaps.missingComposite = `ORDER BY ${pathText(only.path)} with an equality filter on ${equalities
          .map(pathText)
          .join(', ')} needs a composite index (one of those paths first, ${pathText(only.path)} last)`;
    }
  } else if (order.length > 1) {
    const wanted = order.map((o) => `${pathText(o.path)}`);
    const served = composites.some((composite) => {
      if (composite.length !== order.length) return false;
      if (!composite.every((p, i) => p.path === wanted[i])) return false;
      const same = composite.every((p, i) => descendingIn(p) === order[i]!.descending);
      const reversed = composite.every((p, i) => descendingIn(p) !== order[i]!.descending);
      return same || reversed;
    });
    if (!served) gaps.orderRefused = `ORDER BY ${wanted.join(', ')} needs a composite index on those paths`;
  }
  return gaps;
}

export function hasGaps(gaps: CoverageGaps): boolean {
  return gaps.unindexedFilters.length > 0 || gaps.orderRefused !== undefined || gaps.missingComposite !== undefined;
}

/** One line per gap, naming paths only (never a parameter value). */
export function describeGaps(gaps: CoverageGaps): string[] {
  return [
    ...gaps.unindexedFilters.map((p) => `filter on ${p} is not indexed (the query scans its partitions)`),
    ...(gaps.orderRefused ? [gaps.orderRefused] : []),
    ...(gaps.missingComposite ? [gaps.missingComposite] : []),
  ];
}
