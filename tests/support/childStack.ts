/**
 * The whole local stack in a process of its own (as `npm start` runs it), keeping the store's data in a
 * folder, so a test can end the process the hard way (kill -9) and start another on the same data. The
 * TypeScript sources are loaded as they are (compiled file by file with esbuild when required); timers run
 * on their schedules. The queue lives in the process (Azurite in memory): its messages die with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

const CHILD = `
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const [root, dataDir, envJson] = process.argv.slice(2);
const { transformSync } = require(require.resolve('esbuild', { paths: [root] }));
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { loader: 'ts', format: 'cjs', target: 'node22', sourcefile: filename });
  module._compile(code, filename);
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === '@azure/functions-core' ? path.join(root, 'devhost/functionsCore.ts') : request, ...rest);
};
const { startLocalStack } = require(path.join(root, 'devhost/stack.ts'));
const { stopOnSignalOrParentExit } = require(path.join(root, 'devhost/lifetime.ts'));
startLocalStack({ cosmosDataDir: dataDir, runTimersOnSchedule: true, env: JSON.parse(envJson), log: () => undefined }).then((stack) => {
  stopOnSignalOrParentExit(() => stack.stop(), { watchParent: true, pollMs: 200 });
  process.stdout.write('READY ' + JSON.stringify({ base: stack.env.PUBLIC_BASE_URL, idp: stack.idp.url }) + '\\n');
}, (err) => { process.stderr.write(String(err && err.stack || err) + '\\n'); process.exit(1); });
`;

export interface ChildStack {
  base: string;
  idp: string;
  pid: number;
  /** Ends the process at once (SIGKILL: nothing of it runs after, nothing is flushed or released). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the stack in a child process over the store data in `dataDir`. */
export async function startChildStack(dataDir: string, env: Record<string, string> = {}): Promise<ChildStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'child-stack-'));
  const script = path.join(dir, 'stack.js');
  fs.writeFileSync(script, CHILD);
  const child: ChildProcess = spawn(process.execPath, [script, ROOT, dataDir, JSON.stringify(env)], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: dir,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ready = await new Promise<{ base: string; idp: string }>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /READY (\{.*\})/.exec(out);
        if (m?.[1]) resolve(JSON.parse(m[1]) as { base: string; idp: string });
      });
      child.once('exit', (code) => reject(new Error(`the stack's process exited (${code}) before it was ready`)));
    });
    return { ...ready, pid: child.pid ?? 0, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
  } catch (err) {
    await end('SIGKILL');
    throw err;
  }
}
