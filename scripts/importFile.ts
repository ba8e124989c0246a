/**
 * The import client's JSON file: a JSON array of identities in the GraphQL input shape (plus
 * `userPrincipalName` for the association). A file that is not JSON is reported by line and column only:
 * V8's JSON.parse message quotes the text around the error, and that text is the file's data (seven digits
 * of a CPR number in the report that found it). Every field is checked for its type before anything uses it
 * (a `personalNumbers` given as a string is a problem of its row, not a crash), and a problem names the
 * row and the field of the input shape, never a value or a key the file made up.
 */
import fs from 'node:fs';
import type { FieldProblem } from '../lib/util/domainError';

export interface ImportRow {
  externalId: string;
  affiliationType: string;
  firstName: string;
  lastName: string;
  birthDate?: string;
  nationality?: string;
  personalEmail?: string;
  personalPhone?: string;
  personalNumbers?: Array<{ type: string; value: string }>;
  identityDocumentReferences?: Array<{ type: string; issuingCountry: string; documentNumber: string }>;
  userPrincipalName?: string;
}

export type JsonFile =
  { rows: ImportRow[] } | { syntaxError: { line: number; column: number } | undefined } | { problems: FieldProblem[] };

const REQUIRED_TEXT = ['externalId', 'affiliationType', 'firstName', 'lastName'] as const;
const OPTIONAL_TEXT = ['birthDate', 'nationality', 'personalEmail', 'personalPhone', 'userPrincipalName'] as const;
const LISTS = {
  personalNumbers: { required: ['type', 'value'], optional: [] },
  identityDocumentReferences: { required: ['type', 'issuingCountry'], optional: ['documentNumber'] },
} as const;
const FIELDS: ReadonlySet<string> = new Set([...REQUIRED_TEXT, ...OPTIONAL_TEXT, ...Object.keys(LISTS)]);
/** At most this many problems are listed (as the service lists at most 100). */
const MAX_PROBLEMS = 100;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The problems of one list field of a row (a list of objects whose members are text). */
function listProblems(
  value: unknown,
  at: string,
  members: { required: readonly string[]; optional: readonly string[] },
): FieldProblem[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [{ field: at, problem: 'must be a list of objects' }];
  return value.flatMap((item: unknown, i): FieldProblem[] => {
    if (!isObject(item)) return [{ field: `${at}[${i}]`, problem: 'must be an object' }];
    const known = new Set([...members.required, ...members.optional]);
    const problems: FieldProblem[] = [];
    if (Object.keys(item).some((k) => !known.has(k)))
      problems.push({ field: `${at}[${i}]`, problem: `has a field other than ${[...known].join(', ')}` });
    for (const m of members.required)
      if (typeof item[m] !== 'string') problems.push({ field: `${at}[${i}].${m}`, problem: 'must be text' });
    for (const m of members.optional)
      if (item[m] !== undefined && item[m] !== null && typeof item[m] !== 'string')
        problems.push({ field: `${at}[${i}].${m}`, problem: 'must be text or absent' });
    return problems;
  });
}

/** The type problems of the parsed file (a list of identity objects with text and list fields). */
export function typeProblems(parsed: unknown): FieldProblem[] {
  if (!Array.isArray(parsed)) return [{ field: 'identities', problem: 'must be a JSON array of identities' }];
  const problems: FieldProblem[] = [];
  for (const [i, row] of parsed.entries()) {
    if (problems.length >= MAX_PROBLEMS) break;
    const at = `identities[${i}]`;
    if (!isObject(row)) {
      problems.push({ field: at, problem: 'must be an object' });
      continue;
    }
    if (Object.keys(row).some((k) => !FIELDS.has(k)))
      problems.push({ field: at, problem: 'has a field that is not one of an identity (see docs/tools.md)' });
    for (const f of REQUIRED_TEXT)
      if (typeof row[f] !== 'string') problems.push({ field: `${at}.${f}`, problem: 'must be text' });
    for (const f of OPTIONAL_TEXT)
      if (row[f] !== undefined && row[f] !== null && typeof row[f] !== 'string')
        problems.push({ field: `${at}.${f}`, problem: 'must be text or absent' });
    for (const [f, members] of Object.entries(LISTS)) problems.push(...listProblems(row[f], `${at}.${f}`, members));
  }
  return problems.slice(0, MAX_PROBLEMS);
}

/** Reads and checks a JSON import file (UTF-8, with or without BOM). */
export async function readJsonFile(file: string): Promise<JsonFile> {
  const text = (await fs.promises.readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never the parser's message: it quotes the file.
    const offset = jsonErrorOffset(text);
    return { syntaxError: offset === undefined ? undefined : lineAndColumn(text, offset) };
  }
  const problems = typeProblems(parsed);
  if (problems.length) return { problems };
  // Absent optional fields stay absent; null ones are dropped, as the CSV reader leaves empty cells out.
  const rows = (parsed as Array<Record<string, unknown>>).map(
    (row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)) as unknown as ImportRow,
  );
  return { rows };
}

/** 1-based line and column (in characters) of an offset of the text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}

type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'end';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The end of the string starting at `start` (a `"`), or the negated offset of its first error. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -i;
    if (c !== 0x5c) {
      i += 1;
      continue;
    }
    const e = text.charAt(i + 1);
    if (ESCAPES.has(e)) i += 2;
    else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
    else return -(i + 1);
  }
  return -text.length;
}

/** The end of the scalar (string, number, true, false, null) at `start`, or the negated offset of its error. */
function scalarEnd(text: string, start: number): number {
  const c = text.charAt(start);
  if (c === '"') return stringEnd(text, start);
  for (const literal of ['true', 'false', 'null']) if (text.startsWith(literal, start)) return start + literal.length;
  NUMBER.lastIndex = start;
  const m = NUMBER.exec(text);
  return m && m[0].length > 0 ? start + m[0].length : -start;
}

/**
 * Where JSON.parse would fail: the offset of the first character that cannot continue valid JSON
 * (the text's length when it ends too early), or undefined for valid JSON. Without recursion, so a
 * deeply nested file cannot overflow the stack.
 */
export function jsonErrorOffset(text: string): number | undefined {
  const stack: Array<'[' | '{'> = [];
  let expect: Expect = 'value';
  const after = (): Expect => (stack.length ? 'commaOrClose' : 'end');
  let i = 0;
  for (;;) {
    while (i < text.length && WHITESPACE.has(text.charAt(i))) i += 1;
    if (i >= text.length) return expect === 'end' ? undefined : text.length;
    const c = text.charAt(i);
    const top = stack[stack.length - 1];
    switch (expect) {
      case 'end':
        return i;
      case 'colon':
        if (c !== ':') return i;
        i += 1;
        expect = 'value';
        break;
      case 'commaOrClose':
        if (c === ',') {
          i += 1;
          expect = top === '{' ? 'key' : 'value';
        } else if ((c === ']' && top === '[') || (c === '}' && top === '{')) {
          stack.pop();
          i += 1;
          expect = after();
        } else return i;
        break;
      case 'key':
      case 'keyOrClose': {
        if (expect === 'keyOrClose' && c === '}') {
          stack.pop();
          i += 1;
          expect = after();
          break;
        }
        if (c !== '"') return i;
        const end = stringEnd(text, i);
        if (end <= 0) return -end;
        i = end;
        expect = 'colon';
        break;
      }
      case 'value':
      case 'valueOrClose': {
        if (expect === 'valueOrClose' && c === ']') {
          stack.pop();
          i += 1;
          expect = after();
        } else if (c === '[' || c === '{') {
          stack.push(c);
          i += 1;
          expect = c === '[' ? 'valueOrClose' : 'keyOrClose';
        } else {
          const end = scalarEnd(text, i);
          if (end <= 0) return -end;
          i = end;
          expect = after();
        }
        break;
      }
    }
  }
}
