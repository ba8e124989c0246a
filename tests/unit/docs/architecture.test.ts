/**
 * docs/architecture.md is where a newcomer looks for a file ("Where is X"): every file it names must exist.
 * A bare file name stands for a file in the folder of the last path named before it on the same line.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FILE_NAME = /`([A-Za-z0-9_./-]+\.(?:ts|json|graphql|bicep|mjs))`/g;

/** The files a line names, with bare names placed in the folder of the path before them. */
export function namedFiles(line: string): string[] {
  let folder = '';
  const files: string[] = [];
  for (const match of line.matchAll(FILE_NAME)) {
    const name = match[1] ?? '';
    if (name.includes('/')) {
      folder = path.posix.dirname(name);
      files.push(name);
    } else if (folder) files.push(`${folder}/${name}`);
    else files.push(name);
  }
  return files;
}

describe('docs/architecture.md', () => {
  it('places a bare file name in the folder named before it', () => {
    expect(namedFiles('`lib/imports/importer.ts`, `manifest.ts`')).toEqual([
      'lib/imports/importer.ts',
      'lib/imports/manifest.ts',
    ]);
  });

  it('names only files that exist', () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const named = text.split('\n').flatMap(namedFiles);
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((f) => !fs.existsSync(path.join(ROOT, f)));
    expect(missing).toEqual([]);
  });
});
