/**
 * The error codes have one owner, lib/util/errorCodes.ts: no other file of lib/ spells one as a string (code
 * names it by its constant, CODE.X), and the table of docs/graphql-api.md lists exactly the codes of the union.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { CODE, ERROR_CODES, isErrorCode, YOGA_OPERATION_RESOLUTION_FAILURE } from '../../../lib/util/errorCodes';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const OWNER = 'lib/util/errorCodes.ts';

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return tsFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The string literals of a file whose whole text is one of `codes` (text inside a longer string is prose). */
export function codeLiterals(file: string, text: string, codes: ReadonlySet<string>): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && codes.has(node.text))
      found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The codes of the first column of the table under "## Error codes" in docs/graphql-api.md. */
function documentedCodes(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'graphql-api.md'), 'utf8');
  const section = text.split(/^## Error codes$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1] ?? '');
}

describe('error codes', () => {
  const codes = new Set<string>([...Object.keys(ERROR_CODES), YOGA_OPERATION_RESOLUTION_FAILURE]);

  it('finds a code spelled as a whole string, not in prose', () => {
    const text = `const a = 'NOT_FOUND';\nconst b = \`SERVICE_BUSY\`;\nconst c = 'answered \`NOT_FOUND\` here';\n// 'LINK_CONFLICT'\n`;
    expect(codeLiterals('x.ts', text, codes)).toEqual(['NOT_FOUND', 'SERVICE_BUSY']);
  });

  it('are spelled as strings only in lib/util/errorCodes.ts', () => {
    const spelled = tsFiles('lib')
      .filter((f) => f !== OWNER)
      .flatMap((f) => codeLiterals(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), codes).map((c) => `${f}: ${c}`));
    expect(spelled).toEqual([]);
  });

  it('each constant is its own code', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(CODE[code as keyof typeof CODE]).toBe(code);
    expect(isErrorCode('BAD_USER_INPUT')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(YOGA_OPERATION_RESOLUTION_FAILURE)).toBe(false);
  });

  it('docs/graphql-api.md lists exactly the codes of the union, once each', () => {
    const documented = documentedCodes();
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });
});
