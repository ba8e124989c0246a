/* Shared benchmark helpers: the local stack in-process, tokens, timing, store-operation counts. */
import { request as httpRequest } from 'node:http';
import { installFunctionsCore } from '../../devhost/installFunctionsCore';

installFunctionsCore();

import type * as StackModule from '../../devhost/stack';
import type * as FleetModule from '../../devhost/fleet';
import {
  diffCounters,
  emptyCounters,
  resetStoreCounters,
  storeCounters,
  type StoreCounters,
} from '../../lib/store/metrics';
import { SERVICE_SCOPE, type DevClient } from '../../devhost/devData';
import { runAndRecord } from './resultFile';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startLocalStack } = require('../../devhost/stack') as typeof StackModule;

export type Stack = Awaited<ReturnType<typeof startLocalStack>>;

/**
 * The local stack for a benchmark: in memory unless `cosmosDataDir` names a folder for the engine's
 * data; with `cosmosRuPerSecond` each container of the engine serves that many request units per
 * second and answers 429 beyond (5,000 = a serverless container).
 */
export async function startBenchStack(
  env: Record<string, string> = {},
  cosmosDataDir?: string,
  cosmosRuPerSecond?: number,
): Promise<Stack & { base: string }> {
  const stack = await startLocalStack({
    env: { SCIM_RATE_LIMIT_PER_SECOND: '100000', LOG_LEVEL: 'warn', ...env },
    cosmosDataDir,
    cosmosRuPerSecond,
  });
  return { ...stack, base: stack.env.PUBLIC_BASE_URL ?? stack.host.url };
}

/**
 * The local stack with `instances` function hosts in processes of their own behind the front (devhost/fleet.ts),
 * over the shared parts in this process; `base` is the front. Benchmarks run from the build, so each instance runs
 * the compiled devhost/instance.js.
 */
export async function startBenchFleet(
  env: Record<string, string>,
  instances: number,
): Promise<Stack & { base: string; fleet: FleetModule.LocalFleet }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startLocalFleet } = require('../../devhost/fleet') as typeof FleetModule;
  const fleet = await startLocalFleet({
    env: { SCIM_RATE_LIMIT_PER_SECOND: '100000', LOG_LEVEL: 'warn', ...env },
    instances,
  });
  return { ...fleet, base: fleet.env.PUBLIC_BASE_URL ?? fleet.host.url, fleet };
}

export async function tokenFor(stack: Stack, client: DevClient): Promise<string> {
  const res = await fetch(`${stack.idp.url}/${client.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.secret,
      scope: SERVICE_SCOPE,
    }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * POSTs JSON and returns the parsed answer with no client-side time limit: fetch gives up after
 * 300 s without response headers, and a first import of 100,000 people on the local server can take longer.
 */
export function postJsonNoTimeout(
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
            });
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export interface Measured {
  name: string;
  n: number;
  p50: number;
  p95: number;
  perRequest: StoreCounters;
}

/** Table rows of requests measured at several sizes: latency and store operations per request (and request units when asked). */
export function requestRows(
  results: Array<{ n: number; rows: Measured[] }>,
  options: { requestCharge?: boolean } = {},
): Array<Record<string, string | number>> {
  return results.flatMap(({ n, rows }) =>
    rows.map((r) => ({
      N: n,
      request: r.name,
      'p50 ms': r.p50,
      'p95 ms': r.p95,
      'point reads': r.perRequest.pointReads,
      queries: r.perRequest.queries,
      'items returned': r.perRequest.itemsReturned,
      writes: r.perRequest.writes,
      ...(options.requestCharge ? { 'RU (SDK)': r.perRequest.requestCharge } : {}),
      samples: r.n,
    })),
  );
}

/** Runs `fn` `count` times sequentially; reports latency percentiles (ms) and store operations per call. */
export async function measure(name: string, count: number, fn: (i: number) => Promise<void>): Promise<Measured> {
  const times: number[] = [];
  resetStoreCounters();
  const before = storeCounters();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  const total = diffCounters(storeCounters(), before);
  const perRequest = { ...total };
  for (const k of Object.keys(perRequest) as Array<keyof StoreCounters>)
    perRequest[k] = Math.round((total[k] / count) * 100) / 100;
  times.sort((a, b) => a - b);
  return { name, n: count, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), perRequest };
}

/**
 * Runs the request kinds round-robin, `count` rounds (one call of each kind per round), so load
 * from other processes on the machine spreads evenly over the kinds; reports each kind like `measure`.
 */
export async function measureInterleaved(
  count: number,
  kinds: Array<{ name: string; fn: (i: number) => Promise<void> }>,
): Promise<Measured[]> {
  const times = kinds.map(() => [] as number[]);
  const totals = kinds.map(() => emptyCounters());
  for (let i = 0; i < count; i++) {
    for (const [k, kind] of kinds.entries()) {
      const before = storeCounters();
      const t = performance.now();
      await kind.fn(i);
      times[k]!.push(performance.now() - t);
      const diff = diffCounters(storeCounters(), before);
      for (const key of Object.keys(diff) as Array<keyof StoreCounters>) totals[k]![key] += diff[key];
    }
  }
  return kinds.map((kind, k) => {
    const perRequest = { ...totals[k]! };
    for (const key of Object.keys(perRequest) as Array<keyof StoreCounters>)
      perRequest[key] = Math.round((perRequest[key] / count) * 100) / 100;
    const sorted = times[k]!.sort((a, b) => a - b);
    return {
      name: kind.name,
      n: count,
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      perRequest,
    };
  });
}

export const round = (x: number): number => Math.round(x * 100) / 100;

export async function expectStatus(res: Response, status: number): Promise<void> {
  if (res.status !== status)
    throw new Error(`expected HTTP ${status}, got ${res.status}: ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}

export function printTable(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i] ?? 0)).join(' | ')} |`;
  console.log(line(cols));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}

/**
 * Runs a benchmark's main and exits with its outcome; on success its figures (what it printed to stdout)
 * go to docs/performance/bench-<name>.md.
 */
export function runBench(name: string, main: () => Promise<void>): void {
  runAndRecord(name, main);
}

/** A GraphQL answer as the benchmarks read it. */
export interface Gql {
  data?: Record<string, Record<string, unknown> | null>;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
}

/** A GraphQL call that waits out SERVICE_BUSY (retryAfterSeconds) and throws on any other error. */
export async function graphqlRetryingBusy(
  stack: Stack & { base: string },
  token: string,
  query: string,
  variables: unknown,
): Promise<Gql> {
  for (;;) {
    const body = (await postJsonNoTimeout(`${stack.base}/graphql`, token, { query, variables })).json as Gql;
    const busy = body.errors?.find((e) => e.extensions?.code === 'SERVICE_BUSY');
    if (busy) {
      await new Promise((r) => setTimeout(r, (busy.extensions?.retryAfterSeconds ?? 1) * 1000));
      continue;
    }
    if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 300));
    return body;
  }
}
