/**
 * Azurite's queue service (the Azure Storage emulator, from npm) in this process, in memory,
 * on loopback. The dev host serves queue triggers against it and the service sends to it
 * with the account's well-known development connection string.
 */
import type { Server } from 'node:http';

/** Azurite's documented development account (a public, fixed key: not a secret). */
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;

export interface LocalQueues {
  /** Connection string of the emulator's queue endpoint (the value of a queue `connection` setting). */
  connectionString: string;
  endpoint: string;
  close(): Promise<void>;
}

// Azurite ships JavaScript without type declarations; these are the parts used here.
interface AzuriteQueueServer {
  start(): Promise<void>;
  close(): Promise<void>;
  clean(): Promise<void>;
  getHttpServerAddress(): string;
  httpServer?: Server;
}
type QueueServerClass = new (configuration: unknown) => AzuriteQueueServer;
type QueueConfigurationClass = new (...args: unknown[]) => unknown;
type ChunkStoreClass = new (sizeLimit: number) => unknown;

function loadAzurite(): {
  QueueServer: QueueServerClass;
  QueueConfiguration: QueueConfigurationClass;
  MemoryExtentChunkStore: ChunkStoreClass;
} {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const server = require('azurite/dist/src/queue/QueueServer') as { default: QueueServerClass };
  const config = require('azurite/dist/src/queue/QueueConfiguration') as { default: QueueConfigurationClass };
  const memory = require('azurite/dist/src/common/persistence/MemoryExtentStore') as {
    MemoryExtentChunkStore: ChunkStoreClass;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    QueueServer: server.default,
    QueueConfiguration: config.default,
    MemoryExtentChunkStore: memory.MemoryExtentChunkStore,
  };
}

/** Starts the emulator's queue service on `port` (0 = a free port); messages live in memory only. */
export async function startLocalQueues(port: number, host = '127.0.0.1'): Promise<LocalQueues> {
  const { QueueServer, QueueConfiguration, MemoryExtentChunkStore } = loadAzurite();
  // Positional: host, port, keepAliveTimeout, metadataDBPath, extentDBPath, persistencePathArray,
  // enableAccessLog, accessLogWriteStream, enableDebugLog, debugLogFilePath, loose, skipApiVersionCheck,
  // cert, key, pwd, oauth, disableProductStyleUrl, isMemoryPersistence, memoryStore.
  const configuration = new QueueConfiguration(
    host,
    port,
    undefined,
    undefined,
    undefined,
    undefined,
    false,
    undefined,
    false,
    undefined,
    true,
    true,
    '',
    '',
    '',
    undefined,
    false,
    true,
    new MemoryExtentChunkStore(MEMORY_LIMIT_BYTES),
  );
  const server = new QueueServer(configuration);
  await server.start();
  const endpoint = `${server.getHttpServerAddress().replace(/\/+$/, '')}/${DEV_ACCOUNT}`;
  return {
    endpoint,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_ACCOUNT_KEY};QueueEndpoint=${endpoint};`,
    close: async () => {
      await server.close();
      await server.clean();
    },
  };
}
