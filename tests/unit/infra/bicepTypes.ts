/**
 * What the Bicep compiler reports as BCP037 ("the property is not allowed on objects of type …"), checked
 * without it: every property the template writes, at every level it writes an object literal, must be a
 * writable property of the resource type at its API version. The allowed properties come from
 * tests/unit/infra/fixtures/bicep-types.json, extracted from Azure/bicep-types-az by
 * infra/scripts/bicep-types-fixture.js for exactly the resource types and versions the template uses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Scanned, closing, objectKeys, objectValueStart, resources, scan } from './bicepText';

/** Property name -> its type: '' (scalar or any), 'Name' (an object type) or 'Name[]' (an array of them). */
type Properties = Record<string, string>;

export interface TypesFixture {
  source: string;
  resources: Record<string, { file: string; scope: string; properties: Properties }>;
  /** Per types.md (scope), per type name: its properties, or { '*': '' } for a dictionary (any key). */
  types: Record<string, Record<string, Properties>>;
}

export function loadTypesFixture(): TypesFixture {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'bicep-types.json'), 'utf8')) as TypesFixture;
}

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
 * the property's value and are skipped. `inArray` tells which of them are array elements.
 */
function objectLiterals(s: Scanned, start: number, end: number): Array<{ open: number; inArray: boolean }> {
  const found: Array<{ open: number; inArray: boolean }> = [];
  const stack: Array<'array' | 'union' | 'call'> = [];
  for (let i = start; i < end; i++) {
    const c = s.masked[i];
    if (c === '{') {
      if (stack.every((k) => k !== 'call')) found.push({ open: i, inArray: stack.includes('array') });
      i = closing(s.masked, i);
    } else if (c === '[') stack.push('array');
    else if (c === '(') stack.push(/\bunion\s*$/.test(s.code.slice(Math.max(0, i - 12), i)) ? 'union' : 'call');
    else if (c === ']' || c === ')') stack.pop();
  }
  return found;
}

function check(
  s: Scanned,
  open: number,
  allowed: Properties,
  types: Record<string, Properties>,
  where: string,
  top: boolean,
  out: string[],
): void {
  if ('*' in allowed) return;
  for (const key of objectKeys(s, open)) {
    if (top && DECLARATION_KEYWORDS.has(key)) continue;
    if (!(key in allowed)) {
      out.push(`${where}.${key}`);
      continue;
    }
    const type = allowed[key] ?? '';
    if (type === '') continue;
    const at = objectValueStart(s, open, key);
    if (at === undefined) continue;
    const element = type.endsWith('[]');
    const nested = types[type.replace(/\[\]$/, '')];
    if (!nested) {
      out.push(`${where}.${key}: type ${type} missing from the fixture`);
      continue;
    }
    for (const literal of objectLiterals(s, at, valueEnd(s.masked, at))) {
      // An object where an array is expected (or the reverse) is a type error of its own; not checked here.
      if (literal.inArray !== element) continue;
      check(s, literal.open, nested, types, `${where}.${key}${element ? '[]' : ''}`, false, out);
    }
  }
}

/**
 * The properties a Bicep text writes that its resource types do not have, as `file: symbol.path.key`
 * (empty when all exist), and the resource types missing from the fixture.
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
    check(s, r.open, resource.properties, fixture.types[resource.scope] ?? {}, `${file}: ${r.symbol}`, true, out);
  }
  return out;
}
