/**
 * `npm start` (devhost/main.ts) as a real process: --help prints the usage and exits 0, an unknown flag is
 * refused with exit 2 and a hint, both before any port is opened or the stack record is written.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

let dir: string;
let mainJs: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-cli-'));
  mainJs = path.join(dir, 'main.js');
  buildSync({
    entryPoints: [path.resolve(__dirname, '../../../devhost/main.ts')],
    outfile: mainJs,
    platform: 'node',
    format: 'cjs',
    bundle: true,
    packages: 'external',
    logLevel: 'silent',
  });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function start(args: string[]) {
  // Run from an empty folder: a stack record would appear as .local/stack.json there.
  const cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
  const r = spawnSync(process.execPath, [mainJs, ...args], {
    cwd,
    env: { ...process.env, NODE_PATH: path.resolve(__dirname, '../../../node_modules') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { ...r, recorded: fs.existsSync(path.join(cwd, '.local', 'stack.json')) };
}

describe('npm start arguments', () => {
  it('--help prints usage, options, settings and examples, and exits 0 without starting anything', () => {
    const r = start(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm start/);
    expect(r.stdout).toMatch(/--in-memory[\s\S]*--instances N[\s\S]*DEV_HOST_PORT[\s\S]*examples:/);
    expect(r.recorded).toBe(false);
  });

  it.each([['--in-memroy'], ['--port', '1'], ['extra']])('refuses %s with exit 2 and a hint', (...args) => {
    const r = start(args);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'npm start accepts only --in-memory, --instances N and --help; see `npm start -- --help`',
    );
    expect(r.stdout).toBe('');
    expect(r.recorded).toBe(false);
  });

  it.each([[['--instances', '9']], [['--instances=0']], [['--instances', 'many']]])(
    'refuses %j with exit 2, saying what it takes without repeating it',
    (args) => {
      const r = start(args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toBe('--instances takes a whole number from 1 to 8');
      expect(r.recorded).toBe(false);
    },
  );
});
