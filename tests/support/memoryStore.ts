/**
 * An in-memory Cosmos DB for unit tests: the real `Store` and `Collection` (error mapping, batching, paging,
 * priority and pacing) over an in-memory stand-in of the SDK's `Container`, so an orchestrator runs its real
 * store code without the local stack. The containers are those of lib/store/containers.ts, with their
 * partition key, unique keys per logical partition, time to live and indexing policy; the documents are held
 * by the local engine's document store (devhost/cosmos/documentStore.ts) and queries are evaluated by
 * `@zeit/cosmosdb-query` over a partition's documents, whatever their text.
 *
 * As Cosmos DB and @azure/cosmos 4.x answer:
 * - 409 on a duplicate id or unique key within a partition, 412 when an If-Match entity tag is stale,
 *   404 on a replace or delete of a missing item (a point read of one answers with no resource);
 * - a transactional batch is all or nothing (the failing operation carries its status, the others 424);
 *   a batch request that fails as a whole is thrown by the SDK as a plain `Error` (its status in `cause`);
 * - queries page by `maxItemCount` (100 when not given) with continuation tokens, in `_rid` order unless
 *   ordered; an ORDER BY the indexing policy cannot serve is refused (400), and a filter on a path it does
 *   not index is recorded (`indexGaps()`: the local stack fails integration tests on those);
 * - the store's own client waits out 429s itself (SDK_RETRIES times, at most 10 s in all, as createStore
 *   configures it); the client for `retryThrottled: false` does not.
 *
 * Faults: `faults.add({ ops, status, count, ... })` answers the next matching requests with 429 (and a
 * retry-after), 503, 412 or any other status, before they reach the documents.
 *
 * Each request is answered on a later turn of the event loop (setImmediate), as over the network: a test with
 * Jest's fake timers leaves setImmediate real (`doNotFake: ['setImmediate']`).
 */
import type { CosmosClient, CosmosDiagnostics, SqlQuerySpec } from '@azure/cosmos';
import { CONTAINERS, type ContainerName } from '../../lib/store/containers';
import { Store } from '../../lib/store/store';
import type { RequestUnitPacer } from '../../lib/store/requestUnitPacing';
import { DocumentStore } from '../../devhost/cosmos/documentStore';
import { QueryCache } from '../../devhost/cosmos/compiledQuery';
import { coverageGaps, describeGaps, hasGaps, queryIndexNeeds } from '../../devhost/cosmos/indexCoverage';
import { withMeter } from '../../devhost/cosmos/chargeMeter';
import { pointReadCharge, queryPageCharge, type IndexingPolicy } from '../../devhost/cosmos/requestCharge';
import type { Json } from '../../devhost/cosmos/library';

/** Request kinds, as the store sends them. */
export type MemoryOp = 'read' | 'create' | 'replace' | 'upsert' | 'delete' | 'query' | 'batch';
const WRITE_OPS: readonly MemoryOp[] = ['create', 'replace', 'upsert', 'delete', 'batch'];

/** What a request concerns: its partition, and for point operations the item (and the document sent). */
export interface MemoryTarget {
  container: ContainerName;
  op: MemoryOp;
  pk?: string;
  id?: string;
  /** The document sent (create, replace, upsert), or each document of a batch. */
  docs: Json[];
}

export interface FaultSpec {
  /** Request kinds answered; 'write' stands for create, replace, upsert, delete and batch. */
  ops: Array<MemoryOp | 'write'>;
  /** Only requests to this container (default: any). */
  container?: ContainerName;
  /** Only requests this accepts (e.g. the write of one document). */
  match?: (target: MemoryTarget) => boolean;
  /** The status answered: 429 (throttled), 503 (unavailable), 412 (changed meanwhile), … */
  status: number;
  /** For 429: the retry-after the store names (keep it small in tests). Default 5 ms. */
  retryAfterMs?: number;
  /** Matching requests answered with the fault (default 1; Infinity until removed). */
  count?: number;
  /** Matching requests let through before the fault starts (default 0). */
  skip?: number;
}

export interface Fault {
  /** Requests answered with the fault so far (a test asserts the fault happened). */
  readonly hits: number;
  remove(): void;
}

interface ActiveFault {
  spec: FaultSpec;
  seen: number;
  hits: number;
  removed: boolean;
}

/** Scheduled faults of one memory store. */
export class MemoryFaults {
  private readonly active: ActiveFault[] = [];

  add(spec: FaultSpec): Fault {
    const fault: ActiveFault = { spec, seen: 0, hits: 0, removed: false };
    this.active.push(fault);
    return {
      get hits() {
        return fault.hits;
      },
      remove: () => {
        fault.removed = true;
      },
    };
  }

  clear(): void {
    for (const f of this.active) f.removed = true;
    this.active.length = 0;
  }

  /** The fault that answers this request, if any: faults are asked in the order they were added, the first whose turn it is answers. */
  answer(target: MemoryTarget): MemoryCosmosError | undefined {
    for (const f of this.active) {
      if (f.removed || !matches(f.spec, target)) continue;
      f.seen++;
      const skip = f.spec.skip ?? 0;
      if (f.seen <= skip || f.seen > skip + (f.spec.count ?? 1)) continue;
      f.hits++;
      return new MemoryCosmosError(f.spec.status, `Injected ${f.spec.status}`, f.spec.retryAfterMs ?? 5);
    }
    return undefined;
  }
}

function matches(spec: FaultSpec, target: MemoryTarget): boolean {
  if (spec.container && spec.container !== target.container) return false;
  const ops = spec.ops.flatMap((o) => (o === 'write' ? WRITE_OPS : [o]));
  if (!ops.includes(target.op)) return false;
  return spec.match ? spec.match(target) : true;
}

/** An error as @azure/cosmos throws it: `code` the status, and for 429 the wait it names. */
export class MemoryCosmosError extends Error {
  readonly headers: Record<string, string>;
  readonly retryAfterInMs?: number;
  diagnostics?: CosmosDiagnostics;

  constructor(
    readonly code: number,
    message: string,
    retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ErrorResponse';
    this.headers = { 'x-ms-request-charge': '1' };
    if (code === 429) {
      this.retryAfterInMs = retryAfterMs;
      this.headers['x-ms-retry-after-ms'] = String(retryAfterMs);
    }
  }
}

/** One request the memory store answered: its kind, container and status (after faults and retries). */
export interface MemoryRequest {
  container: ContainerName;
  op: MemoryOp;
  status: number;
  /** Items written (a batch: all of its operations, or none). */
  written: number;
}

/** 429 retries of the store's own client (createStore: maxRetryAttemptCount 3, maxWaitTimeInSeconds 10). */
export const SDK_RETRIES = 3;
const SDK_MAX_WAIT_MS = 10_000;
const DEFAULT_PAGE_SIZE = 100;
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
const MAX_BATCH_OPERATIONS = 100;

/** Compiled queries, shared by every memory store of the process (compiling a text takes far longer than running it). */
const QUERIES = new QueryCache(2_000);

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface ContainerState {
  name: ContainerName;
  docs: DocumentStore;
  policy: IndexingPolicy;
  compositeIndexes: unknown[];
}

export interface MemoryStoreOptions {
  /** 429s the store's own client waits out (default SDK_RETRIES, as in production). */
  sdkRetries?: number;
  /** The clock of time to live (epoch ms); default Date.now. */
  now?: () => number;
  /** Paces bulk work as the service's store does (default: not paced). */
  pacer?: RequestUnitPacer;
}

export class MemoryStore {
  /** The service's store over the in-memory containers. */
  readonly store: Store;
  readonly faults = new MemoryFaults();
  /** Every request answered, in order (a test counts writes with `requests`). */
  readonly log: MemoryRequest[] = [];
  private readonly containers = new Map<ContainerName, ContainerState>();
  private readonly gaps = new Map<string, string[]>();
  private ridCount = 0;

  constructor(options: MemoryStoreOptions = {}) {
    const now = options.now ?? Date.now;
    for (const [name, def] of Object.entries(CONTAINERS) as Array<
      [ContainerName, (typeof CONTAINERS)[ContainerName]]
    >) {
      const policy = clone(def.indexingPolicy) as IndexingPolicy;
      const compositeIndexes = (policy as { compositeIndexes?: unknown[] }).compositeIndexes ?? [];
      const uniqueKeys = 'uniqueKeyPolicy' in def ? def.uniqueKeyPolicy.uniqueKeys.flatMap((k) => k.paths) : [];
      const defaultTtl = 'defaultTtl' in def ? def.defaultTtl : undefined;
      const docs = new DocumentStore(
        // Resource ids that sort as they were handed out: queries page in `_rid` order, as in Cosmos DB.
        { _rid: () => `r${String(++this.ridCount).padStart(12, '0')}`, _self: (rid) => `memory/${name}/docs/${rid}/` },
        def.partitionKey.paths,
        uniqueKeys,
        () => compositeIndexes,
        () => policy,
        () => defaultTtl,
      );
      docs.now = now;
      this.containers.set(name, { name, docs, policy, compositeIndexes });
    }
    const sdkRetries = options.sdkRetries ?? SDK_RETRIES;
    this.store = new Store(this.client(sdkRetries), 'memory', this.client(0), options.pacer);
  }

  /** Stored documents of a container (of one partition), system properties but `_etag` left out. */
  documents<T = Json>(container: ContainerName, pk?: string): Array<T & { _etag: string }> {
    const state = this.state(container);
    state.docs.expireDue();
    const out: Json[] = [];
    for (const p of state.docs.partitions.values())
      for (const doc of p.docs.values()) if (pk === undefined || doc.pk === pk) out.push(doc);
    return out
      .sort((a, b) => String(a._rid).localeCompare(String(b._rid)))
      .map((doc) => withoutSystem(doc) as T & { _etag: string });
  }

  /**
   * Writes a document at once, as another writer would (a new entity tag), outside any request: a test changes
   * the store between two requests of the code under test, e.g. from a fault's `match` hook.
   */
  writeNow(container: ContainerName, doc: Json): void {
    this.state(container).docs.upsert(clone(doc) as Json);
  }

  /** One stored document, or undefined. */
  document<T = Json>(container: ContainerName, pk: string, id: string): (T & { _etag: string }) | undefined {
    const doc = this.state(container).docs.get(pk, id);
    return doc ? (withoutSystem(doc) as T & { _etag: string }) : undefined;
  }

  /** Requests answered so far, optionally of some kinds and one container and status. */
  requests(filter: { container?: ContainerName; ops?: Array<MemoryOp | 'write'>; status?: number } = {}): number {
    const ops = filter.ops?.flatMap((o) => (o === 'write' ? WRITE_OPS : [o]));
    return this.log.filter(
      (r) =>
        (!filter.container || r.container === filter.container) &&
        (!ops || ops.includes(r.op)) &&
        (filter.status === undefined || r.status === filter.status),
    ).length;
  }

  /** Items written to a container so far (a batch counts each item it wrote). */
  writes(container: ContainerName): number {
    return this.log.filter((r) => r.container === container).reduce((n, r) => n + r.written, 0);
  }

  /** Queries the containers' indexing policies could not serve (the local stack fails integration tests on them). */
  indexGaps(): Array<{ container: ContainerName; query: string; gaps: string[] }> {
    return [...this.gaps].map(([key, gaps]) => {
      const [container, query] = key.split('\u0000') as [ContainerName, string];
      return { container, query, gaps };
    });
  }

  private state(name: ContainerName): ContainerState {
    const state = this.containers.get(name);
    if (!state) throw new Error(`no container ${name}`);
    return state;
  }

  private client(retries: number): CosmosClient {
    const byId = new Map([...this.containers.values()].map((s) => [CONTAINERS[s.name].id as string, s]));
    const database = {
      id: 'memory',
      container: (id: string) => {
        const state = byId.get(id);
        if (!state) throw new Error(`no container ${id}`);
        return new MemoryContainer(this, state, retries);
      },
    };
    return { database: () => database, dispose: () => undefined } as unknown as CosmosClient;
  }

  /** Runs one request of a container: faults first, then the documents; 429s waited out `retries` times (as the SDK does). */
  async request<R>(target: MemoryTarget, retries: number, run: () => R): Promise<R> {
    const failedAttempts: Array<{ statusCode: number }> = [];
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      // Requests are answered asynchronously, as over the network: concurrent callers interleave.
      await new Promise((r) => setImmediate(r));
      const fault = this.faults.answer(target);
      if (!fault) {
        try {
          const result = run();
          const status = statusOfResult(result);
          const written =
            !WRITE_OPS.includes(target.op) || status >= 300 || status === 207
              ? 0
              : target.op === 'batch'
                ? target.docs.length
                : 1;
          this.log.push({ container: target.container, op: target.op, status, written });
          if (failedAttempts.length > 0 && typeof result === 'object' && result !== null)
            (result as { diagnostics?: CosmosDiagnostics }).diagnostics = diagnosticsOf(failedAttempts);
          return result;
        } catch (err) {
          this.log.push({ container: target.container, op: target.op, status: statusOf(err), written: 0 });
          throw err;
        }
      }
      this.log.push({ container: target.container, op: target.op, status: fault.code, written: 0 });
      const wait = fault.retryAfterInMs ?? 0;
      if (fault.code !== 429 || attempt >= retries || waited + wait > SDK_MAX_WAIT_MS) {
        fault.diagnostics = diagnosticsOf(failedAttempts);
        throw fault;
      }
      failedAttempts.push({ statusCode: 429 });
      await new Promise((r) => setTimeout(r, wait));
      waited += wait;
    }
  }

  /** One page of a query over the partition (or every partition), in `_rid` order unless it orders itself. */
  runQuery(
    state: ContainerState,
    spec: SqlQuerySpec,
    options: { partitionKey?: unknown; maxItemCount?: number; continuationToken?: string },
  ): { resources: unknown[]; continuationToken?: string } {
    state.docs.expireDue();
    let compiled;
    try {
      compiled = QUERIES.get(spec.query);
    } catch (err) {
      throw new MemoryCosmosError(400, `Query syntax error: ${(err as Error).message}`);
    }
    const gaps = coverageGaps(queryIndexNeeds(compiled.ast, state.docs.partitionKeyPath), state.policy);
    if (gaps.orderRefused) throw new MemoryCosmosError(400, gaps.orderRefused);
    if (hasGaps(gaps)) this.gaps.set(`${state.name}\u0000${spec.query}`, describeGaps(gaps));
    const candidates: Json[] = [];
    for (const p of state.docs.partitions.values())
      for (const doc of p.docs.values())
        if (options.partitionKey === undefined || state.docs.partitionValueOf(doc) === options.partitionKey)
          candidates.push(doc);
    candidates.sort((a, b) => (String(a._rid) < String(b._rid) ? -1 : 1));
    const parameters = Object.fromEntries((spec.parameters ?? []).map((p) => [p.name.slice(1), p.value]));
    const out = compiled.run(candidates, {
      parameters,
      maxItemCount: options.maxItemCount ?? DEFAULT_PAGE_SIZE,
      continuation: options.continuationToken ? { token: options.continuationToken } : null,
      compositeIndexes: state.compositeIndexes,
    });
    return {
      resources: clone(out.result),
      ...(out.continuation ? { continuationToken: out.continuation.token } : {}),
    };
  }
}

function withoutSystem(doc: Json): Json {
  const { _rid: _a, _self: _b, _ts: _c, _attachments: _d, ...rest } = clone(doc);
  return rest;
}

function statusOfResult(result: unknown): number {
  const r = result as { statusCode?: unknown; code?: unknown };
  return typeof r.code === 'number' ? r.code : typeof r.statusCode === 'number' ? r.statusCode : 200;
}

function statusOf(err: unknown): number {
  if (err instanceof MemoryCosmosError) return err.code;
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof MemoryCosmosError ? cause.code : 500;
}

function diagnosticsOf(failedAttempts: Array<{ statusCode: number }>): CosmosDiagnostics {
  return {
    clientSideRequestStatistics: { retryDiagnostics: { failedAttempts } },
  } as unknown as CosmosDiagnostics;
}

/** An engine error of the document store as the status Cosmos DB answers. */
function engineError(err: unknown): MemoryCosmosError {
  const e = err as { conflict?: boolean; badRequest?: boolean; message?: string };
  if (e.conflict) return new MemoryCosmosError(409, 'Entity with the specified id or unique key already exists');
  if (e.badRequest) return new MemoryCosmosError(400, e.message ?? 'Bad request');
  if (err instanceof MemoryCosmosError) return err;
  throw err;
}

function checkSize(doc: Json): void {
  if (Buffer.byteLength(JSON.stringify(doc), 'utf8') > MAX_DOCUMENT_BYTES)
    throw new MemoryCosmosError(413, 'Request size is too large');
}

interface AccessOptions {
  accessCondition?: { type: string; condition: string };
}

interface BatchOperation {
  operationType: 'Create' | 'Replace' | 'Upsert' | 'Delete' | 'Read';
  id?: string;
  resourceBody?: Json;
  ifMatch?: string;
}

/** The parts of the SDK's `Container` the store uses, over one in-memory container. */
class MemoryContainer {
  readonly items: {
    create: (body: Json) => Promise<unknown>;
    upsert: (body: Json) => Promise<unknown>;
    query: (
      spec: SqlQuerySpec,
      options?: { partitionKey?: unknown; maxItemCount?: number; continuationToken?: string },
    ) => { fetchNext(): Promise<unknown> };
    batch: (operations: BatchOperation[], partitionKey: string) => Promise<unknown>;
  };

  constructor(
    private readonly memory: MemoryStore,
    private readonly state: ContainerState,
    private readonly retries: number,
  ) {
    const docs = state.docs;
    this.items = {
      create: (body) =>
        this.send('create', { pk: String(body.pk), id: String(body.id), docs: [body] }, () =>
          this.write(() => docs.create(this.accept(body))),
        ),
      upsert: (body) =>
        this.send('upsert', { pk: String(body.pk), id: String(body.id), docs: [body] }, () =>
          this.write(() => docs.upsert(this.accept(body))),
        ),
      query: (spec, options = {}) => ({
        fetchNext: () =>
          this.send('query', { pk: options.partitionKey as string | undefined, docs: [] }, () => {
            const { result, meter } = withMeter(() => this.memory.runQuery(state, spec, options));
            return { ...result, requestCharge: meter.ru + queryPageCharge(result.resources) };
          }),
      }),
      batch: (operations, partitionKey) => this.batch(operations, partitionKey),
    };
  }

  item(id: string, pk: string) {
    const docs = this.state.docs;
    return {
      read: () =>
        this.send('read', { pk, id, docs: [] }, () => {
          const doc = docs.get(pk, id);
          return doc
            ? { resource: clone(doc), statusCode: 200, etag: doc._etag, requestCharge: pointReadCharge(doc) }
            : { resource: undefined, statusCode: 404, requestCharge: 1 };
        }),
      replace: (body: Json, options: AccessOptions = {}) =>
        this.send('replace', { pk, id, docs: [body] }, () => {
          const old = this.current(pk, id, options);
          return this.write(() => docs.replace(this.accept({ ...body, id }), old));
        }),
      delete: (options: AccessOptions = {}) =>
        this.send('delete', { pk, id, docs: [] }, () => {
          this.current(pk, id, options);
          const { meter } = withMeter(() => docs.delete(id, pk));
          return { resource: undefined, statusCode: 204, requestCharge: meter.ru };
        }),
    };
  }

  private send<R>(op: MemoryOp, target: Omit<MemoryTarget, 'container' | 'op'>, run: () => R): Promise<R> {
    return this.memory.request({ container: this.state.name, op, ...target }, this.retries, run);
  }

  /** A document as the wire carries it (a copy; undefined values dropped), within the size limit. */
  private accept(body: Json): Json {
    const doc = clone(body);
    checkSize(doc);
    return doc;
  }

  /** The stored item for a replace or delete: 404 when missing, 412 when If-Match names another version. */
  private current(pk: string, id: string, options: AccessOptions): Json {
    const old = this.state.docs.get(pk, id);
    if (!old) throw new MemoryCosmosError(404, 'Entity with the specified id does not exist in the system');
    const condition = options.accessCondition;
    if (condition?.type === 'IfMatch' && condition.condition !== old._etag)
      throw new MemoryCosmosError(
        412,
        'Operation cannot be performed because one of the specified precondition is not met',
      );
    return old;
  }

  private write(fn: () => Json): { resource: Json; statusCode: number; etag: unknown; requestCharge: number } {
    try {
      const { result, meter } = withMeter(fn);
      return { resource: clone(result), statusCode: 200, etag: result._etag, requestCharge: meter.ru };
    } catch (err) {
      throw engineError(err);
    }
  }

  /** A transactional batch of one partition: all or nothing. */
  private async batch(operations: BatchOperation[], partitionKey: string): Promise<unknown> {
    if (operations.length > MAX_BATCH_OPERATIONS)
      throw new Error('Cannot run batch request with more than 100 operations per partition');
    const docs = this.state.docs;
    const bodies = operations.flatMap((o) => (o.resourceBody ? [o.resourceBody] : []));
    try {
      return await this.send('batch', { pk: partitionKey, docs: bodies }, () => {
        const results: Array<{ statusCode: number; requestCharge: number; eTag?: unknown; resourceBody?: Json }> = [];
        let failed = -1;
        docs.transaction(() => {
          for (const [i, o] of operations.entries()) {
            try {
              const { result, meter } = withMeter(() => this.batchOperation(o, partitionKey));
              results.push({ statusCode: result.status, requestCharge: meter.ru, ...result.answer });
            } catch (err) {
              failed = i;
              results.push({ statusCode: engineError(err).code, requestCharge: 1 });
              return false;
            }
          }
          return true;
        });
        if (failed >= 0)
          return {
            result: operations.map((_, i) => ({
              statusCode: i === failed ? (results[i]?.statusCode ?? 500) : 424,
              requestCharge: results[i]?.requestCharge ?? 0,
            })),
            code: 207,
          };
        return { result: results, code: 200 };
      });
    } catch (err) {
      // @azure/cosmos 4.x: a batch request that fails as a whole is thrown as a plain Error.
      throw new Error(`Batch request error: ${(err as Error).message}`, { cause: err });
    }
  }

  private batchOperation(
    o: BatchOperation,
    pk: string,
  ): { status: number; answer: { eTag?: unknown; resourceBody?: Json } } {
    const docs = this.state.docs;
    const answer = (doc: Json) => ({ eTag: doc._etag, resourceBody: clone(doc) });
    switch (o.operationType) {
      case 'Create':
        return { status: 201, answer: answer(docs.create(this.accept(o.resourceBody ?? {}))) };
      case 'Upsert':
        return { status: 200, answer: answer(docs.upsert(this.accept(o.resourceBody ?? {}))) };
      case 'Replace': {
        const id = o.id ?? String(o.resourceBody?.id);
        const old = this.current(
          pk,
          id,
          o.ifMatch ? { accessCondition: { type: 'IfMatch', condition: o.ifMatch } } : {},
        );
        return { status: 200, answer: answer(docs.replace(this.accept({ ...o.resourceBody, id }), old)) };
      }
      case 'Delete': {
        const id = o.id ?? '';
        this.current(pk, id, o.ifMatch ? { accessCondition: { type: 'IfMatch', condition: o.ifMatch } } : {});
        docs.delete(id, pk);
        return { status: 204, answer: {} };
      }
      case 'Read': {
        const doc = docs.get(pk, o.id ?? '');
        if (!doc) throw new MemoryCosmosError(404, 'Entity with the specified id does not exist in the system');
        return { status: 200, answer: answer(doc) };
      }
    }
  }
}

/** A memory store with the service's containers, empty. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}
