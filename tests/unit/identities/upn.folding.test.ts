/**
 * UPN case folding is written once: `upnKey` in lib/identities/upn.ts. Nothing else in lib/ folds a UPN,
 * neither in code (`toLowerCase()` and kin on a UPN) nor in a query (SQL `LOWER()`/`UPPER()`, or a string
 * function told to ignore case): a query compares the keys stored with the identity (`upnKeys`,
 * `link.upnKey`), written through `upnKey`. Other lowercasing (header names, SCIM attribute names, GUIDs) is
 * not folding of a UPN and is not flagged.
 */
import fs from 'node:fs';
import path from 'node:path';

const LIB = path.resolve(__dirname, '..', '..', '..', 'lib');
const OWNER = 'identities/upn.ts';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Names a UPN: `upn`, `Upn`, `UPN` (also in `upnKey`, `lookedUpUpn`) or a user principal name. */
const NAMES_A_UPN = /upn|principal/i;
/** A change of case in code. */
const CASE_CHANGE = /\.to(?:Locale)?(?:Lower|Upper)Case\s*\(/;
/** Folding in a query, as the service writes SQL (upper-case function names). */
const SQL_FOLDING = [
  /\b(?:LOWER|UPPER)\s*\(/,
  /\b(?:STRINGEQUALS|CONTAINS|STARTSWITH|ENDSWITH)\s*\([^()]*,\s*true\s*\)/,
];
/** In the query texts any spelling of LOWER/UPPER counts (Cosmos DB's function names ignore case). */
const QUERY_FOLDING = /\b(?:lower|upper)\s*\(/i;

const isComment = (line: string): boolean => /^\s*(?:\/\/|\/\*|\*)/.test(line);

/** The places in one file's text that fold a UPN, as `line: text`. */
export function foldingsIn(relative: string, text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, i) => {
    if (isComment(line)) return;
    // A call continued from the line above (`x.userPrincipalName\n  .toLowerCase()`) is read with it.
    const statement = /^\s*\./.test(line) ? `${lines[i - 1] ?? ''} ${line}` : line;
    const inCode = CASE_CHANGE.test(line) && NAMES_A_UPN.test(statement);
    const inSql = SQL_FOLDING.some((re) => re.test(line));
    const inQueries = relative.startsWith('store/queries/') && QUERY_FOLDING.test(line);
    if (inCode || inSql || inQueries) found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe('UPN case folding', () => {
  it('is written once: nothing in lib/ outside lib/identities/upn.ts folds a UPN', () => {
    const found: Record<string, string[]> = {};
    for (const file of filesUnder(LIB)) {
      const relative = path.relative(LIB, file).split(path.sep).join('/');
      if (relative === OWNER) continue;
      const hits = foldingsIn(relative, fs.readFileSync(file, 'utf8'));
      if (hits.length > 0) found[relative] = hits;
    }
    expect(found).toEqual({});
  });

  it('upn.ts folds in one place, upnKey', () => {
    const text = fs.readFileSync(path.join(LIB, OWNER), 'utf8');
    expect(text.match(/\.toLowerCase\(/g)).toHaveLength(1);
    expect(text).toMatch(/export function upnKey\(upn: string\): string \{\n\s*return upn\.replace\(\/\[A-Z\]\+\/g/);
  });

  it('flags folding of a UPN in code and in queries, and no other lowercasing', () => {
    const flagged = [
      ['links/x.ts', 'const key = user.userPrincipalName.toLowerCase();'],
      ['directory/x.ts', 'if (a.toLowerCase() === upn) return a;'],
      ['imports/x.ts', 'const k = pair.upn?.trim().toLocaleLowerCase();'],
      ['imports/x.ts', 'const k = pair.userPrincipalName\n  .toUpperCase();'],
      ['graphql/x.ts', "where.push('LOWER(c.directoryUserPrincipalName) = @ql');"],
      ['store/queries/x.ts', "'SELECT * FROM c WHERE lower(c.link.lookedUpUpn) = @k'"],
      ['store/queries/x.ts', "'SELECT * FROM c WHERE STRINGEQUALS(c.link.userPrincipalName, @u, true)'"],
    ] as const;
    for (const [file, text] of flagged)
      expect({ text, hits: foldingsIn(file, text).length }).toEqual({ text, hits: 1 });
    const notFlagged = [
      ['http/x.ts', "const type = contentType.split(';')[0]?.trim().toLowerCase();"],
      ['scim/x.ts', 'export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();'],
      ['util/x.ts', 'return value.toLowerCase();'],
      ['links/x.ts', ' * never with `toLowerCase()` on a UPN'],
      ['store/queries/x.ts', "'SELECT * FROM c WHERE ARRAY_CONTAINS(c.upnKeys, @k)'"],
      ['auth/x.ts', 'iss.startsWith(prefix) && iss.endsWith(suffix)'],
    ] as const;
    for (const [file, text] of notFlagged) expect({ text, hits: foldingsIn(file, text) }).toEqual({ text, hits: [] });
  });
});
