/**
 * What `npm run import` prints for a file it cannot use: where the problem is, never what the file holds.
 * Both are found before anything is sent (the service named here does not exist).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCli } from '../../../scripts/importClient';

const CPR = '0101904321';
/** The number's digits in a row of six or more, whatever separates them. */
const DIGITS = /0\D?1\D?0\D?1\D?9\D?0|9\D?0\D?4\D?3\D?2\D?1/;

describe('npm run import with a file it cannot use', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cli-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cli = async (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const out: string[] = [];
    const err: string[] = [];
    const code = await importCli(
      [
        '--service',
        'http://127.0.0.1:9',
        '--authority',
        'http://127.0.0.1:9',
        '--source',
        'HR',
        '--file',
        file,
        '--tenant',
        '11111111-1111-4111-8111-111111111111',
        '--client-id',
        'aaaaaaaa-0000-4000-8000-000000000001',
        '--client-secret-env',
        'IMPORT_SECRET',
        '--scope',
        'api://business-identity-service/.default',
      ],
      { IMPORT_SECRET: 'x' },
      { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => undefined },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it.each([
    ['a number with a leading zero', `[\n  {"externalId": "A", "cpr": ${CPR}}\n]`, 'line 2, column 31'],
    ['text after a value', `[{"externalId": "${CPR}" x}]`, 'line 1, column 30'],
    [
      'a cut-off file',
      `[{"externalId": "A", "personalNumbers": [{"type": "DK_CPR", "value": "010190-4321`,
      'line 1, column 82',
    ],
  ])('reports %s by line and column only', async (_what, text, where) => {
    const r = await cli('bad.json', text);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`The JSON file is not valid JSON at ${where}`);
    expect(r.err).not.toMatch(DIGITS);
  });

  it('reports fields of the wrong type per row and field (a personalNumbers given as text), without a crash or a value', async () => {
    const r = await cli(
      'types.json',
      JSON.stringify([
        { externalId: 'A', affiliationType: 'OTHER', firstName: 'F', lastName: 'L', personalNumbers: CPR },
        { externalId: 'B', affiliationType: 'OTHER', firstName: 'F', lastName: 'L', [CPR]: CPR },
      ]),
    );
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([
      'BAD_USER_INPUT: The JSON file has values of the wrong type (checked before sending)',
      '  identities[0].personalNumbers: must be a list of objects',
      '  identities[1]: has a field that is not one of an identity (see docs/tools.md)',
    ]);
    expect(r.err).not.toMatch(DIGITS);
  });
});
