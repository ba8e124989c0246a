/**
 * What a query asks for, read from its syntax tree: the top-level AND conditions the engine can
 * answer from indexes (a path compared with a constant or parameter, IN lists, ORs of equalities on
 * one path, ORs of such conjunctions: `(a = 1 AND b < @t) OR (c = true)`), the order, TOP, and whether it
 * only counts. Anything else is "opaque": the query still runs, over every document of its partition.
 */
import type { Json } from './library';

export type CompareOp = '=' | '>' | '>=' | '<' | '<=';
export type Operand = { kind: 'const'; value: unknown } | { kind: 'param'; name: string };

export type Condition =
  | { kind: 'compare'; path: string[]; op: CompareOp; operand: Operand }
  | { kind: 'in'; path: string[]; operands: Operand[] }
  /** An OR of conjunctions, each with at least one condition an index answers: a union of index look-ups. */
  | { kind: 'any'; branches: Condition[][] }
  | { kind: 'opaque' };

export interface QueryShape {
  /** One source (no JOIN) with a root alias: the only form the planner reasons about. */
  plannable: boolean;
  conditions: Condition[];
  /** ORDER BY on `id` ascending only. */
  orderById: boolean;
  /** The one ORDER BY path when it is ascending (keyset walks: `id`, or the partition key across partitions). */
  orderAscendingBy?: string[];
  /** The one ORDER BY path when it is descending (a walk down its sorted index: newest first). */
  orderDescendingBy?: string[];
  ordered: boolean;
  top?: Operand;
  /** `SELECT VALUE COUNT(...)` with nothing else that shapes the result. */
  countOnly: boolean;
  /** One result row per matching document: no DISTINCT, GROUP BY or aggregate (a page is the first matches). */
  rowPerDocument: boolean;
}

const FLIP: Record<CompareOp, CompareOp> = { '=': '=', '>': '<', '>=': '<=', '<': '>', '<=': '>=' };
const COMPARE_OPS = new Set<string>(['=', '>', '>=', '<', '<=']);

function isNode(x: unknown): x is Json {
  return typeof x === 'object' && x !== null;
}

export function memberPath(node: unknown, root: string): string[] | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'identifier') return node.name === root ? [] : undefined;
  if (node.type !== 'scalar_member_expression') return undefined;
  const base = memberPath(node.object, root);
  if (!base) return undefined;
  const prop = node.property;
  if (!isNode(prop)) return undefined;
  if (!node.computed && prop.type === 'identifier' && typeof prop.name === 'string') return [...base, prop.name];
  if (node.computed && prop.type === 'string_constant' && typeof prop.value === 'string') return [...base, prop.value];
  return undefined;
}

function operandOf(node: unknown): Operand | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'parameter_name' && typeof node.name === 'string') return { kind: 'param', name: node.name };
  if (node.type === 'string_constant' || node.type === 'number_constant' || node.type === 'boolean_constant')
    return { kind: 'const', value: node.value };
  return undefined;
}

function conditionOf(node: Json, root: string): Condition {
  if (node.type === 'scalar_binary_expression' && typeof node.operator === 'string') {
    const op = node.operator.toUpperCase();
    if (COMPARE_OPS.has(op)) {
      const leftPath = memberPath(node.left, root);
      const rightOperand = operandOf(node.right);
      if (leftPath && leftPath.length > 0 && rightOperand)
        return { kind: 'compare', path: leftPath, op: op as CompareOp, operand: rightOperand };
      const rightPath = memberPath(node.right, root);
      const leftOperand = operandOf(node.left);
      if (rightPath && rightPath.length > 0 && leftOperand)
        return { kind: 'compare', path: rightPath, op: FLIP[op as CompareOp], operand: leftOperand };
      return { kind: 'opaque' };
    }
    if (op === 'OR') {
      const left = conditionOf(node.left as Json, root);
      const right = conditionOf(node.right as Json, root);
      const asIn = (c: Condition) =>
        c.kind === 'in'
          ? c
          : c.kind === 'compare' && c.op === '='
            ? { kind: 'in' as const, path: c.path, operands: [c.operand] }
            : undefined;
      const l = asIn(left);
      const r = asIn(right);
      if (l && r && l.path.join('.') === r.path.join('.'))
        return { kind: 'in', path: l.path, operands: [...l.operands, ...r.operands] };
      const branches: Condition[][] = [];
      for (const disjunct of disjunctsOf(node)) {
        const conjuncts: Condition[] = [];
        conjunctsOf(disjunct, root, conjuncts);
        if (!conjuncts.some(indexable)) return { kind: 'opaque' };
        branches.push(conjuncts);
      }
      return { kind: 'any', branches };
    }
    return { kind: 'opaque' };
  }
  if (node.type === 'scalar_in_expression' && Array.isArray(node.list)) {
    const path = memberPath(node.value, root);
    const operands = node.list.map(operandOf);
    if (path && path.length > 0 && operands.every((o): o is Operand => o !== undefined))
      return { kind: 'in', path, operands };
  }
  return { kind: 'opaque' };
}

/** Whether an index alone can give the documents a condition may hold for. */
function indexable(c: Condition): boolean {
  return c.kind === 'compare' || c.kind === 'in' || c.kind === 'any';
}

/** The operands of a chain of ORs, `a OR (b OR c)` as [a, b, c]. */
function disjunctsOf(node: Json): Json[] {
  if (node.type === 'scalar_binary_expression' && String(node.operator).toUpperCase() === 'OR')
    return [...disjunctsOf(node.left as Json), ...disjunctsOf(node.right as Json)];
  return [node];
}

function conjunctsOf(node: unknown, root: string, out: Condition[]): void {
  if (!isNode(node)) return;
  if (
    node.type === 'scalar_binary_expression' &&
    typeof node.operator === 'string' &&
    node.operator.toUpperCase() === 'AND'
  ) {
    conjunctsOf(node.left, root, out);
    conjunctsOf(node.right, root, out);
    return;
  }
  out.push(conditionOf(node, root));
}

const UNPLANNABLE: QueryShape = {
  plannable: false,
  conditions: [],
  orderById: false,
  ordered: false,
  countOnly: false,
  rowPerDocument: false,
};

const AGGREGATES = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG']);

/** Whether a syntax tree calls an aggregate function anywhere. */
function aggregates(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(aggregates);
  if (!isNode(node)) return false;
  if (
    node.type === 'scalar_function_expression' &&
    isNode(node.name) &&
    AGGREGATES.has(String(node.name.name).toUpperCase())
  )
    return true;
  return Object.values(node).some(aggregates);
}

export function shapeOf(ast: Json): QueryShape {
  const body = ast.body;
  if (!isNode(body) || body.type !== 'select_query') return UNPLANNABLE;
  const from = body.from;
  if (!isNode(from) || !Array.isArray(from.joins) || from.joins.length > 0 || !isNode(from.source)) return UNPLANNABLE;
  const source = from.source;
  const collection = source.expression;
  if (
    !isNode(collection) ||
    collection.type !== 'collection_expression' ||
    !isNode(collection.expression) ||
    collection.expression.type !== 'identifier'
  )
    return UNPLANNABLE;
  const root =
    isNode(source.alias) && typeof source.alias.name === 'string'
      ? source.alias.name
      : String(collection.expression.name);

  const conditions: Condition[] = [];
  if (isNode(body.where)) conjunctsOf(body.where.condition, root, conditions);

  let ordered = false;
  let orderById = false;
  let orderAscendingBy: string[] | undefined;
  let orderDescendingBy: string[] | undefined;
  if (isNode(body.orderBy) && Array.isArray(body.orderBy.expressions)) {
    ordered = body.orderBy.expressions.length > 0;
    const [only, ...rest] = body.orderBy.expressions as Json[];
    const path = only ? memberPath(only.expression, root) : undefined;
    if (rest.length === 0 && path && (only?.order == null || String(only.order).toUpperCase() === 'ASC'))
      orderAscendingBy = path;
    if (rest.length === 0 && path && String(only?.order ?? '').toUpperCase() === 'DESC') orderDescendingBy = path;
    orderById =
      rest.length === 0 &&
      path?.length === 1 &&
      path[0] === 'id' &&
      (only?.order == null || String(only.order).toUpperCase() === 'ASC');
  }

  const top = isNode(body.top) ? operandOf(body.top.value) : undefined;
  const select = body.select;
  const value = isNode(select) ? select.value : undefined;
  const countOnly =
    isNode(value) &&
    value.type === 'scalar_function_expression' &&
    isNode(value.name) &&
    String(value.name.name).toUpperCase() === 'COUNT' &&
    Array.isArray(value.arguments) &&
    value.arguments.length === 1 &&
    operandOf(value.arguments[0])?.kind === 'const' &&
    !ordered &&
    body.top == null &&
    body.groupBy == null &&
    !(isNode(select) && select.distinct);
  const rowPerDocument = !(isNode(select) && select.distinct) && body.groupBy == null && !aggregates(select);
  return {
    plannable: true,
    conditions,
    orderById,
    orderAscendingBy,
    orderDescendingBy,
    ordered,
    top,
    countOnly,
    rowPerDocument,
  };
}
