/**
 * No import circles among lib/, functions/, devhost/ and scripts/: the test reads every relative import
 * of their TypeScript files (with the TypeScript compiler's pre-processor) and reports each circle by its
 * files. Type-only imports count too: a circle of types still ties two modules into one unit that cannot
 * be read, tested or moved apart, and the code has none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCycles, importGraph, type ImportGraph } from '../../support/importGraph';

const ROOT = path.resolve(__dirname, '../../..');

describe('import circles', () => {
  it('there are none among lib/, functions/, devhost/ and scripts/', () => {
    const graph = importGraph(ROOT, ['lib', 'functions', 'devhost', 'scripts']);
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('functions/graphql.ts')).toEqual(['lib/http/graphqlHttp.ts', 'lib/http/transportSecurity.ts']);
    expect(importCycles(graph)).toEqual([]);
  });

  it('reports each circle by its files, type-only imports included', () => {
    const graph: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
      ['f.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('reads import type, export from, require and import() as imports', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
    try {
      const files: Record<string, string> = {
        'a.ts': "import type { B } from './b';\nexport type { C } from './c';\n",
        'b.ts': "export type B = 1;\nconst d = require('./d');\n",
        'c.ts': "export type C = 2;\nexport const e = () => import('./sub');\n",
        'd.ts': "import fs from 'node:fs';\nexport { fs };\n",
        'sub/index.ts': "import { B } from '../b';\n",
      };
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      const graph = importGraph(dir, ['.']);
      expect(Object.fromEntries(graph)).toEqual({
        'a.ts': ['b.ts', 'c.ts'],
        'b.ts': ['d.ts'],
        'c.ts': ['sub/index.ts'],
        'd.ts': [],
        'sub/index.ts': ['b.ts'],
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
