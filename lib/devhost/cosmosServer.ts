import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '@vercel/cosmosdb-server';

/** The well-known key of the Cosmos DB emulator; the local server accepts any key. */
export const LOCAL_COSMOS_KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

export interface LocalCosmos {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts the in-process Cosmos DB-compatible server on plain HTTP. */
export async function startLocalCosmos(port: number, host = '127.0.0.1'): Promise<LocalCosmos> {
  // keepAlive: the server otherwise answers every request with `connection: close`, and the SDK
  // opens a new TCP connection per store operation.
  const server: Server = createHttpServer({ keepAlive: true });
  // No idle timeout: a connection the server closes while the client is about to reuse it fails that
  // request (ECONNRESET), which happened after event-loop stalls of several seconds (parsing a large
  // import). Connections end when the stack stops.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://${host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
