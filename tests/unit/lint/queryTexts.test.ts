/** Only the store speaks Cosmos DB: no query text in lib/ outside lib/store (the queries are named in lib/store/queries). */
import fs from 'node:fs';
import path from 'node:path';

const LIB = path.resolve(__dirname, '../../../lib');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|graphql)$/.test(e.name) ? [full] : [];
  });
}

/** The text without comments, so a comment may still speak of a SELECT. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

export function queryTextsOutsideStore(files: Array<{ name: string; text: string }>): string[] {
  return files
    .filter((f) => !f.name.startsWith('store/'))
    .filter((f) => /\bSELECT\b/.test(code(f.text)))
    .map((f) => f.name);
}

/** Files outside lib/store that run an ad-hoc query (those methods are for operator tools and tests). */
export function adHocQueriesOutsideStore(files: Array<{ name: string; text: string }>): string[] {
  return files
    .filter((f) => !f.name.startsWith('store/'))
    .filter((f) => /\.(queryPage|queryAll|queryPartitionPage)\b/.test(code(f.text)))
    .map((f) => f.name);
}

describe('query texts', () => {
  it('no file of lib/ outside lib/store holds a SELECT', () => {
    const files = sourceFiles(LIB).map((full) => ({
      name: path.relative(LIB, full).split(path.sep).join('/'),
      text: fs.readFileSync(full, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(50);
    expect(queryTextsOutsideStore(files)).toEqual([]);
    expect(adHocQueriesOutsideStore(files)).toEqual([]);
  });

  it('finds one in code, not in a comment or a longer word', () => {
    expect(
      queryTextsOutsideStore([
        { name: 'links/x.ts', text: "const q = 'SELECT * FROM c';" },
        { name: 'links/y.ts', text: '// SELECT in a comment\n/* SELECT */ const k = Kind.SELECTION_SET;' },
        { name: 'store/queries/z.ts', text: "const q = 'SELECT * FROM c';" },
      ]),
    ).toEqual(['links/x.ts']);
    expect(
      adHocQueriesOutsideStore([
        { name: 'links/x.ts', text: 'await col.queryAll(spec);' },
        { name: 'links/y.ts', text: 'await col.all(claimHolders(t, ids));' },
      ]),
    ).toEqual(['links/x.ts']);
  });
});
