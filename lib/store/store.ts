/**
 * The only module that knows Cosmos DB. Typed collections over the containers, with operation
 * counting and error mapping. The service's queries are named in lib/store/queries.
 */
import https from 'node:https';
import type {
  Container,
  CosmosDiagnostics,
  Database,
  IndexingPolicy,
  ItemDefinition,
  JSONObject,
  OperationInput,
  SqlQuerySpec,
} from '@azure/cosmos';
import { CosmosClient } from '@azure/cosmos';
import { DefaultAzureCredential } from '@azure/identity';
import { CONTAINERS, type ContainerName } from './containers';
import { StoreError, toStoreError } from './errors';
import { count } from './metrics';
import { bulkWorkTenant, isLowPriority, priorityOptions } from './priority';
import { splitForBatches } from './batches';
import type { Admission, Outcome, RequestUnitPacer } from './requestUnitPacing';
import type { NamedQuery, Whole } from './queries/namedQuery';

/**
 * Whether an id can name a stored item: Cosmos DB ids are at most 255 characters without / \ ? #,
 * and the service never stores an empty or blank one. A caller's id that cannot is simply not found
 * (reading it would make the SDK build a broken resource path and fail with an error).
 */
export function isPossibleId(id: string): boolean {
  return id.length > 0 && id.length <= 255 && id.trim() !== '' && !/[/\\?#]/.test(id);
}

export interface StoredDoc {
  id: string;
  pk: string;
}

export type WithEtag<T> = T & { _etag: string };

export type StoreOperation = 'read' | 'create' | 'replace' | 'upsert' | 'delete' | 'query';

export interface QueryPage<T> {
  items: T[];
  continuationToken?: string;
}

/** The rows of a named query run on a collection of `T`: its documents for `SELECT *`. */
export type RowsOf<R, T> = R extends Whole ? WithEtag<T> : R;

export interface QueryOptions {
  partitionKey?: string;
  maxItemCount?: number;
  continuationToken?: string;
}

function stripSystem<T>(resource: T & Record<string, unknown>): T {
  const { _rid: _a, _self: _b, _ts: _c, _attachments: _d, ...rest } = resource;
  return rest as T;
}

/**
 * Turns documents into their stored form and back (the field encryption of lib/crypto), installed by the
 * composition root: every write of a collection passes `encode`, every row read passes `decode`. A store
 * without one stores documents as they are (operator tools that must see the stored form, tests).
 */
export interface DocumentCodec {
  encode<D>(container: ContainerName, doc: D): Promise<D>;
  decode<D>(container: ContainerName, row: D): Promise<D>;
  /** Keys an import's plain content hashes for the tenant (lib/crypto/fieldCipher.ts keyedHash). */
  hashKeyer(tenantId: string): Promise<(plainHash: string) => string>;
}

/** What the store reported for one request: its charge, and whether it was throttled on the way. */
interface Receipt {
  charge?: number;
  diagnostics?: CosmosDiagnostics;
}

export class Collection<T extends StoredDoc> {
  constructor(
    private readonly container: Container,
    readonly name: ContainerName,
    /** The same container through a client that never waits out throttling itself (see batchReplace). */
    private readonly unretried: Container = container,
    /** Paces low-priority (bulk) operations by their tenant's request units; none: sent at once. */
    private readonly pacer?: RequestUnitPacer,
    /** The stored form of documents (field encryption); none: stored as they are. */
    private readonly codec?: DocumentCodec,
  ) {}

  private encode(doc: T): Promise<T> {
    return this.codec ? this.codec.encode(this.name, doc) : Promise.resolve(doc);
  }

  private decode<R>(row: R): Promise<R> {
    return this.codec ? this.codec.decode(this.name, row) : Promise.resolve(row);
  }

  private countWrites(n: number): void {
    this.tally('writes', n);
    if (this.name === 'identities') count('identityWrites', n);
  }

  /** Counts an operation; the fleet's leases apart from the service's own work (metrics.ts). */
  private tally(kind: 'writes' | 'pointReads' | 'requestCharge', n = 1): void {
    if (this.name !== 'leases') count(kind, n);
    else count(kind === 'requestCharge' ? 'leaseRequestCharge' : 'leaseRequests', n);
  }

  /** Counts a response's charge and keeps what pacing needs of it. */
  private noteResponse(receipt: Receipt, res: { requestCharge?: number; diagnostics?: CosmosDiagnostics }): void {
    this.tally('requestCharge', res.requestCharge ?? 0);
    receipt.charge = res.requestCharge;
    receipt.diagnostics = res.diagnostics;
  }

  private async run<R>(op: StoreOperation, fn: (receipt: Receipt) => Promise<R>): Promise<R> {
    try {
      return await this.paced(op, 1, fn);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  /**
   * Sends one request; bulk work (low priority) first waits for its tenant's request-unit budget and then
   * is charged what the store reported (requestUnitPacing.ts). High-priority requests go at once.
   * Errors pass through unmapped.
   */
  private async paced<R>(op: string, units: number, send: (receipt: Receipt) => Promise<R>): Promise<R> {
    const receipt: Receipt = {};
    if (!this.pacer || !isLowPriority()) return send(receipt);
    const admission = await this.pacer.admit(bulkWorkTenant() ?? '', `${this.name}:${op}`, units);
    count('pacedOperations');
    if (admission.waitedMs > 0) {
      count('pacedWaits');
      count('pacedWaitMs', Math.round(admission.waitedMs));
    }
    try {
      const result = await send(receipt);
      this.settle(admission, outcomeOf(receipt.charge, receipt.diagnostics));
      return result;
    } catch (err) {
      this.settle(admission, outcomeOfError(err));
      throw err;
    }
  }

  private settle(admission: Admission, outcome: Outcome): void {
    this.pacer?.settle(admission, outcome);
    count('pacedRequestCharge', outcome.requestCharge ?? admission.reserved);
    if (outcome.throttledRetryAfterMs !== undefined) count('pacedThrottled');
  }

  async read(pk: string, id: string): Promise<WithEtag<T> | undefined> {
    if (!isPossibleId(id)) return undefined;
    this.tally('pointReads');
    return this.run('read', async (receipt) => {
      const res = await this.container.item(id, pk).read<WithEtag<T>>(priorityOptions());
      this.noteResponse(receipt, res);
      return res.resource ? stripSystem(res.resource as unknown as WithEtag<T> & Record<string, unknown>) : undefined;
    })
      .catch((err: unknown) => {
        if (err instanceof StoreError && err.failure === 'notFound') return undefined;
        throw err;
      })
      .then((row) => (row ? this.decode(row) : undefined));
  }

  /** Creates the item. With `retryThrottled: false` throttling fails the call at once (as for batchReplace). */
  async create(doc: T, options: { retryThrottled?: boolean } = {}): Promise<WithEtag<T>> {
    this.countWrites(1);
    const container = options.retryThrottled === false ? this.unretried : this.container;
    const stored = await this.encode(doc);
    const res = await this.run('create', async (receipt) => {
      const res = await container.items.create<T & ItemDefinition>(stored as T & ItemDefinition, priorityOptions());
      this.noteResponse(receipt, res);
      return stripSystem(res.resource as unknown as WithEtag<T> & Record<string, unknown>);
    });
    return this.decode(res);
  }

  /**
   * Creates items of one partition in transactional batches (one request per batch of up to 100
   * items and 1.8 MB instead of one per item), sent one after the other. A batch is all or nothing:
   * when one item fails, the others of its batch report 424 and are not written. Each item's
   * outcome is reported so a caller can retry the rest one by one.
   * (Not the SDK's `executeBulkOperations`: it polls for completion every 1,000 ms, so every call
   * costs at least a second however small the batch.)
   */
  async batchCreate(
    pk: string,
    docs: T[],
    options: { retryThrottled?: boolean } = {},
  ): Promise<Array<'created' | 'conflict' | StoreError>> {
    const stored = await Promise.all(docs.map((doc) => this.encode(doc)));
    const sent = await this.sendInBatches(
      options.retryThrottled === false ? this.unretried : this.container,
      pk,
      'create',
      stored.map((doc) => ({ doc })),
      ({ doc }) => ({ operationType: 'Create', resourceBody: doc as unknown as JSONObject }),
    );
    return sent.map((outcome) =>
      outcome === 201 || outcome === 200 ? 'created' : outcome === 409 ? 'conflict' : batchFailure(outcome),
    );
  }

  /**
   * Replaces items of one partition in transactional batches, each only if it still has its entity tag
   * (one request per batch of up to 100 items). A batch is all or nothing: when one item changed or is
   * gone, none of its batch is written. Per item: 'replaced', or why not, so a caller can go on one by one.
   * With `retryThrottled: false` a throttled batch is reported at once (each item `throttled`, with the
   * store's wait) instead of being sent again unchanged after the wait, so a caller whose documents carry
   * the time of their write can send them again with a new time.
   */
  async batchReplace(
    pk: string,
    items: Array<{ doc: T; ifMatch: string }>,
    options: { retryThrottled?: boolean } = {},
  ): Promise<Array<'replaced' | StoreError>> {
    const container = options.retryThrottled === false ? this.unretried : this.container;
    const stored = await Promise.all(items.map(async (item) => ({ ...item, doc: await this.encode(item.doc) })));
    const sent = await this.sendInBatches(container, pk, 'replace', stored, ({ doc, ifMatch }) => ({
      operationType: 'Replace',
      id: doc.id,
      partitionKey: pk,
      resourceBody: doc as unknown as JSONObject,
      ifMatch,
    }));
    return sent.map((outcome) =>
      outcome === 200 || outcome === 201
        ? 'replaced'
        : outcome === 424
          ? NOT_WRITTEN_WITH_BATCH
          : batchFailure(outcome),
    );
  }

  /**
   * Sends the items of one partition in transactional batches, one after the other: per item, the
   * status code its batch answered, or the failure of the whole batch.
   */
  private async sendInBatches<I extends { doc: T }>(
    container: Container,
    pk: string,
    op: 'create' | 'replace',
    items: I[],
    operation: (item: I) => OperationInput,
  ): Promise<Array<number | StoreError>> {
    const outcomes = new Map<I, number | StoreError>();
    for (const group of splitForBatches(items)) {
      this.countWrites(group.length);
      count('batchRequests');
      count('batchedWrites', group.length);
      try {
        const res = await this.paced('batch', group.length, async (receipt) => {
          const answer = await container.items.batch(group.map(operation), pk, priorityOptions());
          receipt.charge = (answer.result ?? []).reduce((sum, r) => sum + (r.requestCharge ?? 0), 0);
          receipt.diagnostics = answer.diagnostics;
          return answer;
        });
        const results = res.result ?? [];
        group.forEach((item, j) => {
          count('requestCharge', results[j]?.requestCharge ?? 0);
          outcomes.set(item, results[j]?.statusCode ?? 0);
        });
      } catch (err) {
        const failure = batchFailure(toStoreError(err));
        for (const item of group) outcomes.set(item, failure);
      }
    }
    return items.map((item) => outcomes.get(item) ?? batchFailure(undefined));
  }

  /**
   * Replaces the item; with `ifMatch` the write fails with preconditionFailed when the item changed.
   * With `retryThrottled: false` throttling fails the call at once (as for batchReplace).
   */
  async replace(doc: T, ifMatch?: string, options: { retryThrottled?: boolean } = {}): Promise<WithEtag<T>> {
    this.countWrites(1);
    const container = options.retryThrottled === false ? this.unretried : this.container;
    const stored = await this.encode(doc);
    const res = await this.run('replace', async (receipt) => {
      const res = await container
        .item(doc.id, doc.pk)
        .replace<T & ItemDefinition>(
          stored as T & ItemDefinition,
          ifMatch
            ? { accessCondition: { type: 'IfMatch', condition: ifMatch }, ...priorityOptions() }
            : priorityOptions(),
        );
      this.noteResponse(receipt, res);
      return stripSystem(res.resource as unknown as WithEtag<T> & Record<string, unknown>);
    });
    return this.decode(res);
  }

  async upsert(doc: T): Promise<WithEtag<T>> {
    this.countWrites(1);
    const stored = await this.encode(doc);
    const res = await this.run('upsert', async (receipt) => {
      const res = await this.container.items.upsert<T & ItemDefinition>(
        stored as T & ItemDefinition,
        priorityOptions(),
      );
      this.noteResponse(receipt, res);
      return stripSystem(res.resource as unknown as WithEtag<T> & Record<string, unknown>);
    });
    return this.decode(res);
  }

  /** Deletes the item; returns false when it did not exist. */
  async delete(pk: string, id: string, ifMatch?: string): Promise<boolean> {
    if (!isPossibleId(id)) return false;
    this.countWrites(1);
    return this.run('delete', async (receipt) => {
      const res = await this.container
        .item(id, pk)
        .delete(
          ifMatch
            ? { accessCondition: { type: 'IfMatch', condition: ifMatch }, ...priorityOptions() }
            : priorityOptions(),
        );
      this.noteResponse(receipt, res);
      return true;
    }).catch((err: unknown) => {
      if (err instanceof StoreError && err.failure === 'notFound') return false;
      throw err;
    });
  }

  /** One page of a named query (lib/store/queries); one inside a partition stays there. */
  async page<R>(q: NamedQuery<R>, options: Omit<QueryOptions, 'partitionKey'> = {}): Promise<QueryPage<RowsOf<R, T>>> {
    this.ownQuery(q);
    return this.queryPage<RowsOf<R, T>>(q.spec, { ...options, partitionKey: q.partitionKey });
  }

  /** Every row of a named query, fetched page by page (use only where the result is bounded). */
  async all<R>(q: NamedQuery<R>, options: Pick<QueryOptions, 'maxItemCount'> = {}): Promise<Array<RowsOf<R, T>>> {
    this.ownQuery(q);
    return this.queryAll<RowsOf<R, T>>(q.spec, { ...options, partitionKey: q.partitionKey });
  }

  private ownQuery(q: NamedQuery<unknown>): void {
    if (q.container !== this.name) throw new Error(`Query ${q.name} is one of ${q.container}, not ${this.name}`);
  }

  /** One page of an ad-hoc query (operator tools and tests; the service's queries are named). */
  async queryPage<R = WithEtag<T>>(spec: SqlQuerySpec, options: QueryOptions = {}): Promise<QueryPage<R>> {
    count('queries');
    const page = await this.run('query', async (receipt): Promise<QueryPage<R>> => {
      const iterator = this.container.items.query<R>(spec, {
        partitionKey: options.partitionKey,
        maxItemCount: options.maxItemCount,
        continuationToken: options.continuationToken,
        ...priorityOptions(),
      });
      const res = await iterator.fetchNext();
      count('queryPages');
      count('itemsReturned', res.resources.length);
      this.noteResponse(receipt, res);
      const items = res.resources.map((r) =>
        typeof r === 'object' && r !== null ? stripSystem(r as R & Record<string, unknown>) : r,
      );
      return { items, continuationToken: res.continuationToken ?? undefined };
    });
    if (!this.codec) return page;
    return { ...page, items: await Promise.all(page.items.map((row) => this.decode(row))) };
  }

  /**
   * One page of an ad-hoc query inside one logical partition (operator tools and tests). The partition
   * filter is part of the SQL as well as the request option.
   */
  async queryPartitionPage<R = WithEtag<T>>(
    pk: string,
    select: string,
    where: string,
    parameters: NonNullable<SqlQuerySpec['parameters']> = [],
    options: Omit<QueryOptions, 'partitionKey'> & { orderBy?: string } = {},
  ): Promise<QueryPage<R>> {
    const query = `${select} FROM c WHERE c.pk = @pk${where ? ` AND (${where})` : ''}${options.orderBy ? ` ORDER BY ${options.orderBy}` : ''}`;
    return this.queryPage<R>(
      { query, parameters: [{ name: '@pk', value: pk }, ...parameters] },
      { ...options, partitionKey: pk },
    );
  }

  /** Every result of an ad-hoc query, fetched page by page (operator tools and tests). */
  async queryAll<R = WithEtag<T>>(
    spec: SqlQuerySpec,
    options: Omit<QueryOptions, 'continuationToken'> = {},
  ): Promise<R[]> {
    const out: R[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.queryPage<R>(spec, { ...options, continuationToken });
      out.push(...page.items);
      continuationToken = page.continuationToken;
    } while (continuationToken);
    return out;
  }
}

export interface StoreConfig {
  endpoint: string;
  key?: string;
  database: string;
}

export class Store {
  private readonly collections = new Map<ContainerName, Collection<StoredDoc>>();
  readonly database: Database;

  private readonly unretriedDatabase: Database;
  private documentCodec?: DocumentCodec;

  constructor(
    readonly client: CosmosClient,
    databaseId: string,
    private readonly unretriedClient: CosmosClient = client,
    /** Paces every container's bulk work (one pacer per instance); none: bulk work is not paced. */
    readonly pacer?: RequestUnitPacer,
  ) {
    this.database = client.database(databaseId);
    this.unretriedDatabase = unretriedClient.database(databaseId);
  }

  collection<T extends StoredDoc>(name: ContainerName): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      c = new Collection<StoredDoc>(
        this.database.container(CONTAINERS[name].id),
        name,
        this.unretriedDatabase.container(CONTAINERS[name].id),
        this.pacer,
        this.documentCodec,
      );
      this.collections.set(name, c);
    }
    return c as unknown as Collection<T>;
  }

  /** Installs the stored form of documents (field encryption) for every collection handed out from now on. */
  useCodec(codec: DocumentCodec): void {
    this.documentCodec = codec;
    this.collections.clear();
  }

  /** The installed codec; none: documents are stored as they are. */
  get codec(): DocumentCodec | undefined {
    return this.documentCodec;
  }

  /**
   * Creates the database and containers when missing, and sets time to live and the indexing policy
   * where a container's setting differs (local stack and operator tooling; Bicep does it in Azure).
   */
  async ensureSchema(): Promise<void> {
    const { database } = await this.client.databases.createIfNotExists({ id: this.database.id });
    for (const def of Object.values(CONTAINERS)) {
      const { container, resource } = await database.containers.createIfNotExists(
        structuredClone(def) as Parameters<typeof database.containers.createIfNotExists>[0],
      );
      const wanted = 'defaultTtl' in def ? def.defaultTtl : undefined;
      const policyChanged = resource && indexingKey(resource.indexingPolicy) !== indexingKey(def.indexingPolicy);
      if (resource && (resource.defaultTtl !== wanted || policyChanged))
        await container.replace({
          ...resource,
          defaultTtl: wanted,
          indexingPolicy: structuredClone(def.indexingPolicy),
        });
    }
  }

  dispose(): void {
    this.client.dispose();
    if (this.unretriedClient !== this.client) this.unretriedClient.dispose();
  }
}

/** A store for `config`; with `pacer`, bulk work is paced by request units (the service's store). */
export function createStore(config: StoreConfig, pacer?: RequestUnitPacer): Store {
  const isHttp = config.endpoint.startsWith('http://');
  const isLocal = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?/i.test(config.endpoint);
  const credentials = config.key ? { key: config.key } : { aadCredentials: new DefaultAzureCredential() };
  const clientWith = (maxRetryAttemptCount: number) =>
    new CosmosClient({
      endpoint: config.endpoint,
      ...credentials,
      connectionPolicy: {
        enableEndpointDiscovery: !isHttp && !isLocal,
        retryOptions: { maxRetryAttemptCount, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 10 },
      },
      // The Cosmos emulator uses a self-signed certificate on localhost.
      ...(isLocal && !isHttp ? { agent: new https.Agent({ rejectUnauthorized: false }) } : {}),
    });
  return new Store(clientWith(3), config.database, clientWith(0), pacer);
}

/** Whether the store client met 429s on the way to an answer (it waited them out itself). */
function throttledOnTheWay(diagnostics: CosmosDiagnostics | undefined): boolean {
  return (
    diagnostics?.clientSideRequestStatistics?.retryDiagnostics?.failedAttempts?.some((a) => a.statusCode === 429) ??
    false
  );
}

function outcomeOf(charge: number | undefined, diagnostics: CosmosDiagnostics | undefined): Outcome {
  return throttledOnTheWay(diagnostics)
    ? { requestCharge: charge, throttledRetryAfterMs: 0 }
    : { requestCharge: charge };
}

/** A failed request's charge (its header), and the wait the store asked for when it throttled it. */
function outcomeOfError(err: unknown): Outcome {
  if (typeof err !== 'object' || err === null) return {};
  const e = err as {
    code?: unknown;
    headers?: Record<string, unknown>;
    retryAfterInMs?: unknown;
    diagnostics?: CosmosDiagnostics;
  };
  const header = Number(e.headers?.['x-ms-request-charge']);
  const charge = Number.isFinite(header) && e.headers?.['x-ms-request-charge'] !== undefined ? header : undefined;
  if (e.code === 429)
    return {
      requestCharge: charge,
      throttledRetryAfterMs: typeof e.retryAfterInMs === 'number' ? e.retryAfterInMs : 1000,
    };
  return outcomeOf(charge, e.diagnostics);
}

/** What an item of a batch reports when another item of its batch failed (all or nothing). */
const NOT_WRITTEN_WITH_BATCH = new StoreError('unavailable', 'Another item of the batch failed', 0);

/** A batch item's failure: the store's error for its status code or exception, else a retryable outage. */
function batchFailure(outcome: unknown): StoreError {
  const mapped = typeof outcome === 'number' ? toStoreError({ code: outcome }) : outcome;
  return mapped instanceof StoreError ? mapped : new StoreError('unavailable', 'Batch write failed', 1000);
}

/** What decides which queries an indexing policy serves (the server adds defaults when it echoes a policy back). */
function indexingKey(policy: IndexingPolicy | undefined): string {
  const paths = (list: Array<{ path: string }> | undefined) => (list ?? []).map((p) => p.path).sort();
  return JSON.stringify([
    paths(policy?.includedPaths),
    paths(policy?.excludedPaths),
    (policy?.compositeIndexes ?? []).map((c) => c.map((p) => `${p.path} ${p.order ?? 'ascending'}`)),
  ]);
}
