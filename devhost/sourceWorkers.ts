/**
 * Worker-thread scripts for a service run from its TypeScript sources (the integration tests): a worker
 * thread cannot load TypeScript, so the dev host builds the script with esbuild (packages stay external and
 * load from node_modules) beside the files it reads at run time. Built again only when a source under lib/
 * is newer; written under a temporary name and renamed, so parallel test workers never read half a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'node_modules', '.cache', 'business-identity-service');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

/** The built bulk thread script (lib/graphql/bulkThreadWorker.ts), with schema.graphql beside it. */
export function bulkThreadScriptFromSources(): string {
  const outfile = path.join(OUT_DIR, 'bulkThreadWorker.js');
  const built = fs.existsSync(outfile) ? fs.statSync(outfile).mtimeMs : 0;
  if (built >= newestSource(path.join(ROOT, 'lib'))) return outfile;
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const temp = `${outfile}.${process.pid}.tmp`;
  buildSync({
    entryPoints: [path.join(ROOT, 'lib', 'graphql', 'bulkThreadWorker.ts')],
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    outfile: temp,
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(ROOT, 'lib', 'graphql', 'schema.graphql'), path.join(OUT_DIR, 'schema.graphql'));
  fs.renameSync(temp, outfile);
  return outfile;
}
