/**
 * Any way of stopping the local stack stops all of it and frees its ports: a signal to the process
 * itself (SIGTERM, SIGINT, SIGHUP), or the end of the wrapper that started it (as npm does, which
 * passes on neither SIGHUP nor SIGKILL). Real child processes, each holding a real listening port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

let dir: string;
let childScript: string;
let wrapperScript: string;
let shellWrapperScript: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lifetime-'));
  buildSync({
    entryPoints: [path.resolve(__dirname, '../../../devhost/lifetime.ts')],
    outfile: path.join(dir, 'lifetime.js'),
    platform: 'node',
    format: 'cjs',
    bundle: true,
    logLevel: 'silent',
  });
  childScript = path.join(dir, 'child.js');
  fs.writeFileSync(
    childScript,
    `const http = require('node:http');
const { stopOnSignalOrParentExit } = require('./lifetime.js');
const server = http.createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', () => process.stdout.write('READY ' + process.pid + ' ' + server.address().port + '\\n'));
stopOnSignalOrParentExit(() => new Promise((resolve) => server.close(() => resolve())), { watchParent: true, pollMs: 100 });
`,
  );
  // Start the child and pass no signal on: directly, or like npm through \`sh -c\` (which outlives npm).
  const wrapper = (viaShell: boolean): string =>
    `const { spawn } = require('node:child_process');
${viaShell ? `spawn(${JSON.stringify(`"${process.execPath}" "${childScript}"`)}, { shell: '/bin/sh', stdio: ['ignore', 'inherit', 'inherit'] });` : `spawn(process.execPath, [${JSON.stringify(childScript)}], { stdio: ['ignore', 'inherit', 'inherit'] });`}
process.on('SIGTERM', () => process.exit(143));
process.on('SIGHUP', () => process.exit(129));
setInterval(() => {}, 1000);
`;
  wrapperScript = path.join(dir, 'wrapper.js');
  fs.writeFileSync(wrapperScript, wrapper(false));
  shellWrapperScript = path.join(dir, 'shell-wrapper.js');
  fs.writeFileSync(shellWrapperScript, wrapper(true));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Stack processes started by a test, ended afterwards if a failing test left them running. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
});

function ready(proc: ChildProcess): Promise<{ pid: number; port: number }> {
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /READY (\d+) (\d+)/.exec(out);
      if (m) {
        started.push(Number(m[1]));
        resolve({ pid: Number(m[1]), port: Number(m[2]) });
      }
    });
    proc.once('exit', () => reject(new Error(`exited before it was ready: ${out}`)));
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Running (a zombie waiting for its reaper does not count). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function gone(pid: number, port: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!running(pid) && !(await listening(port))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('local stack lifetime', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s to the stack process stops it and frees its port',
    async (signal) => {
      const child = spawn(process.execPath, [childScript], { stdio: ['ignore', 'pipe', 'inherit'] });
      const { pid, port } = await ready(child);
      expect(await listening(port)).toBe(true);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exited).toBe(0);
      expect(await gone(pid, port)).toBe(true);
    },
  );

  it.each([
    ['SIGTERM', 'directly'],
    ['SIGHUP', 'directly'],
    ['SIGKILL', 'directly'],
    ['SIGTERM', 'through sh -c, as npm does'],
    ['SIGHUP', 'through sh -c, as npm does'],
    ['SIGKILL', 'through sh -c, as npm does'],
  ] as const)('%s to the wrapper that started it %s stops it too', async (signal, how) => {
    const script = how === 'directly' ? wrapperScript : shellWrapperScript;
    const wrapper = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const { pid, port } = await ready(wrapper);
    expect(pid).not.toBe(wrapper.pid);
    expect(await listening(port)).toBe(true);
    wrapper.kill(signal);
    expect(await gone(pid, port)).toBe(true);
  });
});
