/**
 * What the Bicep compiler checks against the resource types, checked without it: every property the template
 * writes, at every level it writes an object literal, must be a writable property of the resource type at its
 * API version (BCP037); a string literal given to a property with listed values must be one of them (BCP036 /
 * BCP088); an object literal must hold the properties its type requires (BCP035); a discriminated object
 * (`odata.type`, a backup policy's `type`, …) is checked against the variant its discriminator names. The
 * container definitions loaded from infra/cosmos-containers.json are checked the same way as JSON.
 * The types come from tests/unit/infra/fixtures/bicep-types.json, extracted from Azure/bicep-types-az by
 * infra/scripts/bicep-types-fixture.js for exactly the resource types and versions the template uses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Scanned, closing, literal, objectKeys, objectValueStart, resources, scan } from './bicepText';

/** A property: its type ('' scalar, 'Name' object type, 'Name[]' array of them), listed values, required. */
export interface PropertySpec {
  type: string;
  enum?: string[];
  /** `| string`: other strings are accepted besides the listed ones. */
  open?: boolean;
  /** The listed values are those of the elements of an array. */
  array?: boolean;
  required?: boolean;
}

export type Properties = Record<string, PropertySpec>;

export interface TypeSpec {
  properties: Properties;
  /** A dictionary: any key. */
  additional?: boolean;
  /** The property whose value picks one of `variants`. */
  discriminator?: string;
  variants?: Record<string, Properties>;
}

export interface TypesFixture {
  source: string;
  resources: Record<string, TypeSpec & { file: string; scope: string }>;
  /** Per types.md (scope), per type name. */
  types: Record<string, Record<string, TypeSpec>>;
}

export function loadTypesFixture(): TypesFixture {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'bicep-types.json'), 'utf8')) as TypesFixture;
}

/**
 * Values Azure accepts that the generated types do not list (an open enum: `| string`). Empty: every value the
 * template writes is listed.
 */
const ACCEPTED_UNLISTED: ReadonlySet<string> = new Set<string>();

/** Keywords of a resource declaration's body that are not properties of its type. */
const DECLARATION_KEYWORDS = new Set(['parent', 'scope', 'dependsOn']);

/** Index just past the value that starts at `start` (the end of its entry in the enclosing object). */
function valueEnd(masked: string, start: number): number {
  let depth = 0;
  for (let i = start; i < masked.length; i++) {
    const c = masked[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (c === '\n' || c === ',')) return i;
  }
  return masked.length;
}

/**
 * The object literals a value expression gives its property: the value itself, the branches of a ternary,
 * the elements of an array literal, and the arguments of union(). Objects passed to other functions are not
 * the property's value and are skipped. `inArray` tells which of them are array elements; `partial` those that
 * are one argument of union() (the others complete them, so their required properties are not checked).
 */
function objectLiterals(
  s: Scanned,
  start: number,
  end: number,
): Array<{ open: number; inArray: boolean; partial: boolean }> {
  const found: Array<{ open: number; inArray: boolean; partial: boolean }> = [];
  const stack: Array<'array' | 'union' | 'call'> = [];
  for (let i = start; i < end; i++) {
    const c = s.masked[i];
    if (c === '{') {
      if (stack.every((k) => k !== 'call'))
        found.push({ open: i, inArray: stack.includes('array'), partial: stack.includes('union') });
      i = closing(s.masked, i);
    } else if (c === '[') stack.push('array');
    else if (c === '(') stack.push(/\bunion\s*$/.test(s.code.slice(Math.max(0, i - 12), i)) ? 'union' : 'call');
    else if (c === ']' || c === ')') stack.pop();
  }
  return found;
}

/**
 * The string literals a value expression can take: the literal itself, each literal branch of a ternary
 * (`cond ? 'a' : 'b'`), or each element of an array of literals. Anything computed is not listed.
 */
function literalValues(code: string): string[] {
  const text = code.trim();
  const whole = literal(text);
  if (whole !== undefined) return [whole];
  const array = /^\[([\s\S]*)\]$/.exec(text);
  if (array) {
    const items = (array[1] ?? '')
      .split(/[\n,]/)
      .map((x) => x.trim())
      .filter(Boolean);
    const values = items.map((x) => literal(x));
    return values.every((v) => v !== undefined) ? (values as string[]) : [];
  }
  // A ternary: the branches after the first top-level `?`.
  const q = text.indexOf('?');
  if (q > 0 && !text.includes('(')) {
    const branches = text.slice(q + 1).split(':');
    return branches.map((b) => literal(b.trim())).filter((v): v is string => v !== undefined);
  }
  return [];
}

function enumProblem(where: string, spec: PropertySpec, values: readonly string[]): string | undefined {
  if (!spec.enum) return undefined;
  const wrong = values.filter((v) => !spec.enum?.includes(v) && !(spec.open && ACCEPTED_UNLISTED.has(v)));
  return wrong.length > 0 ? `${where}: '${wrong.join("', '")}' is not one of [${spec.enum.join(', ')}]` : undefined;
}

/** The properties of a type as one object takes them: the base, and the variant its discriminator names. */
function allowedFor(
  type: TypeSpec,
  discriminatorValue: string | undefined,
  where: string,
  out: string[],
): Properties | undefined {
  if (!type.discriminator || !type.variants) return type.properties;
  if (discriminatorValue === undefined) {
    // Computed: any variant's properties.
    return Object.assign({}, type.properties, ...Object.values(type.variants)) as Properties;
  }
  const variant = type.variants[discriminatorValue];
  if (!variant) {
    out.push(
      `${where}.${type.discriminator}: '${discriminatorValue}' is not one of [${Object.keys(type.variants).join(', ')}]`,
    );
    return undefined;
  }
  return { ...type.properties, ...variant };
}

function check(
  s: Scanned,
  open: number,
  type: TypeSpec,
  types: Record<string, TypeSpec>,
  where: string,
  top: boolean,
  complete: boolean,
  out: string[],
): void {
  if (type.additional) return;
  const keys = objectKeys(s, open);
  const valueText = (key: string): string | undefined => {
    const at = valueStart(s, open, key);
    return at === undefined ? undefined : s.code.slice(at, valueEnd(s.masked, at));
  };
  let discriminatorValue: string | undefined;
  if (type.discriminator) {
    if (!keys.includes(type.discriminator)) {
      if (complete) out.push(`${where}: missing required ${type.discriminator}`);
    } else discriminatorValue = literal(valueText(type.discriminator) ?? '');
  }
  const allowed = allowedFor(type, discriminatorValue, where, out);
  if (!allowed) return;
  for (const key of keys) {
    if (top && DECLARATION_KEYWORDS.has(key)) continue;
    const spec = allowed[key];
    if (!spec) {
      out.push(`${where}.${key}`);
      continue;
    }
    const at = valueStart(s, open, key);
    if (at === undefined) continue;
    const end = valueEnd(s.masked, at);
    const problem = enumProblem(`${where}.${key}`, spec, literalValues(s.code.slice(at, end)));
    if (problem) out.push(problem);
    if (spec.type === '') continue;
    const element = spec.type.endsWith('[]');
    const nested = types[spec.type.replace(/\[\]$/, '')];
    if (!nested) {
      out.push(`${where}.${key}: type ${spec.type} missing from the fixture`);
      continue;
    }
    for (const lit of objectLiterals(s, at, end)) {
      // An object where an array is expected (or the reverse) is a type error of its own; not checked here.
      if (lit.inArray !== element) continue;
      check(s, lit.open, nested, types, `${where}.${key}${element ? '[]' : ''}`, false, !lit.partial, out);
    }
  }
  if (!complete) return;
  // A computed discriminator: only the base's required properties are known to apply.
  const required = type.discriminator && discriminatorValue === undefined ? type.properties : allowed;
  for (const [name, spec] of Object.entries(required))
    if (spec.required && !keys.includes(name)) out.push(`${where}: missing required ${name}`);
}

/** Where the value of `key` starts in the object at `open`; the key written bare or quoted ('odata.type'). */
function valueStart(s: Scanned, open: number, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  return objectValueStart(s, open, escaped) ?? objectValueStart(s, open, `'${escaped}'`);
}

/**
 * What a Bicep text writes that its resource types do not accept, as `file: symbol.path.key` for an unknown
 * property, `…: 'value' is not one of [...]` for a value not listed, `…: missing required name` for a required
 * property left out; and the resource types missing from the fixture. Empty when all is well.
 */
export function unknownProperties(file: string, text: string, fixture: TypesFixture): string[] {
  const s = scan(text);
  const out: string[] = [];
  for (const r of resources(text)) {
    if (r.existing) continue;
    const key = `${r.target}@${r.apiVersion ?? ''}`;
    const resource = fixture.resources[key];
    if (!resource) {
      out.push(`${file}: ${r.symbol}: ${key} is not in the fixture (run infra/scripts/bicep-types-fixture.js)`);
      continue;
    }
    const types = fixture.types[resource.scope] ?? {};
    check(s, r.open, resource, types, `${file}: ${r.symbol}`, true, true, out);
  }
  return out;
}

/** The same checks on a JSON value (a definition loaded with loadJsonContent) against a type of the fixture. */
export function jsonProblems(
  value: unknown,
  type: TypeSpec,
  types: Record<string, TypeSpec>,
  where: string,
  out: string[] = [],
): string[] {
  if (type.additional || typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  const object = value as Record<string, unknown>;
  const discriminator = type.discriminator ? object[type.discriminator] : undefined;
  const allowed = allowedFor(type, typeof discriminator === 'string' ? discriminator : undefined, where, out);
  if (!allowed) return out;
  for (const [key, v] of Object.entries(object)) {
    const spec = allowed[key];
    if (!spec) {
      out.push(`${where}.${key}`);
      continue;
    }
    const strings = Array.isArray(v)
      ? v.filter((x): x is string => typeof x === 'string')
      : typeof v === 'string'
        ? [v]
        : [];
    const problem = enumProblem(`${where}.${key}`, spec, strings);
    if (problem) out.push(problem);
    if (spec.type === '') continue;
    const nested = types[spec.type.replace(/\[\]$/, '')];
    if (!nested) {
      out.push(`${where}.${key}: type ${spec.type} missing from the fixture`);
      continue;
    }
    if (spec.type.endsWith('[]') && Array.isArray(v))
      v.forEach((item, i) => jsonProblems(item, nested, types, `${where}.${key}[${i}]`, out));
    else jsonProblems(v, nested, types, `${where}.${key}`, out);
  }
  for (const [name, spec] of Object.entries(allowed))
    if (spec.required && !(name in object)) out.push(`${where}: missing required ${name}`);
  return out;
}
