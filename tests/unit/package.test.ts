/**
 * The npm scripts a newcomer runs: `npm start` replaces npm's `sh -c` with node (so a signal npm passes on
 * reaches the stack), and start, ops and import build only when the sources changed, never on every run.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

describe('npm scripts', () => {
  it('npm start execs node on the built dev host', () => {
    expect(scripts.start).toBe('exec node dist/devhost/main.js');
  });

  it.each(['start', 'ops', 'import'])('%s runs from the build, rebuilt beforehand only when stale', (name) => {
    expect(scripts[name]).not.toMatch(/build|tsc/);
    expect(scripts[`pre${name}`]).toBe('node scripts/buildIfStale.js');
  });

  it('the build marks itself current', () => {
    expect(scripts.build).toMatch(/node scripts\/copy-assets\.js$/);
    expect(fs.readFileSync(path.join(ROOT, 'scripts', 'copy-assets.js'), 'utf8')).toContain("'.build-stamp'");
  });

  it('.nvmrc names Node.js 22, the engine package.json requires; the install scripts are reviewed', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      allowScripts: Record<string, boolean>;
    };
    expect(fs.readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('22');
    expect(pkg.engines.node).toBe('>=22');
    expect(pkg.allowScripts).toEqual({ node: true, esbuild: true, protobufjs: false });
  });
});
