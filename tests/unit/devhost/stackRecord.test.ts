/** The record of the running local stack, and which stack a tool follows from it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  localStack,
  recordOf,
  readStackRecord,
  removeStackRecord,
  StackRecordError,
  writeStackRecord,
  type StackRecord,
} from '../../../devhost/stackRecord';
import { DEFAULT_PORTS } from '../../../devhost/devData';
import type { LocalStack } from '../../../devhost/stack';
import type { FleetInstance } from '../../../devhost/fleet';
import { MAX_INSTANCES, startArgs } from '../../../devhost/startArgs';

const OTHER_PORTS = { host: 17071, idp: 17072, directory: 17073, keyVault: 17074, cosmos: 18081, queues: 20001 };
const DEAD_PID = 2 ** 30;

function record(pid: number, ports = OTHER_PORTS): StackRecord {
  return {
    pid,
    startedAt: '2026-01-01T00:00:00.000Z',
    ports,
    urls: {
      host: `http://localhost:${ports.host}`,
      idp: `http://127.0.0.1:${ports.idp}`,
      directory: `http://127.0.0.1:${ports.directory}`,
      keyVault: `http://127.0.0.1:${ports.keyVault}`,
      cosmos: `http://127.0.0.1:${ports.cosmos}`,
      queues: `http://127.0.0.1:${ports.queues}/devstoreaccount1`,
    },
  };
}

describe('stack record', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-record-'));
    file = path.join(dir, '.local', 'stack.json');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('without a record, tools use the default ports', () => {
    expect(readStackRecord(file)).toEqual({ state: 'none' });
    expect(localStack(file)).toEqual({ ports: DEFAULT_PORTS, recorded: false });
  });

  it('a running stack on other ports is followed', () => {
    writeStackRecord(file, record(process.pid));
    expect(readStackRecord(file)).toEqual({ state: 'running', record: record(process.pid) });
    expect(localStack(file)).toEqual({ ports: OTHER_PORTS, recorded: true });
  });

  it('a recorded stack on other ports whose process is gone is refused with a clear message, not guessed around', () => {
    writeStackRecord(file, record(DEAD_PID));
    expect(readStackRecord(file).state).toBe('stale');
    expect(() => localStack(file)).toThrow(StackRecordError);
    expect(() => localStack(file)).toThrow(/no longer running.*other ports than the defaults.*npm start/);
  });

  it('a gone stack that used the default ports leaves the defaults; an unreadable record is refused', () => {
    writeStackRecord(file, record(DEAD_PID, DEFAULT_PORTS));
    expect(localStack(file)).toEqual({ ports: DEFAULT_PORTS, recorded: false });
    fs.writeFileSync(file, '{"pid": "x"}');
    expect(() => localStack(file)).toThrow(/not a stack record/);
  });

  it('with several instances, the record names each one (its URL, process and instance id); the host URL is the front', () => {
    const stack = {
      env: { PUBLIC_BASE_URL: 'http://localhost:17071' },
      host: { url: 'http://127.0.0.1:17071' },
      idp: { url: 'http://127.0.0.1:17072' },
      directory: { url: 'http://127.0.0.1:17073' },
      keyVault: { url: 'http://127.0.0.1:17074' },
      cosmosEndpoint: 'http://127.0.0.1:18081',
      queueEndpoint: 'http://127.0.0.1:20001/devstoreaccount1',
    } as unknown as LocalStack;
    const instances: FleetInstance[] = [
      { index: 1, instanceId: 'a'.repeat(64), url: 'http://127.0.0.1:40001', pid: 11, alive: true },
      { index: 2, instanceId: 'b'.repeat(64), url: 'http://127.0.0.1:40002', pid: 12, alive: false },
    ];
    const now = new Date('2026-01-01T00:00:00.000Z');
    expect(recordOf({ ...stack, instances: () => instances }, 10, now)).toEqual({
      ...record(10),
      instances: instances.map(({ alive: _alive, ...rest }) => rest),
    });
    expect(recordOf(stack, 10, now)).toEqual(record(10));
  });

  it('a clean stop removes its own record, never the record of another stack', () => {
    writeStackRecord(file, record(process.pid));
    removeStackRecord(file, process.pid + 1);
    expect(fs.existsSync(file)).toBe(true);
    removeStackRecord(file, process.pid);
    expect(fs.existsSync(file)).toBe(false);
    expect(() => removeStackRecord(file, process.pid)).not.toThrow();
  });
});

describe('npm start arguments', () => {
  it('--help (or -h) asks for the usage; --in-memory starts in memory; nothing starts the usual stack', () => {
    expect(startArgs(['--help'])).toEqual({ kind: 'help' });
    expect(startArgs(['-h'])).toEqual({ kind: 'help' });
    expect(startArgs(['--in-memory'])).toEqual({ kind: 'start', inMemory: true, instances: 1 });
    expect(startArgs([])).toEqual({ kind: 'start', inMemory: false, instances: 1 });
  });

  it.each([['--in-memroy'], ['--port=1'], ['extra']])('refuses %s with a hint, before anything starts', (arg) => {
    const r = startArgs([arg]);
    expect(r).toEqual({ kind: 'refused', message: expect.stringContaining('npm start -- --help') });
  });

  it(`--instances N (or -n N) asks for N instances, from 1 to ${MAX_INSTANCES}`, () => {
    expect(startArgs(['--instances', '3'])).toEqual({ kind: 'start', inMemory: false, instances: 3 });
    expect(startArgs(['--instances=1', '--in-memory'])).toEqual({ kind: 'start', inMemory: true, instances: 1 });
    expect(startArgs(['-n', String(MAX_INSTANCES)])).toEqual({ kind: 'start', inMemory: false, instances: 8 });
    expect(MAX_INSTANCES).toBe(8);
  });

  it.each([['0'], ['9'], ['-1'], ['2.5'], ['three'], ['1e1'], [''], ['0x3'], ['100']])(
    'refuses --instances %p saying what it takes, without repeating it',
    (value) => {
      const r = startArgs([`--instances=${value}`]);
      expect(r).toEqual({ kind: 'refused', message: '--instances takes a whole number from 1 to 8' });
    },
  );

  it('refuses --instances without a number', () => {
    expect(startArgs(['--instances'])).toEqual({
      kind: 'refused',
      message: expect.stringContaining('npm start -- --help'),
    });
  });
});
