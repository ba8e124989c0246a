import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Module file (relative to the root, with `/`) -> the project files it imports. */
export type ImportGraph = Map<string, string[]>;

function tsFilesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((f) => f.endsWith('.ts') && fs.existsSync(f));
}

/**
 * The import graph of the TypeScript files under `folders` (relative imports only; packages are not
 * project files). Every import counts, `import type` and `export ... from` included, as do `require()`
 * and `import()` calls.
 */
export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  const name = (file: string) => path.relative(root, file).split(path.sep).join('/');
  for (const file of folders.flatMap((f) => tsFilesUnder(path.join(root, f)))) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolveRelative(file, spec))
      .filter((f): f is string => f !== undefined)
      .map(name);
    graph.set(name(file), [...new Set(targets)].sort());
  }
  return graph;
}

/** The import circles of a graph: each strongly connected set of two or more files (or a file importing itself), sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(members.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
