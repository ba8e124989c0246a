/**
 * Request units the local engine charges per operation, after Microsoft's published model
 * ("Understand request units consumption in Azure Cosmos DB",
 * https://learn.microsoft.com/azure/cosmos-db/understand-request-unit-consumption):
 * - point read: by the item's size (1 KB = 1.00 RU, 100 KB ≈ 10 RU; the page's size table);
 * - create: by size (1 KB = 4.95 RU) plus 0.2 RU per indexed term the indexing policy adds (one per
 *   indexed scalar, one per composite index whose paths the item has);
 * - replace: the old item deleted and the new one inserted (size charge twice) plus 0.2 RU per
 *   indexed term removed and per term added;
 * - delete: by size plus 0.2 RU per indexed term removed;
 * - query / read feed page: 1 RU for the index look-ups, plus a point read's charge per item
 *   returned (the page: reading documents through a feed costs about as much as reading them one by one);
 * - transactional batch: the sum of its operations;
 * - a request that changes or finds nothing (404, 409, 412): 1 RU.
 * Sizes are the item's JSON bytes; between the table's rows the charge is interpolated linearly.
 */
import type { Json } from './library';

/** [KB, read RU, write RU] from the page's document-size table. */
const SIZE_TABLE: ReadonlyArray<readonly [number, number, number]> = [
  [1, 1.0, 4.95],
  [2, 1.04, 6.29],
  [4, 1.14, 6.67],
  [8, 1.33, 7.04],
  [16, 1.67, 9.52],
  [32, 2.19, 11.23],
  [64, 4.76, 22.67],
  [128, 9.95, 48.19],
  [256, 20.28, 98.29],
  [512, 40.95, 184.57],
  [1024, 145.9, 625.0],
  [2048, 291.8, 1250.0],
];

export const INDEX_TERM_RU = 0.2;
export const MINIMUM_RU = 1;
export const QUERY_BASE_RU = 1;

function bySize(bytes: number, column: 1 | 2): number {
  const kb = bytes / 1024;
  const first = SIZE_TABLE[0]!;
  if (kb <= first[0]) return first[column];
  for (let i = 1; i < SIZE_TABLE.length; i++) {
    const hi = SIZE_TABLE[i]!;
    const lo = SIZE_TABLE[i - 1]!;
    if (kb <= hi[0]) return lo[column] + ((hi[column] - lo[column]) * (kb - lo[0])) / (hi[0] - lo[0]);
  }
  const last = SIZE_TABLE[SIZE_TABLE.length - 1]!;
  return (last[column] * kb) / last[0];
}

export const readChargeOfSize = (bytes: number): number => bySize(bytes, 1);
export const writeChargeOfSize = (bytes: number): number => bySize(bytes, 2);

const sizes = new WeakMap<object, number>();

/** Notes the JSON size of an item parsed from `text` (its stored form), so charging it serializes nothing. */
export function rememberSize(doc: object, text: string): void {
  sizes.set(doc, Buffer.byteLength(text));
}

/** JSON bytes of a stored item (items are never changed in place, so the size is kept per object). */
export function sizeOf(doc: unknown): number {
  if (typeof doc !== 'object' || doc === null) return Buffer.byteLength(JSON.stringify(doc ?? null));
  let n = sizes.get(doc);
  if (n === undefined) {
    n = Buffer.byteLength(JSON.stringify(doc));
    sizes.set(doc, n);
  }
  return n;
}

// ---- indexed terms ----

export interface IndexingPolicy {
  indexingMode?: string;
  includedPaths?: Array<{ path: string }>;
  excludedPaths?: Array<{ path: string }>;
  compositeIndexes?: Array<Array<{ path: string; order?: string }>>;
}

interface PathRule {
  segments: string[];
  /** `/*`: the path and everything under it; `/?`: the scalar at exactly this path. */
  subtree: boolean;
  included: boolean;
}

function ruleOf(path: string, included: boolean): PathRule {
  const parts = path.split('/').filter((p) => p !== '');
  const last = parts[parts.length - 1];
  const subtree = last !== '?';
  if (last === '*' || last === '?') parts.pop();
  return { segments: parts.map((p) => p.replace(/^"(.*)"$/, '$1')), subtree, included };
}

const rulesCache = new WeakMap<IndexingPolicy, PathRule[]>();

/** The policy's path rules, most specific first (Cosmos DB applies the most precise path). */
function rulesOf(policy: IndexingPolicy): PathRule[] {
  let rules = rulesCache.get(policy);
  if (!rules) {
    const included = policy.includedPaths ?? [{ path: '/*' }];
    rules = [
      ...(policy.excludedPaths ?? []).map((p) => ruleOf(p.path, false)),
      ...included.map((p) => ruleOf(p.path, true)),
    ];
    rules.sort((a, b) => b.segments.length - a.segments.length || (a.subtree === b.subtree ? 0 : a.subtree ? 1 : -1));
    rulesCache.set(policy, rules);
  }
  return rules;
}

function matches(rule: PathRule, path: readonly string[]): boolean {
  const segments = rule.segments;
  if (rule.subtree ? path.length < segments.length : path.length !== segments.length) return false;
  for (let i = 0; i < segments.length; i++) if (segments[i] !== path[i]) return false;
  return true;
}

function isIndexed(rules: readonly PathRule[], path: readonly string[]): boolean {
  // `id` is always indexed (in consistent mode), whatever the paths say.
  if (path.length === 1 && path[0] === 'id') return true;
  for (const rule of rules) if (matches(rule, path)) return rule.included;
  return false;
}

/** Whether the policy indexes the scalar at this path. */
export function isIndexedPath(policy: IndexingPolicy, path: readonly string[]): boolean {
  return policy.indexingMode !== 'none' && isIndexed(rulesOf(policy), path);
}

const compositePathsCache = new WeakMap<IndexingPolicy, string[][][]>();

function compositePaths(policy: IndexingPolicy): string[][][] {
  let out = compositePathsCache.get(policy);
  if (!out) {
    out = (policy.compositeIndexes ?? []).map((c) => c.map((p) => p.path.split('/').filter((k) => k !== '')));
    compositePathsCache.set(policy, out);
  }
  return out;
}

function scalarAt(doc: unknown, path: readonly string[]): unknown {
  let v: unknown = doc;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return typeof v === 'object' && v !== null ? undefined : v;
}

/** One term per composite index whose every path holds a scalar in the item. */
function compositeTerms(doc: unknown, policy: IndexingPolicy): string[] {
  const out: string[] = [];
  for (const [i, paths] of compositePaths(policy).entries()) {
    const values = paths.map((p) => scalarAt(doc, p));
    if (values.every((v) => v !== undefined)) out.push(`#${i}=${JSON.stringify(values)}`);
  }
  return out;
}

/**
 * The item's indexed terms (`path=value` for every scalar the policy indexes; array elements
 * under `[]`). System properties (`_rid`, `_ts`, ...) are not counted.
 */
export function indexTerms(doc: Json, policy: IndexingPolicy = {}): string[] {
  if (policy.indexingMode === 'none') return [];
  const rules = rulesOf(policy);
  const out: string[] = [];
  // One path stack for the whole walk: every item write is charged, so the walk allocates only the terms.
  const path: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      path.push('[]');
      for (const v of value) walk(v);
      path.pop();
    } else if (typeof value === 'object' && value !== null) {
      const top = path.length === 0;
      for (const k in value) {
        if (top && k.startsWith('_')) continue;
        path.push(k);
        walk((value as Record<string, unknown>)[k]);
        path.pop();
      }
    } else if (isIndexed(rules, path)) {
      out.push(`${path.join('/')}=${JSON.stringify(value ?? null)}`);
    }
  };
  walk(doc);
  if (policy.compositeIndexes) out.push(...compositeTerms(doc, policy));
  return out;
}

// ---- operations ----

export function pointReadCharge(doc: Json | undefined): number {
  return doc ? readChargeOfSize(sizeOf(doc)) : MINIMUM_RU;
}

export function createCharge(doc: Json, policy?: IndexingPolicy): number {
  return writeChargeOfSize(sizeOf(doc)) + INDEX_TERM_RU * indexTerms(doc, policy).length;
}

export function replaceCharge(old: Json, doc: Json, policy: IndexingPolicy = {}): number {
  const changed =
    policy.indexingMode === 'none' ? 0 : changedTerms(old, doc, rulesOf(policy)) + changedComposites(old, doc, policy);
  return writeChargeOfSize(sizeOf(old)) + writeChargeOfSize(sizeOf(doc)) + INDEX_TERM_RU * changed;
}

/** Terms of one side of a replace, as a set (array elements can repeat a term). */
function termSet(value: unknown, path: string[], rules: readonly PathRule[], top: boolean): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, isTop: boolean): void => {
    if (Array.isArray(v)) {
      path.push('[]');
      for (const x of v) walk(x, false);
      path.pop();
    } else if (typeof v === 'object' && v !== null) {
      for (const k in v) {
        if (isTop && k.startsWith('_')) continue;
        path.push(k);
        walk((v as Record<string, unknown>)[k], false);
        path.pop();
      }
    } else if (isIndexed(rules, path)) {
      out.add(`${path.join('/')}=${JSON.stringify(v ?? null)}`);
    }
  };
  walk(value, top);
  return out;
}

/**
 * The number of indexed terms in one item and not the other (the symmetric difference of their term
 * sets), walking both items together: equal scalars cost no term string, only parts that differ do.
 */
function changedTerms(old: unknown, doc: unknown, rules: readonly PathRule[]): number {
  const path: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const diff = (a: unknown, b: unknown, top: boolean): number => {
    if (isObject(a) && isObject(b)) {
      let n = 0;
      for (const k in a) {
        if (top && k.startsWith('_')) continue;
        path.push(k);
        n += k in b ? diff(a[k], b[k], false) : termSet(a[k], path, rules, false).size;
        path.pop();
      }
      for (const k in b) {
        if ((top && k.startsWith('_')) || k in a) continue;
        path.push(k);
        n += termSet(b[k], path, rules, false).size;
        path.pop();
      }
      return n;
    }
    const scalar = (v: unknown) => typeof v !== 'object' || v === null;
    if (scalar(a) && scalar(b))
      return (a ?? null) === (b ?? null) ||
        JSON.stringify(a ?? null) === JSON.stringify(b ?? null) ||
        !isIndexed(rules, path)
        ? 0
        : 2;
    // Arrays, or a value that changed kind: compare the term sets of the two sides.
    const before = termSet(a, path, rules, top);
    const after = termSet(b, path, rules, top);
    let n = 0;
    for (const t of before) if (!after.has(t)) n++;
    for (const t of after) if (!before.has(t)) n++;
    return n;
  };
  return diff(old, doc, true);
}

function changedComposites(old: unknown, doc: unknown, policy: IndexingPolicy): number {
  if (!policy.compositeIndexes) return 0;
  const before = new Set(compositeTerms(old, policy));
  const after = new Set(compositeTerms(doc, policy));
  let n = 0;
  for (const t of before) if (!after.has(t)) n++;
  for (const t of after) if (!before.has(t)) n++;
  return n;
}

export function deleteCharge(doc: Json, policy?: IndexingPolicy): number {
  return writeChargeOfSize(sizeOf(doc)) + INDEX_TERM_RU * indexTerms(doc, policy).length;
}

export function queryPageCharge(items: readonly unknown[]): number {
  let ru = QUERY_BASE_RU;
  for (const item of items) ru += readChargeOfSize(sizeOf(item));
  return ru;
}

/** A batch is charged as the sum of its operations. */
export function batchCharge(operationCharges: readonly number[]): number {
  return operationCharges.reduce((a, b) => a + b, 0);
}

/** The charge as the x-ms-request-charge header carries it. */
export function chargeHeader(ru: number): string {
  return (Math.round(ru * 100) / 100).toString();
}
