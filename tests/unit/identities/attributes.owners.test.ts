/**
 * The attribute table is the one owner of the identity's attributes: an attribute's name appears only in the
 * table, the GraphQL schema (checked against the table by tests/unit/graphql/identityView.sdl.test.ts) and at
 * most two other files of lib/. Code that needs every attribute walks the table's rows instead of naming them.
 */
import fs from 'node:fs';
import path from 'node:path';

const LIB = path.resolve(__dirname, '..', '..', '..', 'lib');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full) : [full];
  });
}

const mentioning = (word: string): string[] =>
  filesUnder(LIB)
    .filter((f) => fs.readFileSync(f, 'utf8').includes(word))
    .map((f) => path.relative(LIB, f).split(path.sep).join('/'))
    .sort();

describe.each(['personalEmail', 'nationality'])('the attribute %s', (word) => {
  it('is named in the table, the GraphQL schema and at most two other files of lib/', () => {
    const files = mentioning(word);
    expect(files).toEqual(expect.arrayContaining(['identities/attributes.ts', 'graphql/schema.graphql']));
    expect(files.length).toBeLessThanOrEqual(4);
  });
});
