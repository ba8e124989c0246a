/**
 * A second instance of the service in a process of its own (the service objects are per process, as
 * on separate Function App instances): a dev host serving every function, over the same store, queues,
 * identity provider and directory as a test stack. The TypeScript sources are loaded as they are
 * (compiled file by file with esbuild when required).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestStack } from './stack';

const ROOT = path.resolve(__dirname, '..', '..');

const CHILD = `
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const root = process.argv[2];
const { transformSync } = require(require.resolve('esbuild', { paths: [root] }));
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { loader: 'ts', format: 'cjs', target: 'node22', sourcefile: filename });
  module._compile(code, filename);
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === '@azure/functions-core' ? path.join(root, 'devhost/functionsCore.ts') : request, ...rest);
};
const { startDevHost, requireFunctionFolder } = require(path.join(root, 'devhost/host.ts'));
const { stopOnSignalOrParentExit } = require(path.join(root, 'devhost/lifetime.ts'));
startDevHost({
  port: 0,
  load: () => requireFunctionFolder(path.join(root, 'functions'), '.ts'),
  runTimersOnSchedule: false,
  hostJson: JSON.parse(fs.readFileSync(path.join(root, 'host.json'), 'utf8')),
  log: (level, message) => { if (level !== 'info') process.stderr.write('[second instance] ' + message + '\\n'); },
}).then((host) => {
  stopOnSignalOrParentExit(() => host.close(), { watchParent: true, pollMs: 200 });
  process.stdout.write('READY ' + host.url + '\\n');
}, (err) => { process.stderr.write(String(err && err.stack || err) + '\\n'); process.exit(1); });
`;

export interface SecondInstance {
  /** Base URL of its functions (http://127.0.0.1:<port>). */
  base: string;
  stop(): Promise<void>;
}

export async function startSecondInstance(stack: TestStack): Promise<SecondInstance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'second-instance-'));
  const script = path.join(dir, 'instance.js');
  fs.writeFileSync(script, CHILD);
  const child = spawn(process.execPath, [script, ROOT], {
    env: { ...process.env, ...stack.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /READY (\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`second instance exited (${code}) before it was ready`)));
    });
    return {
      base,
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
