import type { AddressInfo } from 'node:net';
import { Engine, type ContainerContents } from './cosmos/engine';
import type { CompactionOptions } from './cosmos/journal';
import { createEngineServer } from './cosmos/server';
import { Throughput, type CosmosMode, type ThroughputUsage } from './cosmos/throughput';

/** The well-known key of the Cosmos DB emulator; the local server accepts any key. */
export const LOCAL_COSMOS_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

export interface LocalCosmosOptions {
  port: number;
  host?: string;
  /** Folder the engine keeps its data in (journal and snapshot); without it the engine starts empty and keeps everything in memory. */
  dataDir?: string;
  /** Request units per second each container serves before answering 429 (as Cosmos DB does); undefined = unlimited. */
  ruPerSecond?: number;
  /** The account the engine stands for: `serverless` (default) ignores request priority, `provisioned` honours it. */
  mode?: CosmosMode;
  /** When the engine compacts its journal while it runs (defaults suit `npm start`; tests make it small). */
  compaction?: CompactionOptions;
}

export interface LocalCosmos {
  endpoint: string;
  /** Documents loaded from `dataDir` at start. */
  loadedDocuments: number;
  /** Request units charged and requests throttled so far, per container. */
  requestUnits(): ThroughputUsage;
  /** The account mode now, and a change of it while the engine runs (a benchmark measures both on one store). */
  mode(): CosmosMode;
  setMode(mode: CosmosMode): void;
  /** Queries the containers' indexing policies could not serve so far (see cosmos/indexCoverage.ts). */
  indexGaps(): Array<{ container: string; query: string; gaps: string[] }>;
  /** What each container holds (documents, their JSON size, indexed paths), for benchmarks' memory figures. */
  contents(): ContainerContents[];
  close(): Promise<void>;
}

/** Starts the in-process Cosmos DB-compatible engine on plain HTTP. */
export async function startLocalCosmos(options: LocalCosmosOptions): Promise<LocalCosmos> {
  const host = options.host ?? '127.0.0.1';
  const state: { engine?: Engine } = {};
  // Requests are answered once the engine has loaded its data (503 before, which the SDK retries).
  const throughput = new Throughput(options.ruPerSecond, { mode: options.mode });
  const server = createEngineServer(() => state.engine, throughput);
  // No idle timeout: a connection the server closes while the client is about to reuse it fails that
  // request (ECONNRESET), which happened after event-loop stalls of several seconds (parsing a large
  // import). Connections end when the stack stops.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const ready = new Engine(host, actual);
  let loadedDocuments = 0;
  try {
    if (options.dataDir) loadedDocuments = ready.persistTo(options.dataDir, options.compaction).documents;
  } catch (err) {
    server.close();
    throw err;
  }
  state.engine = ready;
  return {
    endpoint: `http://${host}:${actual}`,
    loadedDocuments,
    requestUnits: () => throughput.usage(),
    mode: () => throughput.mode,
    setMode: (mode) => void (throughput.mode = mode),
    indexGaps: () => ready.indexGaps(),
    contents: () => ready.contents(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => {
          ready.close();
          resolve();
        });
      }),
  };
}
