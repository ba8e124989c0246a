/**
 * The bulk thread: a GraphQL request with a large body (an import or association of hundreds or thousands)
 * is parsed, validated and executed on a worker thread of its own. The CPU such a request takes (JSON of
 * megabytes, graphql-js coercing every input object, the store client's work for tens of thousands of
 * writes) then runs beside the instance's main thread instead of between its other requests, so one
 * tenant's nightly import does not hold up another's SCIM calls. The main thread keeps what is shared by
 * the instance: authentication, the per-tenant limits and budgets (the thread asks for budget by message),
 * and the request log. One thread per instance, started on first use, ended with the services.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LogLevel, LogSink } from '../log/logger';
import { addCounters, type StoreCounters } from '../store/metrics';
import type { Caller } from '../auth/tokenValidator';
import type { Actor } from '../audit/auditLog';

/** A request as the main thread hands it over: read, authenticated, within its tenant's limits. */
export interface BulkRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: string;
  /** The administrator (lib/graphql/context.ts `Admin`), as authenticated on the main thread. */
  admin: { caller: Caller; actor: Actor };
  correlationId: string;
  functionName: string;
}

/** graphql-yoga's answer, as bytes. */
export interface BulkAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

/** What the main thread lends a request on the bulk thread. */
export interface BulkRequestHost {
  log: LogSink;
  /** The tenant's bulk budget of the instance: seconds to wait, 0 when taken. */
  takeBulkBudget(tenantId: string, units: number): number;
}

export type ToBulkThread =
  { type: 'request'; id: number; request: BulkRequest } | { type: 'budget'; callId: number; wait: number };

export type FromBulkThread =
  | { type: 'answer'; id: number; answer: BulkAnswer; counters: StoreCounters }
  | { type: 'failed'; id: number; counters: StoreCounters }
  | { type: 'log'; id: number; level: LogLevel; line: string }
  | { type: 'budget'; id: number; callId: number; tenantId: string; units: number };

/** The request could not be finished on the bulk thread (it failed or ended); answered as an unexpected error. */
export class BulkThreadFailure extends Error {
  constructor() {
    super('The bulk thread did not answer the request');
    this.name = 'BulkThreadFailure';
  }
}

const BUILT_SCRIPT = path.join(__dirname, 'bulkThreadWorker.js');
let script = BUILT_SCRIPT;

/**
 * Points the bulk thread at another build of its script. The built service (tsc output and the deployed
 * bundle) has it beside this module; the dev host sets it when it runs the TypeScript sources.
 */
export function setBulkThreadScript(file: string | undefined): void {
  script = file ?? BUILT_SCRIPT;
}

interface Pending {
  host: BulkRequestHost;
  resolve(answer: BulkAnswer): void;
  reject(err: Error): void;
}

export class BulkThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private handedOver = 0;

  /** Requests handed to the thread since the services were made. */
  get requests(): number {
    return this.handedOver;
  }

  run(request: BulkRequest, host: BulkRequestHost): Promise<BulkAnswer> {
    const worker = this.started();
    const id = this.nextId++;
    this.handedOver++;
    return new Promise<BulkAnswer>((resolve, reject) => {
      this.pending.set(id, { host, resolve, reject });
      worker.postMessage({ type: 'request', id, request } satisfies ToBulkThread);
    });
  }

  /** Ends the thread; requests still on it fail. */
  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll();
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // The thread reads the settings the main thread reads now (the services, and so the thread, are made
    // again when the settings change), so it builds the same services.
    const worker = new Worker(script, { env: { ...process.env } });
    // The main thread's server keeps the process alive while requests come; the thread alone never does.
    worker.unref();
    worker.on('message', (m: FromBulkThread) => this.received(worker, m));
    const ended = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll();
    };
    worker.on('error', ended);
    worker.on('exit', ended);
    this.worker = worker;
    return worker;
  }

  private received(worker: Worker, m: FromBulkThread): void {
    const pending = this.pending.get(m.id);
    if (!pending) return;
    switch (m.type) {
      case 'log':
        pending.host.log(m.level, m.line);
        return;
      case 'budget':
        worker.postMessage({
          type: 'budget',
          callId: m.callId,
          wait: pending.host.takeBulkBudget(m.tenantId, m.units),
        } satisfies ToBulkThread);
        return;
      case 'answer':
        this.pending.delete(m.id);
        // The instance's store counters include the thread's operations (benchmarks and tests read them).
        addCounters(m.counters);
        pending.resolve(m.answer);
        return;
      case 'failed':
        this.pending.delete(m.id);
        addCounters(m.counters);
        pending.reject(new BulkThreadFailure());
        return;
    }
  }

  private failAll(): void {
    for (const p of this.pending.values()) p.reject(new BulkThreadFailure());
    this.pending.clear();
  }
}
