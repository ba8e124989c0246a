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

/** Parameter values to resolve a template text with (string or bool parameters). */
export type Bindings = Record<string, string | boolean>;

/**
 * The value of a condition made of one bound parameter (`p == 'x'`, `p != 'x'`, `p`, `!p`), or undefined
 * when the text is anything else.
 */
function atomValue(atom: string, bindings: Bindings): boolean | undefined {
  const cmp = /^\s*(\w+)\s*(==|!=)\s*'([^']*)'\s*$/.exec(atom);
  if (cmp && cmp[1] !== undefined && cmp[1] in bindings) {
    const equal = bindings[cmp[1]] === cmp[3];
    return cmp[2] === '==' ? equal : !equal;
  }
  const flag = /^\s*(!?)\s*(\w+)\s*$/.exec(atom);
  if (flag && flag[2] !== undefined && typeof bindings[flag[2]] === 'boolean') {
    const value = bindings[flag[2]] as boolean;
    return flag[1] === '!' ? !value : value;
  }
  return undefined;
}

/**
 * The template text as deployed with these parameter values, as far as they decide it: every ternary whose
 * condition starts with a bound parameter (`p == 'x' ? A : B`, `p ? A : B`, `p == 'x' && rest ? A : B`) is
 * replaced by the branch it takes (or by `rest ? A : B`). Comments are removed. Enough to read each mode of
 * the template as a compiler would produce it, without one.
 */
export function resolve(text: string, bindings: Bindings): string {
  let code = uncomment(text);
  for (let guard = 0; guard < 10_000; guard++) {
    const { masked } = scan(code);
    let replaced = false;
    for (let q = masked.indexOf('?'); q >= 0 && !replaced; q = masked.indexOf('?', q + 1)) {
      // `?.` and `??` are not ternaries.
      if (masked[q + 1] === '.' || masked[q + 1] === '?' || masked[q - 1] === '?') continue;
      // The condition: back to the start of the expression (an opening bracket, `:`, `,`, `=` or a line start).
      let start = q - 1;
      let depth = 0;
      while (start >= 0) {
        const c = masked[start];
        if (c === ')' || c === ']' || c === '}') depth++;
        else if (c === '(' || c === '[' || c === '{') {
          if (depth === 0) break;
          depth--;
        } else if (
          depth === 0 &&
          (c === '\n' ||
            c === ',' ||
            c === ':' ||
            (c === '=' && masked[start + 1] !== '=' && masked[start - 1] !== '=' && masked[start - 1] !== '!'))
        )
          break;
        start--;
      }
      start++;
      const condition = code.slice(start, q);
      const [first, ...rest] = condition.split('&&');
      const value = atomValue(first ?? '', bindings);
      if (value === undefined) continue;
      // The branches: A up to the `:` of this ternary, B up to the end of the expression.
      let colon = q + 1;
      for (let d = 0, nested = 0; colon < masked.length; colon++) {
        const c = masked[colon];
        if (c === '(' || c === '[' || c === '{') d++;
        else if (c === ')' || c === ']' || c === '}') d--;
        else if (d === 0 && c === '?') nested++;
        else if (d === 0 && c === ':') {
          if (nested === 0) break;
          nested--;
        }
      }
      let end = colon + 1;
      for (let d = 0; end < masked.length; end++) {
        const c = masked[end];
        if (c === '(' || c === '[' || c === '{') d++;
        else if (c === ')' || c === ']' || c === '}') {
          if (d === 0) break;
          d--;
        } else if (d === 0 && (c === '\n' || c === ',')) break;
      }
      const whenTrue = code.slice(q + 1, colon).trim();
      const whenFalse = code.slice(colon + 1, end).trim();
      const lead = /^\s*/.exec(condition)?.[0] ?? '';
      const chosen =
        value && rest.length > 0
          ? `${rest.join('&&').trim()} ? ${whenTrue} : ${whenFalse}`
          : value
            ? whenTrue
            : whenFalse;
      code = `${code.slice(0, start)}${lead}${chosen}${code.slice(end)}`;
      replaced = true;
    }
    if (!replaced) return code;
  }
  throw new Error('resolve: too many replacements');
}

/** Whether a declaration (`resource|module <symbol> … = if (<condition>)`) is deployed with these values. */
export function deployed(text: string, symbol: string, bindings: Bindings): boolean | undefined {
  const m = new RegExp(
    `^(?:resource|module)\\s+${symbol}\\s+'[^']+'\\s*(?:existing\\s*)?=\\s*(\\[\\s*for [^:]+:\\s*)?(if\\s*\\((.*)\\)\\s*)?\\{`,
    'm',
  ).exec(uncomment(text));
  if (!m) return undefined;
  if (m[3] === undefined) return true;
  // A conjunction: false when a bound part is false, true when every part is bound and true.
  const values = m[3].split('&&').map((part) => atomValue(part, bindings));
  if (values.includes(false)) return false;
  return values.every((v) => v === true) ? true : undefined;
}

/** The decorators written right above `param <name>` (comments removed). */
export function decoratorsOf(text: string, name: string): string {
  const code = uncomment(text);
  const at = code.search(new RegExp(`^param ${name}\\b`, 'm'));
  if (at < 0) return '';
  const before = code.slice(0, at).split(/\n(?=param |var |resource |module |output |targetScope)/);
  return (before[before.length - 1] ?? '').replace(/^(param|var|resource|module|output|targetScope)[^\n]*\n/, '');
}

/** The `{ name: 'X', value: … }` entries of `var <name> = [ … ]`, in order: name -> value expression. */
export function settingsList(bicep: string, varName: string): Map<string, string> {
  const s = scan(bicep);
  const m = new RegExp(`^var ${varName} = \\[`, 'm').exec(s.code);
  if (!m) return new Map();
  const open = m.index + m[0].length - 1;
  return appSettings(s.code.slice(open, closing(s.masked, open) + 1));
}

/** KEY=value lines of an azd environment preset (comments and blank lines skipped), in order. */
export function readPreset(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readInfra(file).split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out.set(m[1] ?? '', m[2] ?? '');
  }
  return out;
}
