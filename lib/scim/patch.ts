/**
 * SCIM PATCH (RFC 7644 §3.5.2) over the canonical User form. Pure: returns a new document and
 * never changes its input; the caller validates the result with the PUT rules, so the whole
 * PATCH applies or nothing does.
 */
import { CORE_USER_SCHEMA, PATCH_OP_SCHEMA } from './schema';
import { ScimError, invalidSyntax } from './errors';
import { EXT, EXT_READ_ONLY, EXT_WRITABLE, canonicalizeUser, coerceBoolean, isJsonObject, setExtensionAttribute, type JsonObject, type ScimUserInput } from './userInput';

type Op = 'add' | 'replace' | 'remove';

export const MAX_OPERATIONS = 100;
export const MAX_PATH_LENGTH = 512;

const invalidPath = (detail: string) => new ScimError(400, 'invalidPath', detail);
const mutability = (path: string) => new ScimError(400, 'mutability', `${path} is read-only`);
const LIST_ATTRIBUTES = new Set(['personalnumbers', 'identitydocumentreferences']);
const READ_ONLY_CORE = new Set(['id', 'meta', 'schemas']);
const CORE_WRITABLE: Record<string, string> = { externalid: 'externalId', username: 'userName', active: 'active', name: 'name' };

interface ValueFilter {
  conditions: Array<{ attribute: string; value: string }>;
}

interface ParsedPath {
  scope: 'core' | 'ext' | 'ignored';
  attribute: string; // canonical
  filter?: ValueFilter;
  sub?: string; // lower-case sub-attribute
}

/** `attr[sub eq "v" and sub2 eq "w"].sub` -> parts; attr names are compared in lower case. */
function parseValuePath(text: string, fullPath: string): { attr: string; filter?: ValueFilter; sub?: string } {
  const open = text.indexOf('[');
  if (open === -1) {
    const [attr = '', sub, more] = text.split('.');
    if (more !== undefined || attr === '') throw invalidPath('The PATCH path is not a valid attribute path');
    return { attr, sub };
  }
  const close = text.lastIndexOf(']');
  if (close < open) throw invalidPath('The PATCH path has an unbalanced filter bracket');
  const attr = text.slice(0, open);
  const rest = text.slice(close + 1);
  if (rest !== '' && !/^\.[A-Za-z][A-Za-z0-9_-]*$/.test(rest)) throw invalidPath('The PATCH path has an invalid sub-attribute after the filter');
  const filter = parseFilter(text.slice(open + 1, close));
  void fullPath;
  return { attr, filter, sub: rest ? rest.slice(1) : undefined };
}

function parseFilter(text: string): ValueFilter {
  const conditions: ValueFilter['conditions'] = [];
  let i = 0;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  for (;;) {
    skip();
    const m = /^([A-Za-z][A-Za-z0-9_-]*)\s+eq\s+"/i.exec(text.slice(i));
    if (!m) throw invalidPath('The PATCH path filter must compare a sub-attribute with eq and a quoted string');
    i += m[0].length;
    let raw = '"';
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') raw += text[i++] ?? '';
      raw += text[i++] ?? '';
    }
    if (text[i] !== '"') throw invalidPath('The PATCH path filter has an unterminated string');
    i++;
    let value: string;
    try {
      value = JSON.parse(raw + '"') as string;
    } catch {
      throw invalidPath('The PATCH path filter has an invalid string');
    }
    conditions.push({ attribute: (m[1] ?? '').toLowerCase(), value });
    skip();
    if (i >= text.length) return { conditions };
    const and = /^and\s+/i.exec(text.slice(i));
    if (!and) throw invalidPath('The PATCH path filter supports eq conditions joined with and');
    i += and[0].length;
  }
}

export function parsePatchPath(path: string): ParsedPath {
  if (path.length > MAX_PATH_LENGTH) throw invalidPath('The PATCH path is too long');
  let rest = path.trim();
  const lower = rest.toLowerCase();
  if (lower.startsWith(`${CORE_USER_SCHEMA.toLowerCase()}:`)) rest = rest.slice(CORE_USER_SCHEMA.length + 1);
  else if (lower === EXT.toLowerCase()) return { scope: 'ext', attribute: '' };
  else if (lower.startsWith(`${EXT.toLowerCase()}:`)) {
    const { attr, filter, sub } = parseValuePath(rest.slice(EXT.length + 1), path);
    return { scope: 'ext', attribute: extensionName(attr), filter, sub: sub?.toLowerCase() };
  } else if (lower.startsWith('urn:')) return { scope: 'ignored', attribute: '' }; // another extension
  const { attr, filter, sub } = parseValuePath(rest, path);
  const a = attr.toLowerCase();
  if (READ_ONLY_CORE.has(a)) throw mutability(attr);
  if (LIST_ATTRIBUTES.has(a) || EXT_READ_ONLY.has(a)) return { scope: 'ext', attribute: extensionName(attr), filter, sub: sub?.toLowerCase() };
  const core = CORE_WRITABLE[a];
  if (!core) return { scope: 'ignored', attribute: '' }; // emails, displayName, title, …: not stored
  if (filter) throw invalidPath(`${core} is not multi-valued`);
  if (core === 'name' && sub !== undefined && !['givenname', 'familyname'].includes(sub.toLowerCase())) return { scope: 'ignored', attribute: '' };
  if (core !== 'name' && sub !== undefined) throw invalidPath(`${core} has no sub-attributes`);
  return { scope: 'core', attribute: core, sub: sub?.toLowerCase() };
}

function extensionName(attr: string): string {
  const lower = attr.toLowerCase();
  if (EXT_READ_ONLY.has(lower)) throw mutability(`${EXT}:${attr}`);
  const canonical = EXT_WRITABLE.get(lower);
  if (!canonical) throw invalidSyntax(`Unknown attribute '${attr.slice(0, 64)}' in the service extension ${EXT}`);
  return canonical;
}

const matches = (item: unknown, f: ValueFilter): boolean =>
  isJsonObject(item) &&
  f.conditions.every((c) => {
    const key = Object.keys(item).find((k) => k.toLowerCase() === c.attribute);
    const v = key === undefined ? undefined : item[key];
    return typeof v === 'string' && (c.attribute === 'type' ? v.toLowerCase() === c.value.toLowerCase() : v === c.value);
  });

function setSub(item: JsonObject, sub: string, value: unknown): void {
  const key = Object.keys(item).find((k) => k.toLowerCase() === sub) ?? sub;
  item[key] = value;
}

function removeSub(item: JsonObject, sub: string): void {
  for (const k of Object.keys(item)) if (k.toLowerCase() === sub) delete item[k];
}

function applyToList(op: Op, ext: JsonObject, attribute: string, p: ParsedPath, value: unknown): void {
  const list = Array.isArray(ext[attribute]) ? [...(ext[attribute] as unknown[])] : [];
  if (!p.filter) {
    if (p.sub !== undefined) throw invalidPath(`${EXT}:${attribute} needs a filter to address a sub-attribute`);
    if (op === 'remove') delete ext[attribute];
    else if (op === 'replace') setExtensionAttribute(ext, attribute, Array.isArray(value) ? value : [value], 'reject');
    else {
      const added = Array.isArray(value) ? value : [value];
      const merged = attribute === 'personalNumbers' ? list.filter((old) => !added.some((n) => sameType(old, n))) : list;
      setExtensionAttribute(ext, attribute, [...merged, ...added], 'reject');
    }
    return;
  }
  const filter = p.filter;
  const hits = list.map((item, i) => (matches(item, filter) ? i : -1)).filter((i) => i >= 0);
  if (op === 'remove') {
    ext[attribute] = p.sub === undefined ? list.filter((_, i) => !hits.includes(i)) : list.map((item, i) => (hits.includes(i) && isJsonObject(item) ? withoutSub(item, p.sub ?? '') : item));
    setExtensionAttribute(ext, attribute, ext[attribute], 'reject');
    return;
  }
  if (hits.length === 0) {
    // add/replace on a value path with no match creates the item from the filter's values.
    const created: JsonObject = {};
    for (const c of filter.conditions) created[c.attribute] = c.value;
    if (p.sub !== undefined) created[p.sub] = value;
    else if (isJsonObject(value)) Object.assign(created, value);
    else throw invalidPath(`A value for ${EXT}:${attribute}[…] without a sub-attribute must be an object`);
    setExtensionAttribute(ext, attribute, [...list, created], 'reject');
    return;
  }
  const next = list.map((item, i) => {
    if (!hits.includes(i) || !isJsonObject(item)) return item;
    const copy: JsonObject = { ...item };
    if (p.sub !== undefined) setSub(copy, p.sub, value);
    else if (isJsonObject(value)) for (const [k, v] of Object.entries(value)) setSub(copy, k.toLowerCase(), v);
    else throw invalidPath(`A value for ${EXT}:${attribute}[…] without a sub-attribute must be an object`);
    return copy;
  });
  setExtensionAttribute(ext, attribute, next, 'reject');
}

function withoutSub(item: JsonObject, sub: string): JsonObject {
  const copy = { ...item };
  removeSub(copy, sub);
  return copy;
}

function sameType(a: unknown, b: unknown): boolean {
  const t = (x: unknown) => (isJsonObject(x) ? Object.entries(x).find(([k]) => k.toLowerCase() === 'type')?.[1] : undefined);
  const ta = t(a);
  const tb = t(b);
  return typeof ta === 'string' && typeof tb === 'string' && ta.toLowerCase() === tb.toLowerCase();
}

function applyOne(op: Op, doc: JsonObject, path: string, value: unknown): void {
  const p = parsePatchPath(path);
  if (p.scope === 'ignored') return;
  if (p.scope === 'ext') {
    const ext = isJsonObject(doc[EXT]) ? (doc[EXT] as JsonObject) : {};
    doc[EXT] = ext;
    if (p.attribute === '') {
      if (op === 'remove') delete doc[EXT];
      else if (isJsonObject(value)) for (const [k, v] of Object.entries(value)) applyOne(op, doc, `${EXT}:${k}`, v);
      else throw invalidPath(`A value for ${EXT} must be an object`);
      return;
    }
    if (p.attribute === 'personalNumbers' || p.attribute === 'identityDocumentReferences') return applyToList(op, ext, p.attribute, p, value);
    if (p.filter || p.sub !== undefined) throw invalidPath(`${EXT}:${p.attribute} is a simple attribute`);
    if (op === 'remove') delete ext[p.attribute];
    else setExtensionAttribute(ext, p.attribute, value, 'reject');
    return;
  }
  if (p.attribute === 'name') {
    const name = isJsonObject(doc.name) ? { ...(doc.name as JsonObject) } : {};
    if (p.sub !== undefined) {
      const part = p.sub === 'givenname' ? 'givenName' : 'familyName';
      if (op === 'remove') delete name[part];
      else name[part] = value;
      doc.name = name;
    } else if (op === 'remove') delete doc.name;
    else if (isJsonObject(value)) doc.name = op === 'add' ? { ...name, ...value } : { ...value };
    else doc.name = value;
    return;
  }
  if (op === 'remove') delete doc[p.attribute];
  else doc[p.attribute] = p.attribute === 'active' ? coerceBoolean(value) : value;
}

function operationsOf(body: unknown): JsonObject[] {
  if (!isJsonObject(body)) throw invalidSyntax('The PATCH body must be a JSON object');
  const schemasKey = Object.keys(body).find((k) => k.toLowerCase() === 'schemas');
  const schemas = schemasKey ? body[schemasKey] : undefined;
  if (schemas !== undefined && (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase()))) {
    throw invalidSyntax(`The PATCH body must name the schema ${PATCH_OP_SCHEMA}`);
  }
  const opsKey = Object.keys(body).find((k) => k.toLowerCase() === 'operations');
  const ops = opsKey ? body[opsKey] : undefined;
  if (!Array.isArray(ops) || ops.length === 0) throw invalidSyntax('The PATCH body needs a non-empty Operations array');
  if (ops.length > MAX_OPERATIONS) throw invalidSyntax(`A PATCH may hold at most ${MAX_OPERATIONS} operations`);
  return ops.map((o) => {
    if (!isJsonObject(o)) throw invalidSyntax('Each PATCH operation must be an object');
    return o;
  });
}

const field = (o: JsonObject, name: string): unknown => {
  const key = Object.keys(o).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : o[key];
};

export function applyPatch(current: ScimUserInput, patchBody: unknown): ScimUserInput {
  const ops = operationsOf(patchBody);
  const doc = JSON.parse(JSON.stringify(current)) as JsonObject;
  for (const o of ops) {
    const rawOp = field(o, 'op');
    const op = typeof rawOp === 'string' ? rawOp.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax('A PATCH op must be add, replace or remove');
    const path = field(o, 'path');
    const value = field(o, 'value');
    if (path !== undefined && path !== null && typeof path !== 'string') throw invalidPath('A PATCH path must be a string');
    if (typeof path === 'string' && path.trim() !== '') {
      applyOne(op, doc, path, value);
      continue;
    }
    if (op === 'remove') throw new ScimError(400, 'noTarget', 'A remove operation needs a path');
    if (!isJsonObject(value)) throw invalidSyntax('An operation without a path needs an object value');
    for (const [k, v] of Object.entries(value)) {
      const lower = k.toLowerCase();
      if (lower === EXT.toLowerCase() && isJsonObject(v)) for (const [ek, ev] of Object.entries(v)) applyOne(op, doc, `${EXT}:${ek}`, ev);
      else applyOne(op, doc, k, v);
    }
  }
  return canonicalizeUser(doc);
}
