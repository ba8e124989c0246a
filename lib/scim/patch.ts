/**
 * SCIM PATCH (RFC 7644 §3.5.2, spec §4.1 rule 5) over the canonical User form of lib/scim/userInput.
 * Pure: it works on a prototype-free copy and never changes `current` or the body. The caller
 * validates the result with the PUT rules (toIdentityAttributes), so a PATCH applies as a whole
 * or not at all, and removing a required attribute ends as 400 invalidValue there.
 */
import { CORE_USER_SCHEMA, PATCH_OP_SCHEMA } from './schema';
import type { AttributeDefinition } from './schema';
import { ScimError, invalidSyntax, invalidValue } from './errors';
import {
  EXT,
  canonicalCoreValue,
  canonicalEnum,
  canonicalExtensionValue,
  canonicalItem,
  canonicalizeUser,
  cloneJson,
  coreAttribute,
  extensionAttribute,
  isJsonObject,
  isReadOnly,
  readOnlyError,
  safeObject,
  sameName,
  stripPrefix,
  subAttribute,
  unknownExtensionAttributeError,
  isSchemasMember,
} from './userInput';
import type { JsonObject, ScimUserInput } from './userInput';
import { IDENTITY_ATTRIBUTES, type AttributeRow } from '../identities/attributes';
import { normalizeCpr } from '../identities/formats';

type Op = 'add' | 'replace' | 'remove';

export const MAX_OPERATIONS = 100;
export const MAX_PATH_LENGTH = 512;

/** A parsed path, for callers and tests: canonical attribute names, filter and sub-attribute names in lower case. */
export interface ParsedPath {
  scope: 'core' | 'ext' | 'ignored';
  /** '' for the whole extension and for ignored paths. */
  attribute: string;
  filter?: { conditions: Array<{ attribute: string; value: string }> };
  sub?: string;
}

interface Condition {
  def: AttributeDefinition;
  value: string;
}

type Target =
  | { kind: 'ignored' }
  | { kind: 'core'; def: AttributeDefinition; sub?: AttributeDefinition }
  | { kind: 'extension' }
  | { kind: 'extensionAttribute'; def: AttributeDefinition }
  | { kind: 'list'; def: AttributeDefinition; filter?: Condition[]; sub?: string };

type ListTarget = Extract<Target, { kind: 'list' }>;

const invalidPath = (detail: string): ScimError => ScimError.invalidPath(detail);

/**
 * A target that is read-only. Changing it is refused (400 mutability); setting it to the value it has
 * is not a change (spec §4.1 rule 5 refuses changing one), so `currentIn` finds that value in the User.
 */
class ReadOnlyTargetError extends ScimError {
  constructor(
    path: string,
    readonly caseExact: boolean,
    readonly currentIn: (resource: JsonObject) => unknown,
  ) {
    super(400, 'mutability', readOnlyError(path).detail);
    this.name = 'ReadOnlyTargetError';
  }
}

const memberOf = (o: unknown, name: string): unknown =>
  isJsonObject(o) ? o[Object.keys(o).find((k) => sameName(k, name)) ?? ''] : undefined;

/** Whether `value` is what the read-only attribute holds now (a complex value: each sub-attribute given). */
function isCurrentValue(current: unknown, value: unknown, caseExact: boolean): boolean {
  const absent = (v: unknown) => v === undefined || v === null || v === '';
  if (absent(current) || absent(value)) return absent(current) && absent(value);
  if (typeof current === 'string' && typeof value === 'string')
    return caseExact ? current === value : current.toLowerCase() === value.toLowerCase();
  if (isJsonObject(value) && isJsonObject(current))
    return Object.entries(value).every(([k, v]) => isCurrentValue(memberOf(current, k), v, caseExact));
  return current === value;
}
const noTarget = (detail: string): ScimError => ScimError.noTarget(detail);

/** personalNumbers holds one number per type (spec §2.1), so an added item replaces the one of its type. */
const ONE_PER_TYPE: ReadonlySet<string> = new Set(
  (IDENTITY_ATTRIBUTES as readonly AttributeRow[])
    .filter((r) => r.oneItemPerType !== undefined)
    .map((r) => r.scim.path),
);

/** Forms in which filter values are compared, beyond case: a CPR number matches with or without its dash. */
const MATCH_FORMS: ReadonlyMap<string, (v: string) => string> = new Map([
  [
    'personalNumbers.value',
    (v: string) => {
      const cpr = normalizeCpr(v);
      return cpr.ok ? cpr.value : v;
    },
  ],
]);

// ---- paths -------------------------------------------------------------------------------

const ATTR_NAME = /^(?:\$ref|[A-Za-z][\w-]*)/;
const CONDITION = /^\s*([A-Za-z][\w-]*)\s+eq\s+("(?:[^"\\]|\\.)*")\s*/i;
const AND = /^and\s+/i;

interface PathParts {
  attr: string;
  filter?: string;
  sub?: string;
}

/** Index of the `]` closing a filter that starts at `from`; brackets inside quoted strings do not count. */
function closingBracket(text: string, from: number): number {
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[') return -1;
    else if (c === ']') return i;
  }
  return -1;
}

/** `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub`; the filter text is checked later, per attribute. */
function splitPath(text: string, where: string): PathParts {
  const attr = ATTR_NAME.exec(text)?.[0];
  if (attr === undefined) throw invalidPath(`${where} is not a valid attribute path`);
  let i = attr.length;
  let filter: string | undefined;
  if (text[i] === '[') {
    const close = closingBracket(text, i + 1);
    if (close < 0) throw invalidPath(`${where} has an unbalanced filter bracket`);
    filter = text.slice(i + 1, close);
    i = close + 1;
  }
  let sub: string | undefined;
  if (text[i] === '.') {
    sub = ATTR_NAME.exec(text.slice(i + 1))?.[0];
    if (sub === undefined) throw invalidPath(`${where} has an invalid sub-attribute`);
    i += 1 + sub.length;
  }
  if (i !== text.length) throw invalidPath(`${where} is not a valid attribute path`);
  return { attr, ...(filter === undefined ? {} : { filter }), ...(sub === undefined ? {} : { sub }) };
}

/** `sub eq "value" [and sub eq "value" …]` over the sub-attributes of `list`. */
function parseFilter(text: string, list: AttributeDefinition, where: string): Condition[] {
  const problem = `${where} has an invalid filter: use sub-attribute eq "value", optionally joined with and`;
  const conditions: Condition[] = [];
  let rest = text;
  for (;;) {
    const m = CONDITION.exec(rest);
    const [matched = '', name = '', quoted = ''] = m ?? [];
    if (m === null) throw invalidPath(problem);
    const def = subAttribute(list, name);
    if (def === undefined) throw invalidPath(`${where} filters on an unknown sub-attribute of ${EXT}:${list.name}`);
    let value: unknown;
    try {
      value = JSON.parse(quoted);
    } catch {
      throw invalidPath(problem);
    }
    if (typeof value !== 'string') throw invalidPath(problem);
    conditions.push({ def, value });
    rest = rest.slice(matched.length);
    if (rest === '') return conditions;
    const and = AND.exec(rest);
    if (and === null) throw invalidPath(problem);
    rest = rest.slice(and[0].length);
  }
}

function extensionTarget(parts: PathParts, where: string): Target {
  const def = extensionAttribute(parts.attr);
  if (def === undefined) throw unknownExtensionAttributeError(parts.attr);
  if (isReadOnly(def))
    throw new ReadOnlyTargetError(`${EXT}:${def.name}`, def.caseExact, (r) => memberOf(r[EXT], def.name));
  if (!def.multiValued) {
    if (parts.filter !== undefined || parts.sub !== undefined)
      throw invalidPath(`${where}: ${EXT}:${def.name} has no sub-attributes or items`);
    return { kind: 'extensionAttribute', def };
  }
  if (parts.filter === undefined) {
    if (parts.sub !== undefined) throw invalidPath(`${where}: a sub-attribute of ${EXT}:${def.name} needs a filter`);
    return { kind: 'list', def };
  }
  const filter = parseFilter(parts.filter, def, where);
  if (parts.sub === undefined) return { kind: 'list', def, filter };
  // An unlisted sub-attribute is kept as written; canonicalisation of the result rejects it as in a PUT.
  return { kind: 'list', def, filter, sub: subAttribute(def, parts.sub)?.name ?? parts.sub };
}

function coreTarget(parts: PathParts, where: string): Target {
  if (sameName(parts.attr, 'schemas')) throw readOnlyError('schemas');
  const def = coreAttribute(parts.attr);
  // The extension's attributes need no URN: their names cannot be confused with core ones.
  if (def === undefined)
    return extensionAttribute(parts.attr) === undefined ? { kind: 'ignored' } : extensionTarget(parts, where);
  if (isReadOnly(def)) {
    const sub = parts.sub === undefined ? undefined : subAttribute(def, parts.sub);
    const name = sub ? `${def.name}.${sub.name}` : def.name;
    throw new ReadOnlyTargetError(name, (sub ?? def).caseExact, (r) => {
      const value = memberOf(r, def.name);
      return sub ? memberOf(value, sub.name) : value;
    });
  }
  if (parts.filter !== undefined) throw invalidPath(`${where}: ${def.name} is not multi-valued`);
  if (parts.sub === undefined) return { kind: 'core', def };
  if (def.type !== 'complex') throw invalidPath(`${where}: ${def.name} has no sub-attributes`);
  const sub = subAttribute(def, parts.sub);
  return sub === undefined ? { kind: 'ignored' } : { kind: 'core', def, sub };
}

function resolvePath(path: string, where: string): Target {
  if (path.length > MAX_PATH_LENGTH) throw invalidPath(`${where} is longer than ${MAX_PATH_LENGTH} characters`);
  const text = path.trim();
  if (sameName(text, EXT)) return { kind: 'extension' };
  const extPath = stripPrefix(text, `${EXT}:`);
  if (extPath !== undefined) return extensionTarget(splitPath(extPath, where), where);
  if (sameName(text, CORE_USER_SCHEMA)) throw invalidPath(`${where} must name an attribute`);
  const corePath = stripPrefix(text, `${CORE_USER_SCHEMA}:`);
  if (corePath === undefined && /^urn:/i.test(text)) return { kind: 'ignored' }; // other schema extensions
  return coreTarget(splitPath(corePath ?? text, where), where);
}

/** Parses a PATCH path; throws invalidPath, mutability (read-only target) or invalidSyntax (unknown extension attribute). */
export function parsePatchPath(path: string, where = 'The PATCH path'): ParsedPath {
  const t = resolvePath(path, where);
  switch (t.kind) {
    case 'ignored':
      return { scope: 'ignored', attribute: '' };
    case 'extension':
      return { scope: 'ext', attribute: '' };
    case 'extensionAttribute':
      return { scope: 'ext', attribute: t.def.name };
    case 'core':
      return {
        scope: 'core',
        attribute: t.def.name,
        ...(t.sub === undefined ? {} : { sub: t.sub.name.toLowerCase() }),
      };
    case 'list':
      return {
        scope: 'ext',
        attribute: t.def.name,
        ...(t.filter === undefined
          ? {}
          : { filter: { conditions: t.filter.map((c) => ({ attribute: c.def.name.toLowerCase(), value: c.value })) } }),
        ...(t.sub === undefined ? {} : { sub: t.sub.toLowerCase() }),
      };
  }
}

// ---- list items --------------------------------------------------------------------------

const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];

function comparable(list: AttributeDefinition, sub: AttributeDefinition, value: string): string {
  const form = MATCH_FORMS.get(`${list.name}.${sub.name}`);
  const v = form ? form(value) : value;
  return sub.caseExact ? v : v.toLowerCase();
}

function sameValue(list: AttributeDefinition, sub: AttributeDefinition, actual: unknown, expected: unknown): boolean {
  if (typeof actual !== 'string' || typeof expected !== 'string') return actual === expected;
  return comparable(list, sub, actual) === comparable(list, sub, expected);
}

function matches(list: AttributeDefinition, item: unknown, filter: readonly Condition[]): boolean {
  return isJsonObject(item) && filter.every((c) => sameValue(list, c.def, item[c.def.name], c.value));
}

function sameItem(list: AttributeDefinition, a: unknown, b: unknown): boolean {
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => {
    const sub = subAttribute(list, k);
    return sub === undefined ? a[k] === b[k] : sameValue(list, sub, a[k], b[k]);
  });
}

function sameType(list: AttributeDefinition, a: unknown, b: unknown): boolean {
  const type = subAttribute(list, 'type');
  return (
    type !== undefined &&
    isJsonObject(a) &&
    isJsonObject(b) &&
    a.type !== undefined &&
    sameValue(list, type, a.type, b.type)
  );
}

/** RFC 7644 §3.5.2.1: added values are appended; a value already present is not added twice. */
function appendItems(list: AttributeDefinition, items: readonly unknown[], added: readonly unknown[]): unknown[] {
  let out = [...items];
  for (const item of added) {
    if (ONE_PER_TYPE.has(list.name)) out = out.filter((old) => !sameType(list, old, item));
    else if (out.some((old) => sameItem(list, old, item))) continue;
    out.push(item);
  }
  return out;
}

/** A copy of `item` with each filter value filled in where the item has none (a new item must match its filter). */
function withFilterValues(item: unknown, filter: readonly Condition[]): unknown {
  if (!isJsonObject(item)) return item;
  const out = cloneJson(item) as JsonObject;
  for (const c of filter) if (out[c.def.name] === undefined) out[c.def.name] = canonicalEnum(c.def, c.value);
  return out;
}

function withSub(list: AttributeDefinition, item: JsonObject, sub: string, value: unknown): JsonObject {
  const out = cloneJson(item) as JsonObject;
  const def = subAttribute(list, sub);
  out[sub] = def === undefined ? value : canonicalEnum(def, value);
  return out;
}

function objectValues(list: AttributeDefinition, value: unknown, where: string): JsonObject[] {
  return asList(value).map((v, i) => {
    const item = canonicalItem(list, v, `${where}.value`);
    if (!isJsonObject(item))
      throw invalidValue(`${where}.value[${i}] must be an object of sub-attributes of ${EXT}:${list.name}`);
    return item;
  });
}

function merged(item: unknown, values: readonly JsonObject[]): unknown {
  if (!isJsonObject(item)) return item;
  const out = cloneJson(item) as JsonObject;
  for (const v of values) for (const [k, x] of Object.entries(v)) out[k] = x;
  return out;
}

function applyList(ext: JsonObject, op: Op, t: ListTarget, value: unknown, where: string): void {
  const { def } = t;
  const current = ext[def.name];
  const items: unknown[] = Array.isArray(current) ? [...(current as unknown[])] : [];
  if (t.filter === undefined) {
    // Without a filter: remove clears, replace sets the whole list, add appends.
    if (op === 'remove') delete ext[def.name];
    else if (op === 'replace')
      ext[def.name] = value === null ? null : canonicalExtensionValue(def, asList(value), `${where}.value`);
    else
      ext[def.name] = appendItems(
        def,
        items,
        canonicalExtensionValue(def, asList(value), `${where}.value`) as unknown[],
      );
    return;
  }
  const filter = t.filter;
  const sub = t.sub;
  const hits = items.map((item) => matches(def, item, filter));
  const hit = (i: number): boolean => hits[i] === true;
  if (op === 'remove') {
    ext[def.name] =
      sub === undefined
        ? items.filter((_, i) => !hit(i))
        : items.map((item, i) => {
            if (!hit(i) || !isJsonObject(item)) return item;
            const out = cloneJson(item) as JsonObject;
            delete out[sub];
            return out;
          });
    return;
  }
  if (sub !== undefined) {
    // Entra sends replace as well as add for an item that does not exist yet: both create it.
    ext[def.name] = hits.includes(true)
      ? items.map((item, i) => (hit(i) && isJsonObject(item) ? withSub(def, item, sub, value) : item))
      : appendItems(def, items, [withFilterValues(withSub(def, safeObject(), sub, value), filter)]);
    return;
  }
  const values = objectValues(def, value, where);
  ext[def.name] = hits.includes(true)
    ? items.map((item, i) => (hit(i) ? merged(item, values) : item))
    : appendItems(
        def,
        items,
        values.map((v) => withFilterValues(v, filter)),
      );
}

// ---- operations --------------------------------------------------------------------------

function extensionOf(doc: JsonObject): JsonObject {
  const ext = doc[EXT];
  if (isJsonObject(ext)) return ext;
  const created = safeObject();
  doc[EXT] = created;
  return created;
}

function applyName(
  doc: JsonObject,
  op: Op,
  def: AttributeDefinition,
  sub: AttributeDefinition | undefined,
  value: unknown,
): void {
  const name = doc.name;
  if (sub !== undefined) {
    if (op === 'remove') {
      if (isJsonObject(name)) delete name[sub.name];
      return;
    }
    const target = isJsonObject(name) ? name : safeObject();
    target[sub.name] = value;
    doc.name = target;
    return;
  }
  if (op === 'remove') {
    delete doc.name;
    return;
  }
  // add and replace of a complex attribute both set the given sub-attributes and keep the others (RFC 7644 §3.5.2.3).
  const given = canonicalCoreValue(def, value);
  if (isJsonObject(given) && isJsonObject(name)) for (const [k, v] of Object.entries(given)) name[k] = v;
  else doc.name = given;
}

/** Resolves and applies one target; a read-only one set to its current value is left alone. */
function applyPath(
  doc: JsonObject,
  op: Op,
  resolve: () => Target,
  value: unknown,
  where: string,
  resource: JsonObject | undefined,
): void {
  let target: Target;
  try {
    target = resolve();
  } catch (err) {
    if (
      err instanceof ReadOnlyTargetError &&
      resource !== undefined &&
      op !== 'remove' &&
      isCurrentValue(err.currentIn(resource), value, err.caseExact)
    )
      return;
    throw err;
  }
  applyTarget(doc, op, target, value, where, resource);
}

function applyTarget(
  doc: JsonObject,
  op: Op,
  t: Target,
  value: unknown,
  where: string,
  resource: JsonObject | undefined,
): void {
  switch (t.kind) {
    case 'ignored':
      return;
    case 'core':
      if (t.def.type === 'complex') return applyName(doc, op, t.def, t.sub, value);
      if (op === 'remove') delete doc[t.def.name];
      else doc[t.def.name] = canonicalCoreValue(t.def, value);
      return;
    case 'extension':
      if (op === 'remove') {
        delete doc[EXT];
        return;
      }
      if (!isJsonObject(value))
        throw invalidValue(`${where}.value for ${EXT} must be an object of extension attributes`);
      for (const [name, v] of Object.entries(value)) {
        if (!isSchemasMember(name))
          applyPath(doc, op, () => extensionTarget({ attr: name }, where), v, where, resource);
      }
      return;
    case 'extensionAttribute': {
      if (op === 'remove') {
        const ext = doc[EXT];
        if (isJsonObject(ext)) delete ext[t.def.name];
      } else extensionOf(doc)[t.def.name] = canonicalExtensionValue(t.def, value);
      return;
    }
    case 'list':
      if (op === 'remove' && !isJsonObject(doc[EXT])) return;
      return applyList(extensionOf(doc), op, t, value, where);
  }
}

/** A member of a JSON object by name in any case ("Operations", "operations", "OP"). */
function member(o: JsonObject, name: string): unknown {
  const key = Object.keys(o).find((k) => sameName(k, name));
  return key === undefined ? undefined : o[key];
}

function operationsOf(body: unknown): JsonObject[] {
  if (!isJsonObject(body)) throw invalidSyntax('The PATCH body must be a JSON object');
  const schemas = member(body, 'schemas');
  if (
    schemas !== undefined &&
    schemas !== null &&
    !(Array.isArray(schemas) && schemas.some((s) => typeof s === 'string' && sameName(s, PATCH_OP_SCHEMA)))
  ) {
    throw invalidSyntax(`The PATCH body schemas must include ${PATCH_OP_SCHEMA}`);
  }
  const operations = member(body, 'operations');
  if (!Array.isArray(operations) || operations.length === 0)
    throw invalidSyntax('The PATCH body needs a non-empty Operations array');
  if (operations.length > MAX_OPERATIONS) throw invalidSyntax(`A PATCH may hold at most ${MAX_OPERATIONS} operations`);
  return operations.map((o: unknown, i) => {
    if (!isJsonObject(o)) throw invalidSyntax(`Operations[${i}] must be an object`);
    return o;
  });
}

function opOf(raw: unknown, where: string): Op {
  const op = typeof raw === 'string' ? raw.toLowerCase() : '';
  if (op !== 'add' && op !== 'replace' && op !== 'remove')
    throw invalidSyntax(`${where}.op must be add, replace or remove`);
  return op;
}

function applyOperation(doc: JsonObject, operation: JsonObject, where: string, resource: JsonObject | undefined): void {
  const op = opOf(member(operation, 'op'), where);
  const path = member(operation, 'path');
  const value = member(operation, 'value');
  if (path !== undefined && path !== null && typeof path !== 'string')
    throw invalidPath(`${where}.path must be a string`);
  if (typeof path === 'string' && path.trim() !== '') {
    applyPath(doc, op, () => resolvePath(path, `${where}.path`), value, where, resource);
    return;
  }
  if (op === 'remove') throw noTarget(`${where}: remove needs a path`);
  // Without a path the value is an object of attributes, each applied as if its key were the path.
  if (!isJsonObject(value)) throw invalidSyntax(`${where}.value must be an object of attributes when there is no path`);
  for (const [key, v] of Object.entries(value))
    applyPath(doc, op, () => resolvePath(key, `A key of ${where}.value`), v, where, resource);
}

/**
 * Applies a PatchOp body to a canonical User and returns the new canonical User; `current` is not changed.
 * `resource` is the User as the service returns it: an operation that sets a read-only attribute to the
 * value it holds there is not a change and is accepted; without it, every read-only target is refused.
 */
export function applyPatch(current: ScimUserInput, patchBody: unknown, resource?: JsonObject): ScimUserInput {
  const operations = operationsOf(patchBody);
  const doc = cloneJson(current);
  if (!isJsonObject(doc)) throw new TypeError('applyPatch: current must be an object');
  operations.forEach((operation, i) => applyOperation(doc, operation, `Operations[${i}]`, resource));
  return canonicalizeUser(doc, 'patchResult');
}
