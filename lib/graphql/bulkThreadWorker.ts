/**
 * The bulk thread's script (see bulkThread.ts): serves the GraphQL requests the main thread hands over with
 * its own services (its own store client) and graphql-yoga, and sends back the answer, the request's log
 * lines and its questions for bulk budget.
 */
import { parentPort } from 'node:worker_threads';
import { services } from '../services';
import { createLogger, type Logger } from '../log/logger';
import { diffCounters, storeCounters, type StoreCounters } from '../store/metrics';
import { createContext } from './context';
import { createGraphQLServer, type GraphQLServer } from './server';
import type { BulkAnswer, BulkRequest, FromBulkThread, ToBulkThread } from './bulkThread';

const port = parentPort;
if (!port) throw new Error('bulkThreadWorker runs only as a worker thread');
const main = port;

let server: GraphQLServer | undefined;
const budgetAnswers = new Map<number, (wait: number) => void>();
let nextCall = 1;

const send = (m: FromBulkThread, transfer: ArrayBuffer[] = []) => main.postMessage(m, transfer);

let reported = storeCounters();
/** The store operations since the last report (they are added to the main thread's counters). */
function countersSinceReport(): StoreCounters {
  const now = storeCounters();
  const since = diffCounters(now, reported);
  reported = now;
  return since;
}

function loggerOf(id: number, request: BulkRequest): Logger {
  return createLogger(
    (level, line) => send({ type: 'log', id, level, line }),
    { function: request.functionName, correlationId: request.correlationId },
    services().settings.logLevel,
  );
}

async function serve(id: number, request: BulkRequest, log: Logger): Promise<BulkAnswer> {
  const svc = services();
  const yoga = (server ??= createGraphQLServer({
    introspection: svc.settings.graphqlIntrospection,
    maxBodyBytes: svc.settings.graphqlMaxBodyBytes,
    maxQueryBytes: svc.settings.graphqlMaxQueryBytes,
  }));
  const takeBulkBudget = (tenantId: string, units: number) =>
    new Promise<number>((resolve) => {
      const callId = nextCall++;
      budgetAnswers.set(callId, resolve);
      send({ type: 'budget', id, callId, tenantId, units });
    });
  const response = await yoga.fetch(
    request.url,
    { method: request.method, headers: new Headers(request.headers), body: request.body },
    createContext(svc, request.admin, log, request.correlationId, takeBulkBudget),
  );
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, key) => headers.push([key, value]));
  return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
}

main.on('message', (m: ToBulkThread) => {
  if (m.type === 'budget') {
    budgetAnswers.get(m.callId)?.(m.wait);
    budgetAnswers.delete(m.callId);
    return;
  }
  const log = loggerOf(m.id, m.request);
  serve(m.id, m.request, log).then(
    (answer) =>
      send({ type: 'answer', id: m.id, answer, counters: countersSinceReport() }, [answer.body.buffer as ArrayBuffer]),
    (err: unknown) => {
      // The error's kind only: its message may carry what the caller sent.
      log.error('graphql request failed on the bulk thread', { error: err instanceof Error ? err.name : 'unknown' });
      send({ type: 'failed', id: m.id, counters: countersSinceReport() });
    },
  );
});
