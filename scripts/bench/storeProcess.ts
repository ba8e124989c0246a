/*
 * The local Cosmos DB engine in a process of its own, for benchmarks that measure the service's own CPU
 * (bench:fairness): in Azure the store runs on other machines, not between the service's requests.
 * Forked by storeInProcess() below; answers its endpoint once listening, then its request-unit usage when asked,
 * and changes its account mode when told.
 */
import { fork } from 'node:child_process';
import { startLocalCosmos } from '../../devhost/cosmosServer';
import type { CosmosMode, ThroughputUsage } from '../../devhost/cosmos/throughput';

export interface StoreProcess {
  endpoint: string;
  usage(): Promise<ThroughputUsage>;
  /** Changes the engine's account mode (serverless: request priority ignored; provisioned: honoured). */
  setMode(mode: CosmosMode): Promise<void>;
  stop(): Promise<void>;
}

type Reply = { endpoint: string } | { usage: ThroughputUsage } | { mode: CosmosMode };
type Ask = 'usage' | { mode: CosmosMode };

/** Starts the engine in a child process serving `ruPerSecond` request units per second per container. */
export function storeInProcess(
  ruPerSecond: number | undefined,
  mode: CosmosMode = 'serverless',
): Promise<StoreProcess> {
  const child = fork(__filename, [String(ruPerSecond ?? ''), mode]);
  const replies: Array<(r: Reply) => void> = [];
  child.on('message', (m: Reply) => replies.shift()?.(m));
  const next = () => new Promise<Reply>((resolve) => replies.push(resolve));
  return next().then((first) => ({
    endpoint: (first as { endpoint: string }).endpoint,
    usage: async () => {
      const reply = next();
      child.send('usage' satisfies Ask);
      return ((await reply) as { usage: ThroughputUsage }).usage;
    },
    setMode: async (mode) => {
      const reply = next();
      child.send({ mode } satisfies Ask);
      await reply;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  }));
}

if (require.main === module) {
  const ru = Number(process.argv[2]);
  const mode = process.argv[3] === 'provisioned' ? 'provisioned' : 'serverless';
  void startLocalCosmos({ port: 0, ruPerSecond: ru > 0 ? ru : undefined, mode }).then((cosmos) => {
    process.on('message', (ask: Ask) => {
      if (ask === 'usage') return void process.send?.({ usage: cosmos.requestUnits() } satisfies Reply);
      cosmos.setMode(ask.mode);
      process.send?.({ mode: cosmos.mode() } satisfies Reply);
    });
    // Ends with the benchmark, however the benchmark ends.
    process.on('disconnect', () => process.exit(0));
    process.send?.({ endpoint: cosmos.endpoint });
  });
}
