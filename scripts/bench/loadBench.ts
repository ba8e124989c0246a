/*
 * npm run bench:load — a mixed Entra-like workload (filter-then-create, PATCH, GET, DELETE) across
 * 4 integrations for a bounded time, then the same with injected store faults; for each preload
 * size (BENCH_PRELOAD, Users already in each integration: 1,000 and 20,000), the sizes taking turns. Reports throughput,
 * latency percentiles and status counts, and checks: no 5xx other than retryable 503 (with
 * Retry-After) under faults, none at all without; and the stored Users equal what the clients were
 * told was written (no lost update).
 */
import { percentile, printTable, round, startBenchStack, runBench } from './harness';
import { DEV_TENANT_ID, SERVICE_APP_ID_URI } from '../../devhost/devData';
import { services } from '../../lib/services';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { partitionKey } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 16);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const FAULT_RATE = Number(process.env.BENCH_FAULT_RATE ?? 0.05);
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const PRELOAD = (process.env.BENCH_PRELOAD ?? '1000,20000').split(',').map(Number);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const CLIENT_IDS = [
  'dddddddd-0000-4000-8000-000000000001',
  'dddddddd-0000-4000-8000-000000000002',
  'dddddddd-0000-4000-8000-000000000003',
  'dddddddd-0000-4000-8000-000000000004',
];

interface Stats {
  latencies: number[];
  statuses: Map<number, number>;
  retryableWithoutRetryAfter: number;
  acknowledged: number;
}

interface Model {
  id?: string;
  familyName: string;
  deleted: boolean;
}

async function run(base: string, tokens: string[], label: string, faults: boolean, runSeconds: number): Promise<Slice> {
  const stats: Stats = { latencies: [], statuses: new Map(), retryableWithoutRetryAfter: 0, acknowledged: 0 };
  const models = new Map<string, Model & { token: string }>();
  const until = Date.now() + runSeconds * 1000;

  const send = async (
    token: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    for (;;) {
      const t = performance.now();
      const res = await fetch(`${base}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      stats.latencies.push(performance.now() - t);
      stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429 || res.status === 503) {
        if (!res.headers.get('retry-after')) stats.retryableWithoutRetryAfter++;
        await new Promise((r) => setTimeout(r, 5)); // a real client waits Retry-After seconds; the bench keeps going
        continue;
      }
      return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    }
  };

  const worker = async (w: number): Promise<void> => {
    const token = tokens[w % tokens.length] ?? '';
    let n = 0;
    while (Date.now() < until) {
      const externalId = `${label}-w${w}-${n % 25}`;
      n++;
      let model = models.get(externalId);
      const roll = Math.random();
      if (!model || model.deleted) {
        // Entra's safe creation: find by externalId, create when absent, on 409 find again.
        const found = await send(token, 'GET', `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}"`)}`);
        let id = ((found.json.Resources as Array<{ id: string }> | undefined) ?? [])[0]?.id;
        if (!id) {
          const body = {
            schemas: [CORE, EXT],
            externalId,
            userName: `${externalId}@corp.example`,
            name: { givenName: 'Load', familyName: 'Initial' },
            [EXT]: { affiliationType: 'employment' },
          };
          const created = await send(token, 'POST', '/Users', body);
          if (created.status === 201) id = created.json.id as string;
          else if (created.status === 409)
            id = (
              (
                (await send(token, 'GET', `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}"`)}`)).json
                  .Resources as Array<{ id: string }>
              )[0] ?? { id: '' }
            ).id;
          else throw new Error(`create answered ${created.status}`);
        }
        const current = await send(token, 'GET', `/Users/${id}`);
        model = { id, familyName: (current.json.name as { familyName: string }).familyName, deleted: false, token };
        models.set(externalId, model);
        stats.acknowledged++;
      } else if (roll < 0.6) {
        const familyName = `F${w}-${n}`;
        const res = await send(token, 'PATCH', `/Users/${model.id}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'Replace', path: 'name.familyName', value: familyName }],
        });
        if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
        model.familyName = familyName;
        stats.acknowledged++;
      } else if (roll < 0.95) {
        const res = await send(token, 'GET', `/Users/${model.id}`);
        if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
      } else {
        const res = await send(token, 'DELETE', `/Users/${model.id}`);
        if (res.status !== 204 && res.status !== 404) throw new Error(`DELETE answered ${res.status}`);
        model.deleted = true;
        stats.acknowledged++;
      }
    }
  };

  if (faults) {
    setFaultInjector((_op, container) => {
      if (container === 'identities' && Math.random() < FAULT_RATE) {
        throw Math.random() < 0.5
          ? new StoreError('throttled', 'injected throttling', 1000)
          : new StoreError('unavailable', 'injected outage', 1000);
      }
    });
  }
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  } finally {
    setFaultInjector(undefined);
  }
  const seconds = (performance.now() - started) / 1000;

  // Afterwards the stored state must equal the acknowledged writes.
  let lost = 0;
  for (const m of models.values()) {
    const res = await fetch(`${base}/scim/v2/Users/${m.id}`, { headers: { authorization: `Bearer ${m.token}` } });
    if (m.deleted) {
      if (res.status !== 404) lost++;
    } else if (
      res.status !== 200 ||
      ((await res.json()) as { name: { familyName: string } }).name.familyName !== m.familyName
    )
      lost++;
  }
  return { stats, seconds, lost };
}

interface Slice {
  stats: Stats;
  seconds: number;
  lost: number;
}

/** One table row from the slices of one mode and size (their requests, time and statuses added up). */
function rowOf(label: string, faults: boolean, slices: Slice[]): Record<string, string | number> {
  const statuses = new Map<number, number>();
  for (const sl of slices) for (const [st, c] of sl.stats.statuses) statuses.set(st, (statuses.get(st) ?? 0) + c);
  const sorted = slices.flatMap((sl) => sl.stats.latencies).sort((a, b) => a - b);
  const seconds = slices.reduce((a, sl) => a + sl.seconds, 0);
  const lost = slices.reduce((a, sl) => a + sl.lost, 0);
  const acknowledged = slices.reduce((a, sl) => a + sl.stats.acknowledged, 0);
  const withoutRetryAfter = slices.reduce((a, sl) => a + sl.stats.retryableWithoutRetryAfter, 0);
  const count = (st: number) => statuses.get(st) ?? 0;
  const fiveXx = [...statuses].filter(([st]) => st >= 500).reduce((a, [, c]) => a + c, 0);
  const nonRetryable5xx = [...statuses].filter(([st]) => st >= 500 && st !== 503).reduce((a, [, c]) => a + c, 0);
  if (nonRetryable5xx > 0 || lost > 0 || withoutRetryAfter > 0 || (!faults && fiveXx > 0)) {
    throw new Error(
      `${label}: ${nonRetryable5xx} non-retryable 5xx, ${fiveXx} 5xx, ${lost} lost updates, ${withoutRetryAfter} retryable answers without Retry-After`,
    );
  }
  return {
    mode: label,
    seconds: round(seconds),
    requests: sorted.length,
    'req/s': round(sorted.length / seconds),
    'p50 ms': round(percentile(sorted, 50)),
    'p95 ms': round(percentile(sorted, 95)),
    'p99 ms': round(percentile(sorted, 99)),
    'HTTP 2xx': [...statuses].filter(([st]) => st < 300).reduce((a, [, c]) => a + c, 0),
    'HTTP 409': count(409),
    'HTTP 429': count(429),
    'HTTP 503': count(503),
    'other 5xx': nonRetryable5xx,
    'acknowledged writes': acknowledged,
    'lost updates': lost,
  };
}

/** `n` Users in the integration's partition, written straight to the store in transactional batches. */
async function preload(integrationId: string, n: number): Promise<void> {
  const pk = partitionKey(DEV_TENANT_ID, integrationId);
  const now = new Date().toISOString();
  for (let i = 0; i < n; i += 1000) {
    const docs = Array.from({ length: Math.min(1000, n - i) }, (_, k) =>
      newIdentityDoc({
        id: uuid7(),
        tenantId: DEV_TENANT_ID,
        sourceKind: 'scim',
        sourceKey: integrationId,
        attributes: {
          externalId: `pre-${i + k}`,
          userName: `pre.${i + k}@corp.example`,
          givenName: 'Pre',
          familyName: 'Loaded',
          active: true,
          affiliationType: 'employment',
          personalNumbers: [],
          identityDocumentReferences: [],
        },
        now,
      }),
    );
    const outcomes = await services().identities.batchCreate(pk, docs);
    if (outcomes.some((o) => o !== 'created')) throw new Error('preload failed');
  }
}

/**
 * Both preload sizes live in one stack (4 integrations each) and take turns in slices of
 * BENCH_SLICE_SECONDS, so load from other processes on the machine falls on both sizes alike.
 */
async function main(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const stack = await startBenchStack();
  try {
    const actor = { tenantId: DEV_TENANT_ID, kind: 'system' as const, id: 'load-bench' };
    const tokensBySize = new Map<number, string[]>();
    for (const [s, n] of PRELOAD.entries()) {
      const tokens: string[] = [];
      for (const [i, base] of CLIENT_IDS.entries()) {
        const clientId = `${base.slice(0, -2)}${String(s * CLIENT_IDS.length + i + 1).padStart(2, '0')}`;
        const integration = await services().integrations.create(
          DEV_TENANT_ID,
          { displayName: `Load ${n} ${i + 1}`, clientId },
          actor,
        );
        await preload(integration.id, n);
        tokens.push(stack.idp.mintAppToken({ tenantId: DEV_TENANT_ID, clientId, audience: SERVICE_APP_ID_URI }));
      }
      tokensBySize.set(n, tokens);
    }
    const slices = Math.max(1, Math.round(SECONDS / SLICE_SECONDS));
    // Not reported: the first seconds of a process run cold.
    await run(stack.base, tokensBySize.get(PRELOAD[0] ?? 1000)!, 'warm-up', false, SLICE_SECONDS);
    for (const faults of [false, true]) {
      const label = faults ? `store faults ${FAULT_RATE * 100}%` : 'no faults';
      const bySize = new Map<number, Slice[]>(PRELOAD.map((n) => [n, []]));
      for (let k = 0; k < slices; k++) {
        // Turns alternate in order (A B, B A, ...), so neither size always follows the other.
        for (const n of k % 2 === 0 ? PRELOAD : [...PRELOAD].reverse())
          bySize.get(n)!.push(await run(stack.base, tokensBySize.get(n)!, `${label} ${n} ${k}`, faults, SLICE_SECONDS));
      }
      for (const n of PRELOAD) rows.push({ preloaded: n, ...rowOf(label, faults, bySize.get(n)!) });
    }
  } finally {
    await stack.stop();
  }
  printTable(rows);
}

runBench('load', main);
