/*
 * `npm run package`: bundles every function into one file (esbuild, minified, Node 22),
 * lays out the app the Functions host loads (host.json, package.json with main, index.js,
 * schema.graphql, and the built administrator console under console-app/) under build/app, and zips it to
 * build/package.zip for azd / zip deploy. The source map goes to build/index.js.map, outside the deployed folder.
 * Prints the bundle size and the cold module-load time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { writeZip } from './zip';
import { CONSOLE_FOLDER } from '../lib/http/consoleHttp';

/** The project folder: the nearest parent with host.json (works from scripts/ and from dist/scripts/). */
function projectRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'host.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('host.json not found above ' + from);
    dir = up;
  }
  return dir;
}

export const ROOT = projectRoot(__dirname);

/** The built app: its folder, the bundle's size, and the project files and packages the bundle holds (relative to ROOT). */
export interface BuiltApp {
  dir: string;
  bundleBytes: number;
  inputs: string[];
}

export async function buildApp(outDir = path.join(ROOT, 'build', 'app')): Promise<BuiltApp> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const functionFiles = fs
    .readdirSync(path.join(ROOT, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  // Minified for Node 22, source map beside (moved out below), inputs listed for the package test.
  const built = await build({
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    sourcemap: 'external',
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: ROOT,
    metafile: true,
    stdin: {
      contents: functionFiles.map((f) => `import './functions/${f.replace(/\.ts$/, '')}';`).join('\n'),
      resolveDir: ROOT,
      sourcefile: 'index.ts',
      loader: 'ts',
    },
    // Provided by the Functions host at run time.
    external: ['@azure/functions-core'],
    outfile: path.join(outDir, 'index.js'),
  });
  // azd zips this whole folder: the source map (for reading stack traces) is kept beside it, never deployed.
  fs.renameSync(path.join(outDir, 'index.js.map'), path.join(path.dirname(outDir), 'index.js.map'));
  fs.copyFileSync(path.join(ROOT, 'host.json'), path.join(outDir, 'host.json'));
  fs.copyFileSync(path.join(ROOT, 'lib', 'graphql', 'schema.graphql'), path.join(outDir, 'schema.graphql'));
  // The console's built files (npm run build makes them); the console function serves them from here.
  const consoleBuild = path.join(ROOT, 'dist', CONSOLE_FOLDER);
  if (!fs.existsSync(path.join(consoleBuild, 'index.html')))
    throw new Error('The console is not built: run npm run build (it builds dist/console-app)');
  fs.cpSync(consoleBuild, path.join(outDir, CONSOLE_FOLDER), { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  fs.writeFileSync(
    path.join(outDir, 'package.json'),
    JSON.stringify(
      { name: pkg.name, version: pkg.version, private: true, main: 'index.js', engines: { node: '>=22' } },
      null,
      2,
    ) + '\n',
  );
  return {
    dir: outDir,
    bundleBytes: fs.statSync(path.join(outDir, 'index.js')).size,
    inputs: Object.keys(built.metafile.inputs).sort(),
  };
}

/** Files under dir (relative, `/`-separated), in name order. */
function filesUnder(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      return e.isDirectory() ? filesUnder(dir, rel) : [rel];
    })
    .sort();
}

export function zipApp(dir: string, zipPath: string): number {
  const files = filesUnder(dir).filter((f) => !f.endsWith('.map'));
  const zip = writeZip(files.map((name) => ({ name, data: fs.readFileSync(path.join(dir, name)) })));
  fs.writeFileSync(zipPath, zip);
  return zip.length;
}

/** Time to require the bundle in a fresh Node process, with the host's core API present (median of 5). */
function coldLoadMs(dir: string): number {
  const script = `
    const Module = require('module'); const orig = Module._resolveFilename;
    Module._resolveFilename = function (r, ...a) { return r === '@azure/functions-core' ? ${JSON.stringify(path.join(ROOT, 'dist', 'devhost', 'functionsCore.js'))} : orig.call(this, r, ...a); };
    const t = process.hrtime.bigint(); require(${JSON.stringify(path.join(dir, 'index.js'))});
    process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;
  const runs = Array.from({ length: 5 }, () =>
    Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })),
  );
  return runs.sort((a, b) => a - b)[2] ?? NaN;
}

if (require.main === module) {
  (async () => {
    const { dir, bundleBytes } = await buildApp();
    const zipPath = path.join(ROOT, 'build', 'package.zip');
    const zipBytes = zipApp(dir, zipPath);
    console.log(
      `bundle build/app/index.js: ${(bundleBytes / 1024).toFixed(0)} KiB; package build/package.zip: ${(zipBytes / 1024).toFixed(0)} KiB`,
    );
    console.log(
      `cold module load of all functions (median of 5, Node ${process.versions.node}): ${coldLoadMs(dir).toFixed(0)} ms`,
    );
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
