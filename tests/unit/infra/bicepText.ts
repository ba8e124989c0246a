/**
 * Just enough Bicep reading for structural tests without the Bicep CLI: comments are removed
 * (string-aware, so 'https://…' survives), string contents can be masked so braces inside strings do
 * not count, and declarations (param, output, resource, module) and object keys are found by position.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const INFRA = path.join(ROOT, 'infra');

export function readInfra(file: string): string {
  return fs.readFileSync(path.join(INFRA, file), 'utf8');
}

/** Every .bicep file of the template, relative to infra/. */
export function bicepFiles(): string[] {
  const modules = fs
    .readdirSync(path.join(INFRA, 'modules'))
    .filter((f) => f.endsWith('.bicep'))
    .sort()
    .map((f) => `modules/${f}`);
  return ['main.bicep', ...modules];
}

/** Every .bicep file of the template, concatenated. */
export function allBicep(): string {
  return bicepFiles().map(readInfra).join('\n');
}

export interface Scanned {
  /** The text with comments blanked (same length and line breaks as the source). */
  code: string;
  /** `code` with the contents of strings (and their interpolations) blanked as well; quotes stay. */
  masked: string;
}

type Frame = { mode: 'str' } | { mode: 'interp'; depth: number };

export function scan(text: string): Scanned {
  const code = text.split('');
  const masked = text.split('');
  const blank = (i: number, inCode: boolean): void => {
    if (text[i] === '\n') return;
    masked[i] = ' ';
    if (inCode) code[i] = ' ';
  };
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const top = stack[stack.length - 1];
    const c = text[i];
    const next = text[i + 1];
    if (!top || top.mode === 'interp') {
      if (c === '/' && next === '/') {
        while (i < text.length && text[i] !== '\n') blank(i++, true);
        continue;
      }
      if (c === '/' && next === '*') {
        const end = text.indexOf('*/', i + 2);
        const stop = end < 0 ? text.length : end + 2;
        while (i < stop) blank(i++, true);
        continue;
      }
      if (text.startsWith("'''", i)) {
        const end = text.indexOf("'''", i + 3);
        const stop = end < 0 ? text.length : end + 3;
        for (let j = i + 3; j < stop - 3; j++) blank(j, false);
        i = stop;
        continue;
      }
      if (c === "'") {
        stack.push({ mode: 'str' });
        i++;
        continue;
      }
      if (top) {
        if (c === '{') top.depth++;
        else if (c === '}') {
          if (top.depth === 0) {
            stack.pop();
            blank(i++, false);
            continue;
          }
          top.depth--;
        }
        blank(i++, false);
        continue;
      }
      i++;
      continue;
    }
    if (c === '\\') {
      blank(i, false);
      if (i + 1 < text.length) blank(i + 1, false);
      i += 2;
      continue;
    }
    if (c === '$' && next === '{') {
      blank(i, false);
      blank(i + 1, false);
      stack.push({ mode: 'interp', depth: 0 });
      i += 2;
      continue;
    }
    if (c === "'") {
      stack.pop();
      i++;
      continue;
    }
    blank(i++, false);
  }
  return { code: code.join(''), masked: masked.join('') };
}

/** The text without comments. */
export function uncomment(text: string): string {
  return scan(text).code;
}

/** Index of the bracket closing the one at `open` (any of {[( ), counted on masked text. */
export function closing(masked: string, open: number): number {
  let depth = 0;
  for (let i = open; i < masked.length; i++) {
    const c = masked[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  throw new Error(`unbalanced bracket at ${open}`);
}

/** Keys of the object literal opening at `open` (top level only; multi-line or comma-separated). */
export function objectKeys(s: Scanned, open: number): string[] {
  const close = closing(s.masked, open);
  const keys: string[] = [];
  let depth = 0;
  let start = open + 1;
  const take = (end: number): void => {
    const m = /^\s*([A-Za-z_]\w*|'[^']*')\s*:/.exec(s.code.slice(start, end));
    if (m?.[1]) keys.push(m[1].replace(/^'|'$/g, ''));
  };
  for (let i = open + 1; i < close; i++) {
    const c = s.masked[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (depth === 0 && (c === '\n' || c === ',')) {
      take(i);
      start = i + 1;
    }
  }
  take(close);
  return keys;
}

/** The value text of `key:` at the top level of the object opening at `open`, or undefined. */
export function objectValueStart(s: Scanned, open: number, key: string): number | undefined {
  const close = closing(s.masked, open);
  let depth = 0;
  const re = new RegExp(`^\\s*${key}\\s*:\\s*`);
  let lineStart = open + 1;
  for (let i = open + 1; i <= close; i++) {
    const c = s.masked[i];
    if (depth === 0 && (i === close || c === '\n' || c === ',')) {
      const m = re.exec(s.code.slice(lineStart, i));
      if (m) return lineStart + m[0].length;
      lineStart = i + 1;
    }
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
  }
  return undefined;
}

export interface Param {
  name: string;
  type: string;
  hasDefault: boolean;
}

export function params(text: string): Param[] {
  return [...uncomment(text).matchAll(/^param\s+(\w+)\s+([\w.]+)(\s*=)?/gm)].map((m) => ({
    name: m[1] ?? '',
    type: m[2] ?? '',
    hasDefault: m[3] !== undefined,
  }));
}

export interface Output {
  name: string;
  type: string;
  expression: string;
}

export function outputList(text: string): Output[] {
  return [...uncomment(text).matchAll(/^output\s+(\w+)\s+(\w+)\s*=\s*(.+)$/gm)].map((m) => ({
    name: m[1] ?? '',
    type: m[2] ?? '',
    expression: (m[3] ?? '').trim(),
  }));
}

/** `output NAME type = …` names. */
export function outputs(text: string): string[] {
  return outputList(text).map((o) => o.name);
}

export interface Declaration {
  symbol: string;
  /** Resource type (resources) or module path (modules). */
  target: string;
  apiVersion?: string;
  existing: boolean;
  /** Index of the body's opening brace in the scanned text. */
  open: number;
  body: string;
}

function declarations(text: string, re: RegExp, kind: 'resource' | 'module'): Declaration[] {
  const s = scan(text);
  const out: Declaration[] = [];
  for (const m of s.code.matchAll(re)) {
    const from = (m.index ?? 0) + m[0].length;
    const open = s.masked.indexOf('{', from);
    const close = closing(s.masked, open);
    const target = m[2] ?? '';
    out.push({
      symbol: m[1] ?? '',
      target: kind === 'resource' ? (target.split('@')[0] ?? '') : target,
      apiVersion: kind === 'resource' ? target.split('@')[1] : undefined,
      existing: /\bexisting\b/.test(m[0]),
      open,
      body: s.code.slice(open, close + 1),
    });
  }
  return out;
}

export function resources(text: string): Declaration[] {
  return declarations(text, /^resource\s+(\w+)\s+'([^']+)'\s*(existing\s*)?=\s*/gm, 'resource');
}

export function modules(text: string): Declaration[] {
  return declarations(text, /^module\s+(\w+)\s+'([^']+)'\s*=\s*/gm, 'module');
}

/** Names of the params passed in a module call. */
export function moduleParams(text: string, mod: Declaration): string[] {
  const s = scan(text);
  const at = objectValueStart(s, mod.open, 'params');
  if (at === undefined) return [];
  return objectKeys(s, s.masked.indexOf('{', at));
}

/** App settings declared as `{ name: 'X', value: … }` (one per line), comments ignored: name -> value expression. */
export function appSettings(bicep: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of uncomment(bicep).matchAll(/\{\s*name:\s*'([A-Za-z0-9_]+)'\s*,\s*value:\s*(.*?)\s*\}\s*$/gm)) {
    found.set(m[1] ?? '', m[2] ?? '');
  }
  return found;
}

/** App setting names declared in a Bicep text. */
export function appSettingNames(bicep: string): Set<string> {
  return new Set(appSettings(bicep).keys());
}

/** The setting names the code reads that the template does not set. */
export function missingSettings(bicep: string, names: readonly string[]): string[] {
  const declared = appSettingNames(bicep);
  return names.filter((n) => !declared.has(n));
}

/** The value of a Bicep string literal ('…' without interpolation), or undefined for any other expression. */
export function literal(expression: string): string | undefined {
  const m = /^'((?:[^'\\$]|\\.|\$(?!\{))*)'$/.exec(expression.trim());
  return m ? (m[1] ?? '').replace(/\\(.)/g, '$1') : undefined;
}

/** Keys of the Function App's `properties` and of its `siteConfig` (comments ignored). */
export function siteProperties(bicep: string): { properties: string[]; siteConfig: string[] } {
  const site = resources(bicep).find((r) => r.target === 'Microsoft.Web/sites' && !r.existing);
  if (!site) return { properties: [], siteConfig: [] };
  const s = scan(bicep);
  const propsAt = objectValueStart(s, site.open, 'properties');
  if (propsAt === undefined) return { properties: [], siteConfig: [] };
  const propsOpen = s.masked.indexOf('{', propsAt);
  const configAt = objectValueStart(s, propsOpen, 'siteConfig');
  return {
    properties: objectKeys(s, propsOpen),
    siteConfig: configAt === undefined ? [] : objectKeys(s, s.masked.indexOf('{', configAt)),
  };
}
