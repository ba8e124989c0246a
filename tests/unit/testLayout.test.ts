/**
 * Unit tests mirror the code they test: tests/unit/<folder>/<module>.test.ts, or <module>.<topic>.test.ts for a
 * second file on one module, tests lib/<folder>/<module>.ts (devhost/, functions/ and scripts/ for tests under
 * tests/unit/devhost/, tests/unit/functions/ and tests/unit/scripts/; tests/support/ for tests under
 * tests/unit/support/, the test doubles' own tests). The
 * exceptions are listed here: tests of files that are not TypeScript modules, and this test.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const UNIT = path.join(ROOT, 'tests', 'unit');

/** Tests of things that are not TypeScript modules (the Bicep templates, the docs, the lint rules and import graph, package.json), and this file. */
const NOT_MODULES = ['infra/', 'docs/', 'lint/', 'package.test.ts', 'testLayout.test.ts'];

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(full);
    return e.name.endsWith('.test.ts') ? [path.relative(UNIT, full).split(path.sep).join('/')] : [];
  });
}

/** The module a unit test file tests, relative to the repository root. */
export function moduleOf(testFile: string): string {
  const dir = path.posix.dirname(testFile);
  const moduleName = path.posix.basename(testFile, '.test.ts').split('.')[0] ?? '';
  const folder = dir === '.' ? '' : `${dir}/`;
  if (folder.startsWith('support/')) return `tests/${folder}${moduleName}.ts`;
  const outsideLib = ['devhost/', 'functions/', 'scripts/'].some((top) => folder.startsWith(top));
  return outsideLib ? `${folder}${moduleName}.ts` : `lib/${folder}${moduleName}.ts`;
}

describe('unit test layout', () => {
  it('maps a test file to the module it tests', () => {
    expect(moduleOf('scim/userInput.test.ts')).toBe('lib/scim/userInput.ts');
    expect(moduleOf('config/settings.productionAudience.test.ts')).toBe('lib/config/settings.ts');
    expect(moduleOf('devhost/cosmos/journal.test.ts')).toBe('devhost/cosmos/journal.ts');
    expect(moduleOf('functions/scimUsers.test.ts')).toBe('functions/scimUsers.ts');
    expect(moduleOf('support/memoryStore.test.ts')).toBe('tests/support/memoryStore.ts');
  });

  it('every unit test file mirrors a module', () => {
    const files = testFiles(UNIT).filter(
      (f) => !NOT_MODULES.some((x) => (x.endsWith('/') ? f.startsWith(x) : f === x)),
    );
    expect(files.length).toBeGreaterThan(20);
    const strays = files.filter((f) => !fs.existsSync(path.join(ROOT, moduleOf(f))));
    expect(strays).toEqual([]);
  });
});
