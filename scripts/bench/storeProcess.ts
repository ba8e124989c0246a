/*
 * The local Cosmos DB engine in a process of its own, for benchmarks that measure the service's own CPU and
 * memory (bench:fairness, bench:import): in Azure the store runs on other machines, not between the service's
 * requests. Forked by storeInProcess() below; answers its endpoint once listening, then its request-unit usage
 * and its own memory when asked, and changes its account mode when told. The benchmark stops at once, with
 * the reason, if the engine's process dies (see childWatch.ts).
 */
import { fork } from 'node:child_process';
import { startLocalCosmos } from '../../devhost/cosmosServer';
import type { CosmosMode, ThroughputUsage } from '../../devhost/cosmos/throughput';
import type { ContainerContents } from '../../devhost/cosmos/engine';
import { watchChild } from './childWatch';
import { MB, peakRssBytes } from './processMemory';

/**
 * The engine's V8 heap limit in MB for a run that stores about `identities` identities: BENCH_STORE_HEAP_MB when
 * set, else 6,144 MB or more (4 KB an identity, with its history, links and audit entries, above 2 GB).
 */
export function storeHeapMb(identities = 0): number {
  const set = Number(process.env.BENCH_STORE_HEAP_MB);
  if (set > 0) return set;
  return Math.min(16_384, Math.max(6144, 2048 + Math.ceil((identities * 4) / 1024)));
}

/** The engine process's memory in MB (heap after a full garbage collection). */
export interface StoreMemory {
  heapUsedMb: number;
  rssMb: number;
  /** The process's peak RSS so far (VmHWM). */
  peakRssMb: number;
}

export interface StoreProcess {
  endpoint: string;
  pid: number | undefined;
  usage(): Promise<ThroughputUsage>;
  memory(): Promise<StoreMemory>;
  /** What each of the engine's containers holds. */
  contents(): Promise<ContainerContents[]>;
  /** Changes the engine's account mode (serverless: request priority ignored; provisioned: honoured). */
  setMode(mode: CosmosMode): Promise<void>;
  stop(): Promise<void>;
}

type Reply =
  | { endpoint: string }
  | { usage: ThroughputUsage }
  | { mode: CosmosMode }
  | { memory: StoreMemory }
  | { contents: ContainerContents[] };
type Ask = 'usage' | 'memory' | 'contents' | { mode: CosmosMode };

/** Starts the engine in a child process (heap limit `heapMb`) serving `ruPerSecond` request units per second per container. */
export function storeInProcess(
  ruPerSecond: number | undefined,
  mode: CosmosMode = 'serverless',
  heapMb: number = storeHeapMb(),
): Promise<StoreProcess> {
  const child = fork(__filename, [String(ruPerSecond ?? ''), mode], {
    execArgv: [...process.execArgv, `--max-old-space-size=${heapMb}`, '--expose-gc'],
    stdio: ['inherit', 'inherit', 'pipe', 'ipc'],
  });
  const watched = watchChild(child, `the store's engine process (pid ${child.pid})`);
  const replies: Array<(r: Reply) => void> = [];
  child.on('message', (m: Reply) => replies.shift()?.(m));
  const next = () => new Promise<Reply>((resolve) => replies.push(resolve));
  const ask = async (question: Ask): Promise<Reply> => {
    const reply = next();
    child.send(question);
    return reply;
  };
  return next().then((first) => ({
    endpoint: (first as { endpoint: string }).endpoint,
    pid: child.pid,
    usage: async () => ((await ask('usage')) as { usage: ThroughputUsage }).usage,
    memory: async () => ((await ask('memory')) as { memory: StoreMemory }).memory,
    contents: async () => ((await ask('contents')) as { contents: ContainerContents[] }).contents,
    setMode: async (mode) => {
      await ask({ mode });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        watched.stopping();
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  }));
}

function memoryNow(): StoreMemory {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return {
    heapUsedMb: Math.round(m.heapUsed / MB),
    rssMb: Math.round(m.rss / MB),
    peakRssMb: Math.round((peakRssBytes() ?? m.rss) / MB),
  };
}

if (require.main === module) {
  const ru = Number(process.argv[2]);
  const mode = process.argv[3] === 'provisioned' ? 'provisioned' : 'serverless';
  void startLocalCosmos({ port: 0, ruPerSecond: ru > 0 ? ru : undefined, mode }).then((cosmos) => {
    process.on('message', (ask: Ask) => {
      if (ask === 'usage') return void process.send?.({ usage: cosmos.requestUnits() } satisfies Reply);
      if (ask === 'memory') return void process.send?.({ memory: memoryNow() } satisfies Reply);
      if (ask === 'contents') return void process.send?.({ contents: cosmos.contents() } satisfies Reply);
      cosmos.setMode(ask.mode);
      process.send?.({ mode: cosmos.mode() } satisfies Reply);
    });
    // Ends with the benchmark, however the benchmark ends.
    process.on('disconnect', () => process.exit(0));
    process.send?.({ endpoint: cosmos.endpoint });
  });
}
