/**
 * SCIM User bodies -> business-identity attributes (spec §2.1), in two steps:
 * 1. canonicalizeUser: attribute names in any case mapped to the canonical names of lib/scim/schema,
 *    accepted value variants normalised (boolean strings, enum case), ignored attributes dropped,
 *    unknown service-extension attributes rejected (invalidSyntax). Every object it builds has no
 *    prototype, so a key such as __proto__ is plain data and can never reach Object.prototype.
 * 2. toIdentityAttributes: validation (a JSON schema built from the attribute table, compiled once by
 *    ajv, with the table's value formats as ajv formats) and normalisation to the stored form, row by row.
 *    Errors are invalidValue; `detail` names the path, never the value.
 * Every problem of a body is collected, so a client learns them all in one round trip: one 400 whose
 * detail lists them, with the scimType of the first (see combinedError).
 */
import Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { IDENTITY_ATTRIBUTES, VALUE_FORMATS } from '../identities/attributes';
import type { AttributeRow, IdentityAttributeRow, ItemField } from '../identities/attributes';
import type { IdentityAttributes } from '../identities/model';
import type { FormatResult } from '../identities/formats';
import { CORE_ATTRIBUTES, CORE_USER_SCHEMA, SERVICE_ATTRIBUTES, SERVICE_USER_SCHEMA } from './schema';
import type { AttributeDefinition } from './schema';
import { ScimError, invalidSyntax, invalidValue } from './errors';

export type JsonObject = Record<string, unknown>;

/** 'put': read-only attributes are ignored (rule 3). 'patchResult': they cannot appear, so they are rejected. */
export type CanonicalizeMode = 'put' | 'patchResult';

/** The service extension of a User: the extension rows of the attribute table, values not yet validated. */
export type ScimServiceExtension = {
  [R in IdentityAttributeRow as R['scim']['schema'] extends 'extension' ? R['scim']['path'] : never]?: unknown;
};

/** A User with canonical attribute names; values are not yet validated. */
export interface ScimUserInput {
  externalId?: unknown;
  userName?: unknown;
  name?: { givenName?: unknown; familyName?: unknown };
  active?: unknown;
  [SERVICE_USER_SCHEMA]?: ScimServiceExtension;
}

/** The service extension URN: the key of the extension object and the prefix of its attribute paths. */
export const EXT = SERVICE_USER_SCHEMA;

// ---- helpers shared with the PATCH engine --------------------------------------------------

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object without prototype: every key, __proto__ included, is an own data property. */
export function safeObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

/** Deep copy of JSON data into prototype-free objects. */
export function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (!isJsonObject(value)) return value;
  const out = safeObject();
  for (const [k, v] of Object.entries(value)) out[k] = cloneJson(v);
  return out;
}

export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** `text` without `prefix` (compared in any case), or undefined when it does not start with it. */
export function stripPrefix(text: string, prefix: string): string | undefined {
  return text.length >= prefix.length && sameName(text.slice(0, prefix.length), prefix)
    ? text.slice(prefix.length)
    : undefined;
}

/** An attribute name for a `detail`; a key that does not look like a name may be a pasted value and is not shown. */
export function shownName(name: string): string {
  return /^[A-Za-z_$][\w$-]{0,63}$/.test(name) ? `'${name}'` : '(name not shown)';
}

export const readOnlyError = (path: string): ScimError => ScimError.mutability(`${path} is read-only`);

export const unknownExtensionAttributeError = (name: string): ScimError =>
  invalidSyntax(`Unknown attribute ${shownName(name)} in the service extension ${EXT}`);

// Maps, not object literals: a lookup of '__proto__' or 'constructor' must find nothing.
const byLowerName = (defs: readonly AttributeDefinition[] = []): ReadonlyMap<string, AttributeDefinition> =>
  new Map(defs.map((d) => [d.name.toLowerCase(), d]));
const CORE_BY_NAME = byLowerName(CORE_ATTRIBUTES);
const EXT_BY_NAME = byLowerName(SERVICE_ATTRIBUTES);
const SUB_BY_NAME: ReadonlyMap<AttributeDefinition, ReadonlyMap<string, AttributeDefinition>> = new Map(
  [...CORE_ATTRIBUTES, ...SERVICE_ATTRIBUTES]
    .filter((d) => d.subAttributes !== undefined)
    .map((d) => [d, byLowerName(d.subAttributes)]),
);

/** A core attribute by name in any case (read-only ones included). */
export const coreAttribute = (name: string): AttributeDefinition | undefined => CORE_BY_NAME.get(name.toLowerCase());
/** A service-extension attribute by name in any case (read-only ones included). */
export const extensionAttribute = (name: string): AttributeDefinition | undefined =>
  EXT_BY_NAME.get(name.toLowerCase());
/** A sub-attribute of a complex attribute by name in any case. */
export const subAttribute = (parent: AttributeDefinition, name: string): AttributeDefinition | undefined =>
  SUB_BY_NAME.get(parent)?.get(name.toLowerCase());
export const isReadOnly = (def: AttributeDefinition): boolean => def.mutability === 'readOnly';

const writableNames = (defs: readonly AttributeDefinition[]): string[] =>
  defs.filter((d) => !isReadOnly(d)).map((d) => d.name);

/** "True", "false", " TRUE " become booleans (Entra sends strings); anything else is left for validation. */
export function coerceBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const lower = value.trim().toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : value;
}

/** A value of an attribute with canonical values, in its canonical case ("EMPLOYMENT" -> "employment", "dkcpr" -> "DkCpr"). */
export function canonicalEnum(def: AttributeDefinition, value: unknown): unknown {
  if (typeof value !== 'string' || def.canonicalValues === undefined) return value;
  return def.canonicalValues.find((v) => sameName(v, value)) ?? value;
}

/** A core attribute value with the accepted variants normalised; unlisted sub-attributes of name are dropped (rule 4). */
export function canonicalCoreValue(def: AttributeDefinition, value: unknown): unknown {
  if (def.type === 'boolean') return coerceBoolean(value);
  if (def.type !== 'complex' || !isJsonObject(value)) return value;
  const out = safeObject();
  for (const [k, v] of Object.entries(value)) {
    const sub = subAttribute(def, k);
    if (sub !== undefined) out[sub.name] = v;
  }
  return out;
}

/** One item of a multi-valued extension attribute with canonical names; an unlisted sub-attribute is rule 5 (invalidSyntax). */
export function canonicalItem(list: AttributeDefinition, item: unknown, where: string): unknown {
  if (!isJsonObject(item)) return item;
  const out = safeObject();
  for (const [k, v] of Object.entries(item)) {
    const sub = subAttribute(list, k);
    if (sub === undefined) throw invalidSyntax(`Unknown attribute ${shownName(k)} in ${where}`);
    out[sub.name] = canonicalEnum(sub, v);
  }
  return out;
}

/** A service-extension attribute value with the accepted variants normalised. */
export function canonicalExtensionValue(
  def: AttributeDefinition,
  value: unknown,
  where = `${EXT}:${def.name}`,
): unknown {
  if (!def.multiValued) return canonicalEnum(def, value);
  return Array.isArray(value) ? value.map((item, i) => canonicalItem(def, item, `${where}[${i}]`)) : value;
}

// ---- step 1: canonical names -------------------------------------------------------------

/**
 * `schemas` inside the extension object: SCIM client libraries (Python, Java) send it when they
 * PUT or PATCH the extension as a whole. It says nothing about the User, so it is ignored.
 */
export const isSchemasMember = (name: string): boolean => sameName(name, 'schemas');

function putExtensionAttribute(ext: JsonObject, name: string, value: unknown, mode: CanonicalizeMode): void {
  if (isSchemasMember(name)) return;
  const def = extensionAttribute(name);
  if (def === undefined) throw unknownExtensionAttributeError(name);
  if (isReadOnly(def)) {
    if (mode === 'patchResult') throw readOnlyError(`${EXT}:${def.name}`);
    return;
  }
  ext[def.name] = canonicalExtensionValue(def, value);
}

/**
 * Canonical attribute names and value variants (see the module comment). Keys may carry the core
 * URN prefix; extension attributes may be nested under the extension URN or flattened as
 * `<extension URN>:<attribute>`. schemas, id, meta, unlisted core attributes and other schema
 * extensions are ignored.
 */
export function canonicalizeUser(
  body: unknown,
  mode: CanonicalizeMode = 'put',
  /** When given, problems are collected here (and the attribute left out) instead of thrown. */
  problems?: ScimError[],
): ScimUserInput {
  if (!isJsonObject(body)) throw invalidSyntax('The body must be a JSON object');
  const out = safeObject();
  let ext: JsonObject | undefined;
  const collect = (put: () => void): void => {
    if (problems === undefined) return put();
    try {
      put();
    } catch (err) {
      if (!(err instanceof ScimError)) throw err;
      problems.push(err);
    }
  };
  for (const [key, value] of Object.entries(body)) {
    if (sameName(key, EXT)) {
      if (!isJsonObject(value)) {
        collect(() => {
          throw invalidValue(`${EXT} must be an object`);
        });
        continue;
      }
      ext ??= safeObject();
      for (const [name, v] of Object.entries(value)) collect(() => putExtensionAttribute(ext!, name, v, mode));
      continue;
    }
    const flattened = stripPrefix(key, `${EXT}:`);
    if (flattened !== undefined) {
      ext ??= safeObject();
      collect(() => putExtensionAttribute(ext!, flattened, value, mode));
      continue;
    }
    const def = coreAttribute(stripPrefix(key, `${CORE_USER_SCHEMA}:`) ?? key);
    if (def === undefined) continue;
    if (isReadOnly(def)) {
      if (mode === 'patchResult') throw readOnlyError(def.name);
      continue;
    }
    out[def.name] = canonicalCoreValue(def, value);
  }
  if (ext !== undefined) out[EXT] = ext;
  return out as ScimUserInput;
}

// ---- step 2: validation ------------------------------------------------------------------

const ROWS: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;

const FORMATS: ReadonlyMap<string, { check: (v: string) => boolean; problem: string }> = new Map(
  Object.entries(VALUE_FORMATS).map(([name, f]) => [
    name,
    { check: (v: string) => f.normalize(v).ok, problem: f.scimProblem },
  ]),
);

const text = (maxLength: number | undefined, format: string | undefined): JsonObject => ({
  type: 'string',
  minLength: 1,
  // A format without a length limit bounds the length itself (all format checks are anchored and linear).
  ...(maxLength === undefined ? {} : { maxLength }),
  ...(format === undefined ? {} : { format }),
});

/** The JSON schema of a value of a row (or of an item field). */
function valueSchema(field: AttributeRow | ItemField): JsonObject {
  if (field.type === 'boolean') return { type: 'boolean' };
  if (field.type === 'enum') return { type: 'string', enum: (field.values ?? []).map((v) => v.model) };
  if (field.type === 'string') return text(field.maxLength, field.format);
  const items = (field as AttributeRow).items ?? [];
  return {
    type: 'array',
    ...((field as AttributeRow).maxItems === undefined ? {} : { maxItems: (field as AttributeRow).maxItems }),
    items: {
      type: 'object',
      required: items.map((f) => f.name),
      additionalProperties: false,
      properties: Object.fromEntries(items.map((f) => [f.name, valueSchema(f)])),
    },
  };
}

/** The JSON schema of a User of one schema's rows: `name.givenName` nests givenName in the object name. */
function objectSchema(rows: readonly AttributeRow[], extra: JsonObject = {}, required: string[] = []): JsonObject {
  const properties: JsonObject = {};
  const nested = new Map<string, AttributeRow[]>();
  for (const row of rows) {
    const [top = '', sub] = row.scim.path.split('.');
    if (sub === undefined) {
      properties[top] = valueSchema(row);
      if (row.scim.required) required.push(top);
      continue;
    }
    const children = nested.get(top) ?? [];
    if (children.length === 0) {
      nested.set(top, children);
      properties[top] = {};
    }
    children.push({ ...row, scim: { ...row.scim, path: sub } });
  }
  for (const [top, children] of nested) {
    properties[top] = objectSchema(children);
    if (children.some((c) => c.scim.required)) required.push(top);
  }
  return { type: 'object', required: [...required, ...Object.keys(extra)], properties: { ...properties, ...extra } };
}

const USER_SCHEMA = objectSchema(
  ROWS.filter((r) => r.scim.schema === 'core'),
  { [EXT]: objectSchema(ROWS.filter((r) => r.scim.schema === 'extension')) },
);

const ajv = new Ajv({ allErrors: true, strict: true });
for (const [name, f] of FORMATS) ajv.addFormat(name, { type: 'string', validate: f.check });
const validateUser = ajv.compile<JsonObject>(USER_SCHEMA);

const CORE_KEYS = [...writableNames(CORE_ATTRIBUTES), EXT];
const NAME_KEYS = writableNames(coreAttribute('name')?.subAttributes ?? []);
const EXT_KEYS = writableNames(SERVICE_ATTRIBUTES);
/** Items of a list validated at most: one beyond its limit still fails maxItems, and a huge list costs no more. */
const LIST_LIMITS: ReadonlyMap<string, number> = new Map(
  ROWS.flatMap((r) => (r.type === 'list' && r.maxItems !== undefined ? [[r.scim.path, r.maxItems] as const] : [])),
);
const EMPTY_MEANS_ABSENT = ROWS.filter((r) => r.scim.emptyMeansAbsent === true);
/** Problems named in one answer at most (the count says how many there were). */
export const MAX_LISTED_PROBLEMS = 20;

/** Own values of `keys` (or of all keys), without null: null for an attribute means absent. */
function presentValues(source: JsonObject, keys: readonly string[] = Object.keys(source)): JsonObject {
  const out = safeObject();
  for (const k of keys) {
    const v = Object.hasOwn(source, k) ? source[k] : undefined;
    if (v !== null && v !== undefined) out[k] = v;
  }
  return out;
}

/** Attributes whose empty string means absent (the empty UPN means "not asserted"). */
function dropEmpty(values: JsonObject, schema: 'core' | 'extension'): void {
  for (const row of EMPTY_MEANS_ABSENT)
    if (row.scim.schema === schema && values[row.scim.path] === '') delete values[row.scim.path];
}

/** What the schema sees: only canonical attributes, absent values dropped, empty values meaning absent dropped. */
function validationInput(user: ScimUserInput): JsonObject {
  const input = presentValues(user as JsonObject, CORE_KEYS);
  dropEmpty(input, 'core');
  if (isJsonObject(input.name)) input.name = presentValues(input.name, NAME_KEYS);
  const extValue = input[EXT];
  if (isJsonObject(extValue)) {
    const ext = presentValues(extValue, EXT_KEYS);
    dropEmpty(ext, 'extension');
    for (const [list, limit] of LIST_LIMITS) {
      const items = ext[list];
      if (Array.isArray(items))
        ext[list] = items.slice(0, limit + 1).map((item: unknown) => (isJsonObject(item) ? presentValues(item) : item));
    }
    input[EXT] = ext;
  }
  return input;
}

/** `/<ext URN>/personalNumbers/0/value` -> `<ext URN>:personalNumbers[0].value`. Segments are schema names or indexes. */
function attributePath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  let out = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else if (out === '') out = s;
    else out += out === EXT ? `:${s}` : `.${s}`;
  }
  return out === '' ? 'The User' : out;
}

/** The detail of the first schema error, built from the path and the keyword only (ajv messages are not passed on). */
function describeError(e: ErrorObject | undefined): string {
  if (e === undefined) return 'The User is not valid';
  const at = attributePath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${attributePath(e.instancePath, String(p.missingProperty))} is required`;
    case 'type':
      return `${at} must be of type ${String(p.type)}`;
    case 'minLength':
      return `${at} must not be empty`;
    case 'maxLength':
      return `${at} must be at most ${String(p.limit)} characters`;
    case 'maxItems':
      return `${at} must have at most ${String(p.limit)} items`;
    case 'enum':
      // allowedValues come from the schema, not from the request.
      return `${at} must be one of ${(Array.isArray(p.allowedValues) ? p.allowedValues : []).map(String).join(', ')}`;
    case 'format':
      return `${at} ${FORMATS.get(String(p.format))?.problem ?? 'has an invalid format'}`;
    case 'additionalProperties':
      return `${at} has an unknown attribute ${shownName(String(p.additionalProperty))}`;
    default:
      return `${at} is not valid`;
  }
}

/** The schema errors, one per attribute (a value may fail several keywords), in the order ajv found them. */
function schemaProblems(errors: readonly ErrorObject[]): ScimError[] {
  const seen = new Set<string>();
  const out: ScimError[] = [];
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    const at = e.keyword === 'required' ? attributePath(e.instancePath, String(p.missingProperty)) : e.instancePath;
    if (seen.has(at)) continue;
    seen.add(at);
    out.push(invalidValue(describeError(e)));
  }
  return out.length > 0 ? out : [invalidValue(describeError(undefined))];
}

/**
 * One error for every problem of a body: the problem itself when there is one; otherwise a 400 with
 * the scimType of the first and a detail listing them (at most MAX_LISTED_PROBLEMS), never a value.
 */
export function combinedError(problems: readonly ScimError[]): ScimError | undefined {
  const [first] = problems;
  if (first === undefined || problems.length === 1) return first;
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => p.detail);
  const more = problems.length > listed.length ? `; and ${problems.length - listed.length} more` : '';
  return first.withDetail(`The User has ${problems.length} problems: ${listed.join('; ')}${more}`);
}

function normalised(result: FormatResult, path: string, problems: ScimError[]): string {
  if (result.ok) return result.value;
  problems.push(invalidValue(`${path} ${result.reason}`));
  return '';
}

/** The SCIM path of a row in a `detail`: core paths as they are, extension paths after the extension URN. */
const detailPath = (row: AttributeRow): string =>
  row.scim.schema === 'core' ? row.scim.path : `${EXT}:${row.scim.path}`;

/** The value at a row's path in a User (its core attributes or its extension object). */
function valueAt(user: JsonObject, row: AttributeRow): unknown {
  let at: unknown = row.scim.schema === 'core' ? user : user[EXT];
  for (const segment of row.scim.path.split('.')) at = isJsonObject(at) ? at[segment] : undefined;
  return at;
}

/** Sets the value at a row's path within its schema's object (the core attributes or the extension object). */
function setValueAt(values: JsonObject, row: AttributeRow, value: unknown): void {
  let at = values;
  const segments = row.scim.path.split('.');
  const last = segments.pop() ?? row.scim.path;
  for (const segment of segments) {
    if (!isJsonObject(at[segment])) at[segment] = {};
    at = at[segment] as JsonObject;
  }
  at[last] = value;
}

/** A validated value in its stored form (a format's normal form; a CPR number without dash, a country in capitals). */
function storedValue(field: AttributeRow | ItemField, value: unknown, path: string, problems: ScimError[]): unknown {
  if (field.format === undefined || typeof value !== 'string') return value;
  return normalised(VALUE_FORMATS[field.format].normalize(value), path, problems);
}

/** The items of a validated list, their fields in table order. */
function storedList(row: AttributeRow, items: readonly JsonObject[], problems: ScimError[]): JsonObject[] {
  const path = detailPath(row);
  const seen = new Set<unknown>();
  return items.map((item, i) => {
    if (row.oneItemPerType !== undefined) {
      if (seen.has(item.type)) problems.push(invalidValue(`${path}[${i}] ${row.oneItemPerType.scimProblem}`));
      seen.add(item.type);
    }
    const out: JsonObject = {};
    for (const f of row.items ?? []) out[f.name] = storedValue(f, item[f.name], `${path}[${i}].${f.name}`, problems);
    return out;
  });
}

/** Validates and normalises a canonical User; every problem is thrown in one 400 (combinedError). */
export function toIdentityAttributes(user: ScimUserInput, earlier: readonly ScimError[] = []): IdentityAttributes {
  const input = validationInput(user);
  if (!validateUser(input))
    throw (
      combinedError([...earlier, ...schemaProblems(validateUser.errors ?? [])]) ?? invalidValue('The User is not valid')
    );
  const problems: ScimError[] = [...earlier];
  const attrs: JsonObject = {};
  for (const row of ROWS) {
    const value = valueAt(input, row);
    if (row.type === 'list') attrs[row.name] = storedList(row, Array.isArray(value) ? value : [], problems);
    else if (value !== undefined) attrs[row.name] = storedValue(row, value, detailPath(row), problems);
    else if (row.default !== undefined) attrs[row.name] = row.default;
  }
  const error = combinedError(problems);
  if (error) throw error;
  return attrs as IdentityAttributes;
}

/** The body of a POST or PUT names the core and the extension schema (spec §2.1); other URNs are ignored. */
export function checkUserSchemas(body: unknown): void {
  if (!isJsonObject(body)) return;
  const key = Object.keys(body).find(isSchemasMember);
  const schemas = key === undefined ? undefined : body[key];
  const names = Array.isArray(schemas) ? schemas.filter((s): s is string => typeof s === 'string') : [];
  if (![CORE_USER_SCHEMA, EXT].every((urn) => names.some((n) => sameName(n, urn)))) {
    throw invalidValue(`schemas must contain ${CORE_USER_SCHEMA} and ${EXT}`);
  }
}

/** A PUT or POST body -> validated attributes. */
export function parseScimUser(body: unknown): IdentityAttributes {
  const problems: ScimError[] = [];
  const user = canonicalizeUser(body, 'put', problems);
  return toIdentityAttributes(user, problems);
}

/** The canonical SCIM form of stored attributes (the base a PATCH applies to). Lists are copied. */
export function identityToScimInput(a: IdentityAttributes): ScimUserInput {
  const { core, ext } = identityToScimValues(a, 'withEmptyLists');
  return { ...core, [EXT]: ext } as ScimUserInput;
}

/**
 * Stored attributes as SCIM values, core and extension apart, in table order. Unassigned attributes are left out
 * (RFC 7643 §2.5), and so are empty lists unless `withEmptyLists` (the base of a PATCH has them). Lists are copied.
 */
export function identityToScimValues(
  a: IdentityAttributes,
  lists: 'withEmptyLists' | 'withoutEmptyLists' = 'withoutEmptyLists',
): { core: JsonObject; ext: JsonObject } {
  const core: JsonObject = {};
  const ext: JsonObject = {};
  for (const row of ROWS) {
    const value = (a as Record<string, unknown>)[row.name];
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0 && lists === 'withoutEmptyLists') continue;
    const copy = Array.isArray(value) ? value.map((item: JsonObject) => copyItem(row, item)) : value;
    setValueAt(row.scim.schema === 'core' ? core : ext, row, copy);
  }
  return { core, ext };
}

/** An item of a list with the fields of its row, in table order. */
function copyItem(row: AttributeRow, item: JsonObject): JsonObject {
  return Object.fromEntries((row.items ?? []).map((f) => [f.name, item[f.name]]));
}
