import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { jsonErrorOffset, lineAndColumn, readJsonFile, typeProblems } from '../../../scripts/importFile';

const CPR = '0101904321';

describe('the import client reads a JSON file', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-file-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };

  it.each([
    ['a number with a leading zero', `[\n  {"externalId": "A",\n   "cpr": ${CPR}}\n]`, { line: 3, column: 12 }],
    ['a missing comma', `[{"externalId": "A"}\n {"externalId": "${CPR}"}]`, { line: 2, column: 2 }],
    ['a cut-off file', `[{"externalId": "${CPR}`, { line: 1, column: 28 }],
    ['a trailing comma', `[{"a": "${CPR}"},]`, { line: 1, column: 22 }],
  ])('says where %s is, by line and column only', async (_what, text, where) => {
    expect(await readJsonFile(file('bad.json', text))).toEqual({ syntaxError: where });
  });

  it('reads a file with a BOM and drops null optional fields', async () => {
    const text = `\uFEFF[{"externalId":"A","affiliationType":"OTHER","firstName":"F","lastName":"L","birthDate":null}]`;
    expect(await readJsonFile(file('bom.json', text))).toEqual({
      rows: [{ externalId: 'A', affiliationType: 'OTHER', firstName: 'F', lastName: 'L' }],
    });
  });

  it('checks every field for its type, by row and field, naming no value and no made-up key', () => {
    const problems = typeProblems([
      { externalId: 'A', affiliationType: 'OTHER', firstName: 'F', lastName: 'L', personalNumbers: CPR },
      {
        externalId: 7,
        affiliationType: 'OTHER',
        firstName: 'F',
        lastName: ['L'],
        personalNumbers: [{ type: 'DK_CPR', value: 101904321 }, CPR],
        identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: 1234567 }],
        [CPR]: 1,
      },
      CPR,
    ]);
    expect(problems).toEqual([
      { field: 'identities[0].personalNumbers', problem: 'must be a list of objects' },
      { field: 'identities[1]', problem: 'has a field that is not one of an identity (see docs/tools.md)' },
      { field: 'identities[1].externalId', problem: 'must be text' },
      { field: 'identities[1].lastName', problem: 'must be text' },
      { field: 'identities[1].personalNumbers[0].value', problem: 'must be text' },
      { field: 'identities[1].personalNumbers[1]', problem: 'must be an object' },
      { field: 'identities[1].identityDocumentReferences[0].documentNumber', problem: 'must be text or absent' },
      { field: 'identities[2]', problem: 'must be an object' },
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/0101|4321/);
    expect(typeProblems({ identities: [] })).toEqual([
      { field: 'identities', problem: 'must be a JSON array of identities' },
    ]);
  });

  it('finds a syntax error exactly where JSON.parse finds one (any text, deep nesting too)', () => {
    const valid = (t: string) => {
      try {
        JSON.parse(t);
        return true;
      } catch {
        return false;
      }
    };
    const mutated = fc
      .tuple(fc.json({ maxDepth: 4 }), fc.nat(), fc.constantFrom('', ',', '"', '0', '}', ']', ':', '\\', '\n', 'x'))
      .map(([t, at, insert]) => {
        const i = at % (t.length + 1);
        return t.slice(0, i) + insert + t.slice(i + (insert === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(fc.json({ maxDepth: 4 }), mutated, fc.string({ maxLength: 20 })), (t) => {
        expect(jsonErrorOffset(t) === undefined).toBe(valid(t));
        const at = jsonErrorOffset(t);
        if (at !== undefined) expect(at).toBeLessThanOrEqual(t.length);
      }),
      { numRuns: 2000, seed: 37 },
    );
    expect(jsonErrorOffset('['.repeat(200_000) + ']'.repeat(200_000))).toBeUndefined();
    expect(jsonErrorOffset('['.repeat(200_000))).toBe(200_000);
  });

  it('counts lines and columns from 1', () => {
    expect(lineAndColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
