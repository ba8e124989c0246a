/**
 * The record of the running local stack: `npm start` writes `.local/stack.json` (its URLs, ports and
 * process id) once it listens and removes it when it stops cleanly; `npm run ops` and
 * `npm run import -- --local` read it, so they follow a stack started on other ports without flags or env.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORTS } from './devData';
import type { LocalStack } from './stack';
import type { FleetInstance } from './fleet';

export type StackPorts = typeof DEFAULT_PORTS;

export interface StackRecord {
  pid: number;
  startedAt: string;
  ports: StackPorts;
  urls: { host: string; idp: string; directory: string; keyVault: string; cosmos: string; queues: string };
  /** With `--instances N`: each instance's own URL, process and WEBSITE_INSTANCE_ID (the host URL is the front's). */
  instances?: Array<Omit<FleetInstance, 'alive'>>;
}

export const STACK_RECORD_FILE = path.join('.local', 'stack.json');

export function defaultStackRecordPath(): string {
  return path.resolve(STACK_RECORD_FILE);
}

function portOf(url: string): number {
  const u = new URL(url);
  return Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
}

/** The record of a started stack, owned by this process. */
export function recordOf(
  stack: LocalStack & { instances?: () => FleetInstance[] },
  pid: number = process.pid,
  now: Date = new Date(),
): StackRecord {
  const host = stack.env.PUBLIC_BASE_URL ?? stack.host.url;
  const instances = stack.instances?.().map(({ index, instanceId, url, pid }) => ({ index, instanceId, url, pid }));
  return {
    pid,
    startedAt: now.toISOString(),
    ports: {
      host: portOf(stack.host.url),
      idp: portOf(stack.idp.url),
      directory: portOf(stack.directory.url),
      keyVault: portOf(stack.keyVault.url),
      cosmos: portOf(stack.cosmosEndpoint),
      queues: portOf(stack.queueEndpoint),
    },
    urls: {
      host,
      idp: stack.idp.url,
      directory: stack.directory.url,
      keyVault: stack.keyVault.url,
      cosmos: stack.cosmosEndpoint,
      queues: stack.queueEndpoint,
    },
    ...(instances ? { instances } : {}),
  };
}

export function writeStackRecord(file: string, record: StackRecord): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`);
  fs.renameSync(temp, file);
}

/** Removes the record if it is this process's own (a second stack may have replaced it). */
export function removeStackRecord(file: string, pid = process.pid): void {
  const current = readRecordFile(file);
  if (current && current.pid !== pid) return;
  fs.rmSync(file, { force: true });
}

function isPort(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 65535;
}

function readRecordFile(file: string): StackRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const r = parsed as Partial<StackRecord> | null;
  if (!r || typeof r !== 'object' || typeof r.pid !== 'number' || !r.ports || !r.urls) return undefined;
  const ports = r.ports as Partial<Record<keyof StackPorts, unknown>>;
  if (!(Object.keys(DEFAULT_PORTS) as Array<keyof StackPorts>).every((k) => isPort(ports[k]))) return undefined;
  return r as StackRecord;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type RecordedStack =
  | { state: 'none' }
  | { state: 'running'; record: StackRecord }
  | { state: 'stale'; record: StackRecord }
  | { state: 'unreadable' };

/** What the record says: no stack recorded, a running one, or one whose process is gone (a crash, a kill -9). */
export function readStackRecord(file: string = defaultStackRecordPath()): RecordedStack {
  if (!fs.existsSync(file)) return { state: 'none' };
  const record = readRecordFile(file);
  if (!record) return { state: 'unreadable' };
  return processRuns(record.pid) ? { state: 'running', record } : { state: 'stale', record };
}

export class StackRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StackRecordError';
  }
}

/**
 * The local stack a tool talks to: the recorded one when it runs; the default ports only when no
 * stack is recorded, or when the recorded stack uses the default ports anyway. A record that cannot
 * be trusted (its process gone, its ports elsewhere) is refused rather than guessed around.
 */
export function localStack(file: string = defaultStackRecordPath()): { ports: StackPorts; recorded: boolean } {
  const found = readStackRecord(file);
  if (found.state === 'running') return { ports: found.record.ports, recorded: true };
  if (found.state === 'none') return { ports: { ...DEFAULT_PORTS }, recorded: false };
  if (found.state === 'unreadable')
    throw new StackRecordError(
      `${file} is not a stack record this tool can read; start the local stack again with \`npm start\` (it rewrites the file) or delete the file`,
    );
  const sameAsDefault = (Object.keys(DEFAULT_PORTS) as Array<keyof StackPorts>).every(
    (k) => found.record.ports[k] === DEFAULT_PORTS[k],
  );
  if (sameAsDefault) return { ports: { ...DEFAULT_PORTS }, recorded: false };
  throw new StackRecordError(
    `The local stack recorded in ${file} (process ${found.record.pid}, functions host on port ${found.record.ports.host}) is no longer running, ` +
      'and it used other ports than the defaults, so this tool will not guess: start it again with `npm start`, ' +
      'or delete the file to use the default ports',
  );
}
