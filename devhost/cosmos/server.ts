/**
 * HTTP front of the local engine: the Cosmos DB wire protocol as `@vercel/cosmosdb-server` speaks
 * it (its router and handlers), except for queries (run inside the partition the request names,
 * from indexes), query-plan requests (answered without running anything: the SDK only needs a
 * plan when the direct query is refused) and transactional batches (all or nothing). Every
 * document request is charged request units by the model in requestCharge.ts (header
 * `x-ms-request-charge`), and with a throughput budget refused with 429 beyond it, as Cosmos DB does.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { faultFor, faultsArmed, type FaultAnswer, type FaultTarget, type StoreOperation } from './faults';
import type { Engine } from './engine';
import { storeOf } from './engine';
import { addCharge, withMeter } from './chargeMeter';
import { MINIMUM_RU, batchCharge, chargeHeader, pointReadCharge, queryPageCharge } from './requestCharge';
import type { Priority, Throughput } from './throughput';
import {
  type RouteHandler,
  QuerySyntaxError,
  batchDocumentsHandler,
  documentOperations,
  queryDocumentsHandler,
  readJsonBody,
  route,
  type Json,
  type LibAccount,
  type LibCollection,
} from './library';

function trueHeader(req: IncomingMessage, name: string): boolean {
  const v = req.headers[name];
  return (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && x.toLowerCase() === 'true');
}

/** The value of the partition-key header, or undefined for none / the "no partition" marker `[{}]`. */
function partitionFromHeader(req: IncomingMessage): { value: unknown } | undefined {
  const raw = req.headers['x-ms-documentdb-partitionkey'];
  const header = Array.isArray(raw) ? raw[0] : raw;
  if (!header) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    return undefined;
  }
  const value = Array.isArray(parsed) ? parsed[0] : parsed;
  if (value === undefined || (typeof value === 'object' && value !== null)) return undefined;
  return { value };
}

function continuationOf(req: IncomingMessage): { token: string } | null {
  const raw = req.headers['x-ms-continuation'];
  if (typeof raw !== 'string' || !raw) return null;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { token?: unknown }).token === 'string'
      ? (parsed as { token: string })
      : null;
  } catch {
    return null;
  }
}

async function queryDocuments(
  account: LibAccount,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
): Promise<unknown> {
  if (trueHeader(req, 'x-ms-cosmos-is-query-plan-request')) {
    await readJsonBody(req);
    res.statusCode = 400;
    return { code: 'BadRequest', message: 'The local engine answers queries directly and serves no query plans' };
  }
  const body = (await readJsonBody(req)) as { query?: unknown; parameters?: Array<{ name: string; value: unknown }> };
  if (typeof body?.query !== 'string') {
    res.statusCode = 400;
    return { message: 'missing query' };
  }
  const collection = account.database(String(params.dbId)).collection(String(params.collId));
  const store = storeOf(collection);
  if (!collection.read() || !store) {
    res.statusCode = 404;
    return {};
  }
  const maxRaw = req.headers['x-ms-max-item-count'];
  const maxItemCount = typeof maxRaw === 'string' && maxRaw ? parseInt(maxRaw, 10) : null;
  const partition = partitionFromHeader(req);
  let result;
  try {
    const query = store.queries.get(body.query);
    if (
      !partition &&
      !trueHeader(req, 'x-ms-documentdb-query-enablecrosspartition') &&
      !query.containsPartitionKeys(['/' + store.partitionKeyPath.join('/')])
    ) {
      res.statusCode = 400;
      return { message: 'missing partition keys' };
    }
    result = store.query(
      { query: body.query, parameters: body.parameters },
      { maxItemCount, continuation: continuationOf(req) },
      partition,
    );
  } catch (err) {
    res.statusCode = 400;
    return {
      code: 'BadRequest',
      message: err instanceof QuerySyntaxError || err instanceof Error ? err.message : 'Invalid query',
    };
  }
  if (result.continuation) res.setHeader('x-ms-continuation', JSON.stringify(result.continuation));
  res.setHeader('x-ms-item-count', String(result.result.length));
  const items = result.result;
  addCharge(() => queryPageCharge(items));
  return { Documents: result.result, _count: result.result.length };
}

type Operation = 'Create' | 'Upsert' | 'Read' | 'Delete' | 'Replace';
const OPERATIONS: Record<Operation, keyof typeof documentOperations> = {
  Create: 'createOperation',
  Upsert: 'upsertOperation',
  Read: 'readOperation',
  Delete: 'deleteOperation',
  Replace: 'replaceOperation',
};

/** A batch of one partition; with the atomic header a failed operation undoes the ones before it. */
async function batchDocuments(
  account: LibAccount,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
): Promise<unknown> {
  const body = await readJsonBody(req);
  const atomic = trueHeader(req, 'x-ms-cosmos-batch-atomic');
  const continueOnError = trueHeader(req, 'x-ms-cosmos-batch-continue-on-error');
  const collection: LibCollection = account.database(String(params.dbId)).collection(String(params.collId));
  const store = storeOf(collection);
  if (!collection.read() || !store) {
    res.statusCode = 404;
    return {};
  }
  if (!Array.isArray(body)) {
    res.statusCode = 400;
    return { message: 'Invalid request body' };
  }
  const unknownType = body.find((op: Json | null) => !op || !(String(op.operationType) in OPERATIONS));
  if (unknownType !== undefined) {
    res.statusCode = 400;
    return { message: 'Operation type is not supported in Batch.' };
  }
  const faults = (body as Json[]).map((input) => batchFault(String(params.collId), input, req));
  const throttled = faults.find((f) => f?.statusCode === 429);
  if (throttled) return answerFault(res, throttled);
  const out: Json[] = [];
  const charges: number[] = [];
  store.transaction(() => {
    let failedAt = -1;
    for (const [i, input] of (body as Json[]).entries()) {
      if (failedAt >= 0 && !continueOnError) {
        out.push({ statusCode: 424, requestCharge: 0 });
        continue;
      }
      const operation = OPERATIONS[input.operationType as Operation];
      const fault = faults[i];
      if (fault) {
        if (failedAt < 0) failedAt = i;
        charges.push(MINIMUM_RU);
        out.push({ statusCode: fault.statusCode, requestCharge: MINIMUM_RU });
        continue;
      }
      const { result, meter } = withMeter(() => documentOperations[operation](collection, input));
      const charge =
        meter.ru > 0
          ? meter.ru
          : operation === 'readOperation' && result.statusCode === 200
            ? pointReadCharge(result.body)
            : MINIMUM_RU;
      charges.push(charge);
      if (result.statusCode >= 400) {
        if (failedAt < 0) failedAt = i;
        out.push({ statusCode: result.statusCode, requestCharge: charge });
      } else {
        out.push({
          statusCode: result.statusCode,
          requestCharge: charge,
          eTag: result.body?._etag,
          resourceBody: result.body,
        });
      }
    }
    if (failedAt >= 0 && atomic) {
      for (let i = 0; i < out.length; i++) if (i !== failedAt) out[i] = { statusCode: 424, requestCharge: 0 };
      return false;
    }
    return true;
  });
  addCharge(() => batchCharge(charges));
  return out;
}

const BATCH_OPERATIONS: Partial<Record<Operation, StoreOperation>> = {
  Create: 'create',
  Upsert: 'upsert',
  Read: 'read',
  Delete: 'delete',
  Replace: 'replace',
};

/** The fault armed for one operation of a batch (faults.ts), if any. */
function batchFault(container: string, input: Json, req: IncomingMessage): FaultAnswer | undefined {
  if (!faultsArmed()) return undefined;
  const op = BATCH_OPERATIONS[input.operationType as Operation];
  if (!op) return undefined;
  const body = input.resourceBody;
  const target =
    typeof body === 'object' && body !== null
      ? (body as FaultTarget)
      : { id: String(input.id ?? ''), pk: String(partitionFromHeader(req)?.value ?? '') };
  return faultFor(op, container, target);
}

/** Answers a request with the store error an armed fault chose. */
function answerFault(res: ServerResponse, fault: FaultAnswer): Json {
  res.statusCode = fault.statusCode;
  if (fault.retryAfterMs !== undefined) res.setHeader('x-ms-retry-after-ms', String(fault.retryAfterMs));
  return { code: fault.code, message: 'Injected store fault' };
}

/**
 * The fault armed for a single-document request or a query (faults.ts): undefined when none, else the
 * answer. A write's body is read to show the injector the document; the request handed on replays it.
 */
async function requestFault(
  req: IncomingMessage,
  found: { params: Record<string, string>; handler: RouteHandler | typeof queryDocuments | typeof batchDocuments },
): Promise<{ answer?: FaultAnswer; req: IncomingMessage }> {
  const container = String(found.params.collId);
  const docId = found.params.docId !== undefined ? decodeURIComponent(found.params.docId) : undefined;
  const pointTarget = () => ({ id: docId ?? '', pk: String(partitionFromHeader(req)?.value ?? '') });
  if (found.handler === batchDocuments) return { req };
  if (found.handler === queryDocuments) return { answer: faultFor('query', container), req };
  if (req.method === 'GET' && docId !== undefined) return { answer: faultFor('read', container, pointTarget()), req };
  if (req.method === 'DELETE' && docId !== undefined)
    return { answer: faultFor('delete', container, pointTarget()), req };
  const op: StoreOperation | undefined =
    req.method === 'PUT' && docId !== undefined
      ? 'replace'
      : req.method === 'POST' && docId === undefined
        ? trueHeader(req, 'x-ms-documentdb-is-upsert')
          ? 'upsert'
          : 'create'
        : undefined;
  if (!op) return { req };
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    doc = undefined;
  }
  const replay = Object.assign(Readable.from([raw]), {
    headers: req.headers,
    method: req.method,
    url: req.url,
  }) as unknown as IncomingMessage;
  const target = typeof doc === 'object' && doc !== null ? (doc as FaultTarget) : undefined;
  return { answer: faultFor(op, container, target), req: replay };
}

function handlerFor(found: ReturnType<typeof route>) {
  if (!found) return undefined;
  const [params, handler] = found;
  if (handler === queryDocumentsHandler) return { params, handler: queryDocuments };
  if (handler === batchDocumentsHandler) return { params, handler: batchDocuments };
  return { params, handler };
}

const DOCUMENTS_PATH = /\/colls\/[^/]+\/docs(?:\/|$|\?)/;

/**
 * The container a document request works on (`db/container`), or undefined for account, database
 * and container requests and query-plan requests (answered by the gateway in Azure, not a partition).
 */
function documentContainer(req: IncomingMessage, params: Record<string, string>): string | undefined {
  if (
    !params.dbId ||
    !params.collId ||
    !DOCUMENTS_PATH.test(req.url ?? '') ||
    trueHeader(req, 'x-ms-cosmos-is-query-plan-request')
  )
    return undefined;
  return `${params.dbId}/${params.collId}`;
}

/**
 * The request's charge: what the store and the engine's own handlers metered, else (the library's
 * point-read and read-feed handlers, and requests that changed nothing) a read's charge or the minimum.
 */
function chargeOf(
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  body: unknown,
  metered: number,
): number {
  if (metered > 0) return metered;
  if (req.method === 'GET' && res.statusCode === 200 && typeof body === 'object' && body !== null) {
    if (params.docId) return pointReadCharge(body as Json);
    const documents = (body as Json).Documents;
    if (Array.isArray(documents)) return queryPageCharge(documents);
  }
  return MINIMUM_RU;
}

const THROTTLED = {
  code: 'TooManyRequests',
  message:
    'Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later.',
};
/** The request's priority (`x-ms-cosmos-priority-level`, set by the SDK's `priorityLevel`); high by default. */
function priorityOf(req: http.IncomingMessage): Priority {
  return String(req.headers['x-ms-cosmos-priority-level'] ?? '').toLowerCase() === 'low' ? 'low' : 'high';
}

/** Sub-status of a 429 for a container's request-unit budget (`RUBudgetExceeded` in the Cosmos DB SDKs). */
const RU_BUDGET_EXCEEDED = '3200';

/** The request handler of the library's server, with the engine's own query and batch handlers. */
export function createEngineServer(getEngine: () => Engine | undefined, throughput: Throughput): http.Server {
  return http.createServer({ keepAlive: true }, (req, res) => {
    void (async () => {
      const engine = getEngine();
      const found = engine ? handlerFor(route(req)) : undefined;
      const container = found ? documentContainer(req, found.params) : undefined;
      const priority = priorityOf(req);
      const retryAfterMs = container ? throughput.admit(container, priority) : undefined;
      let body: unknown;
      let charge = 0;
      if (retryAfterMs !== undefined) {
        req.resume();
        res.statusCode = 429;
        res.setHeader('x-ms-retry-after-ms', String(retryAfterMs));
        res.setHeader('x-ms-substatus', RU_BUDGET_EXCEEDED);
        body = { ...THROTTLED };
      } else if (engine && found) {
        const armed = container && faultsArmed() ? await requestFault(req, found) : { req };
        const { result, meter } = withMeter(async () =>
          armed.answer ? answerFault(res, armed.answer) : found.handler(engine.account, armed.req, res, found.params),
        );
        try {
          body = await result;
        } catch (err) {
          body = { message: err instanceof Error ? err.message : 'Internal error' };
          res.statusCode = 500;
        }
        charge = container ? chargeOf(req, res, found.params, body, meter.ru) : MINIMUM_RU;
        if (container) throughput.charge(container, charge, priority);
        if (res.statusCode > 399 && typeof body === 'object' && body !== null && !(body as Json).message)
          (body as Json).message = '';
      } else {
        res.statusCode = engine ? 400 : 503;
        body = { message: engine ? 'no route' : 'starting' };
      }
      const etag = typeof body === 'object' && body !== null ? (body as Json)._etag : undefined;
      if (typeof etag === 'string') res.setHeader('etag', etag);
      res.setHeader('content-type', 'application/json');
      res.setHeader('content-location', `https://${req.headers.host}${req.url}`);
      res.setHeader('connection', 'keep-alive');
      res.setHeader('x-ms-activity-id', randomUUID());
      res.setHeader('x-ms-request-charge', chargeHeader(charge));
      if (req.headers['a-im'] && res.statusCode === 200) {
        if (req.headers['if-none-match']) res.statusCode = 304;
        res.setHeader('etag', '1');
      }
      res.end(body === undefined ? undefined : JSON.stringify(body));
    })().catch(() => {
      if (!res.writableEnded) {
        res.statusCode = 500;
        res.end('');
      }
    });
  });
}
