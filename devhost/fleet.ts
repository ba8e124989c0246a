/**
 * The local stack with N instances (`npm start -- --instances N`): the shared parts (store, queues, identity
 * provider, directory) run once in this process; N function hosts run in processes of their own (devhost/instance.ts),
 * each on a port of its own, each polling the background queue (competing consumers, as Azure's instances do);
 * the front (devhost/front.ts, in a process of its own: devhost/frontProcess.ts) on the host URL spreads requests
 * over the live ones. Timers run once per schedule
 * for the whole fleet: one live instance owns them (devhost/timerOwner.ts), and when it dies a survivor takes
 * them over, as Azure's timer singleton lease moves. Tests and benchmarks kill an instance with `kill(index)`
 * (SIGKILL: nothing of it runs after) while the others go on.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { disposeServices } from '../lib/services';
import type { DevHost, HostLog } from './host';
import type { FromInstance, InstanceConfig, ToInstance } from './instanceProtocol';
import type { FromFront, ToFront } from './frontProtocol';
import { RoundRobin } from './roundRobin';
import { timerOwner } from './timerOwner';
import {
  defaultFunctions,
  publishBaseUrl,
  readHostJson,
  seedDevData,
  stackOf,
  startSharedParts,
  type LocalStack,
  type StackOptions,
} from './stack';

/**
 * How the fleet's processes are started: an instance's entry module, the front's, and Node.js options (tests run
 * the TypeScript sources).
 */
export interface InstanceRunner {
  entry: string;
  frontEntry: string;
  execArgv: string[];
}

export interface FleetOptions extends StackOptions {
  instances: number;
  /** Default: the compiled devhost/instance.js beside this module. */
  runner?: InstanceRunner;
}

export interface FleetInstance {
  index: number;
  /** WEBSITE_INSTANCE_ID in the instance's environment. */
  instanceId: string;
  url: string;
  pid: number;
  alive: boolean;
}

export interface TimerRun {
  index: number;
  name: string;
  succeeded: boolean;
  at: number;
}

export interface LocalFleet extends LocalStack {
  instances(): FleetInstance[];
  /** The instance that runs the timers now (undefined when none lives). */
  timerOwner(): number | undefined;
  /** Every timer run of every instance, in the order they were reported. */
  timerRuns(): TimerRun[];
  /** Ends instance `index` with SIGKILL; resolves once the fleet has seen it end (it is out of the front's turn). */
  kill(index: number): Promise<void>;
}

interface Member extends FleetInstance {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
  /** Resolves once the front gives the instance no more requests (after it ended). */
  removed: Promise<void>;
  pending: Map<number, { resolve: () => void; reject: (err: Error) => void }>;
}

/** An instance id as Azure writes WEBSITE_INSTANCE_ID: 64 hexadecimal digits. */
export function newInstanceId(): string {
  return randomBytes(32).toString('hex');
}

function defaultRunner(): InstanceRunner {
  if (__filename.endsWith('.ts'))
    throw new Error('The TypeScript sources need a runner for their instances (tests/support/fleet.ts has one)');
  return {
    entry: path.join(__dirname, 'instance.js'),
    frontEntry: path.join(__dirname, 'frontProcess.js'),
    execArgv: [],
  };
}

const START_TIMEOUT_MS = 120_000;

/** The front's process, as the fleet sees it. */
interface FleetFront {
  url: string;
  add(index: number, port: number): void;
  /** Resolves once the front gives instance `index` no more requests. */
  remove(index: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the front in a process of its own (devhost/frontProcess.ts) on `port` (0: any free one). */
function startFrontProcess(runner: InstanceRunner, port: number): Promise<FleetFront> {
  const child = fork(runner.frontEntry, [], {
    execArgv: runner.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const removals = new Map<number, () => void>();
  const tell = (message: ToFront): boolean => child.connected && child.send(message);
  return new Promise<FleetFront>((resolve, reject) => {
    const timeout = setTimeout(() => {
      child.kill();
      reject(new Error('The front did not start in time'));
    }, START_TIMEOUT_MS);
    child.on('message', (message: FromFront) => {
      if (message.kind === 'removed') {
        removals.get(message.index)?.();
        removals.delete(message.index);
        return;
      }
      clearTimeout(timeout);
      if (message.kind === 'failed') {
        child.kill();
        return reject(new Error(`The front did not start: ${message.message}`));
      }
      resolve({
        url: message.url,
        add: (index, instancePort) => void tell({ kind: 'add', index, port: instancePort }),
        remove: (index) =>
          new Promise<void>((removed) => {
            removals.set(index, removed);
            if (!tell({ kind: 'remove', index })) removed();
          }),
        close: async () => {
          if (child.connected) child.disconnect();
          await exited;
        },
      });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timeout);
      for (const removed of removals.values()) removed();
      removals.clear();
      reject(new Error(`The front ended (${signal ?? code}) before it was ready`));
    });
    child.send({ kind: 'start', port } satisfies ToFront);
  });
}

export async function startLocalFleet(options: FleetOptions): Promise<LocalFleet> {
  const log: HostLog = options.log ?? (() => undefined);
  const runner = options.runner ?? defaultRunner();
  const fns = options.functions ?? defaultFunctions();
  const hostJson = options.hostJson ?? readHostJson(fns.dir);
  const shared = await startSharedParts(options);
  const turn = new RoundRobin<Member>();
  const members: Member[] = [];
  const processes: ChildProcess[] = [];
  const runs: TimerRun[] = [];
  let timersOn = options.runTimersOnSchedule ?? false;
  let owner: Member | undefined;
  let stopping = false;
  let nextId = 1;

  const front = await startFrontProcess(runner, options.ports?.host ?? 0).catch(async (err: unknown) => {
    await shared.stop().catch(() => undefined);
    throw err;
  });

  const tell = (member: Member, message: ToInstance): void => {
    if (member.alive && member.child.connected) member.child.send(message);
  };
  const ask = (member: Member, message: (id: number) => ToInstance): Promise<void> =>
    new Promise((resolve, reject) => {
      if (!member.alive) return reject(new Error(`Instance ${member.index} is not running`));
      const id = nextId++;
      member.pending.set(id, { resolve, reject });
      tell(member, message(id));
    });

  /** Gives the timers to the instance the choice names, and takes them from the one that had them. */
  const assignTimers = (): void => {
    const chosen = timerOwner(turn.live, owner);
    if (chosen !== owner && owner?.alive) tell(owner, { kind: 'timers', on: false });
    owner = chosen;
    if (owner) tell(owner, { kind: 'timers', on: timersOn });
    if (owner && timersOn) log('info', `Instance ${owner.index} runs the timers`);
  };

  const startInstance = (index: number): Promise<Member> => {
    const instanceId = newInstanceId();
    const child = fork(runner.entry, [], {
      execArgv: runner.execArgv,
      env: { ...process.env, ...shared.env, WEBSITE_INSTANCE_ID: instanceId },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    processes.push(child);
    exits.push(exited);
    const config: InstanceConfig = { index, functions: fns, hostJson };
    return new Promise<Member>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`Instance ${index} did not start in time`)), START_TIMEOUT_MS);
      let member: Member | undefined;
      child.on('message', (message: FromInstance) => {
        if (message.kind === 'log') return log(message.level, `instance ${index}: ${message.message}`);
        if (message.kind === 'timerRun')
          return void runs.push({ index, name: message.name, succeeded: message.succeeded, at: Date.now() });
        if (message.kind === 'reply') {
          const waiting = member?.pending.get(message.id);
          member?.pending.delete(message.id);
          if (message.error !== undefined) waiting?.reject(new Error(message.error));
          else waiting?.resolve();
          return;
        }
        if (message.kind === 'failed') {
          clearTimeout(timeout);
          return reject(new Error(`Instance ${index} did not start: ${message.message}`));
        }
        clearTimeout(timeout);
        member = {
          index,
          instanceId,
          url: message.url,
          pid: child.pid ?? 0,
          alive: true,
          child,
          exited,
          pending: new Map(),
          port: Number(new URL(message.url).port),
          removed: Promise.resolve(),
        };
        resolve(member);
        functionsOf = message.functions;
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timeout);
        if (!member) return reject(new Error(`Instance ${index} ended (${signal ?? code}) before it was ready`));
        member.alive = false;
        turn.remove(member);
        member.removed = front.remove(index);
        for (const waiting of member.pending.values()) waiting.reject(new Error(`Instance ${index} ended`));
        member.pending.clear();
        if (stopping) return;
        log('warn', `Instance ${index} ended (${signal ?? code}); ${turn.live.length} still serve`);
        if (owner === member) assignTimers();
      });
      child.send({ kind: 'start', config } satisfies ToInstance);
    });
  };

  let functionsOf: DevHost['functions'] = { http: [], timers: [], queues: [] };
  const exits: Array<Promise<void>> = [];
  const stopInstances = async (): Promise<void> => {
    stopping = true;
    for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(exits);
    await front.close();
  };

  try {
    publishBaseUrl(shared, front.url);
    disposeServices();
    await seedDevData();
    const started = await Promise.allSettled(Array.from({ length: options.instances }, (_, i) => startInstance(i + 1)));
    for (const s of started) if (s.status === 'fulfilled') members.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    for (const m of members) {
      turn.add(m);
      front.add(m.index, m.port);
    }
    assignTimers();
  } catch (err) {
    await stopInstances().catch(() => undefined);
    await shared.stop().catch(() => undefined);
    throw err;
  }

  const host: DevHost = {
    url: front.url,
    functions: functionsOf,
    runTimer: async (name) => {
      const runner = owner ?? turn.live[0];
      if (!runner) throw new Error('No instance is running');
      await ask(runner, (id) => ({ kind: 'runTimer', id, name }));
    },
    queuesIdle: async (timeoutMs = 60_000) => {
      await Promise.all(turn.live.map((m) => ask(m, (id) => ({ kind: 'queuesIdle', id, timeoutMs }))));
    },
    setTimersOnSchedule: (on) => {
      timersOn = on;
      assignTimers();
    },
    close: stopInstances,
  };

  return {
    ...stackOf(shared, host, stopInstances),
    instances: () => members.map(({ index, instanceId, url, pid, alive }) => ({ index, instanceId, url, pid, alive })),
    timerOwner: () => owner?.index,
    timerRuns: () => [...runs],
    kill: async (index) => {
      const member = members.find((m) => m.index === index);
      if (!member) throw new Error(`No instance ${index}`);
      if (member.alive) member.child.kill('SIGKILL');
      await member.exited;
      await member.removed;
    },
  };
}
