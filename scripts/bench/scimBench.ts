/*
 * npm run bench:scim — SCIM request cost as one integration grows to 1,000, 20,000 and 100,000 Users
 * (BENCH_SIZES), on the local engine with its data on disk as `npm start` keeps it; then the memory
 * of the process holding the stack and the time the stack takes to start again on that data. Every User
 * carries a personal number and a passport number, stored encrypted as in production (the local Key Vault
 * stand-in); BENCH_FIELD_ENCRYPTION=off measures the same without field encryption, for comparison.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  expectStatus,
  measure,
  measureInterleaved,
  printTable,
  requestRows,
  startBenchStack,
  tokenFor,
  type Measured,
  type Stack,
  runBench,
} from './harness';
import { DEV_CLIENTS, DEV_TENANT_ID, type DevClient } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { appendEntry, byIntegration, MAX_HISTORY } from '../../lib/identities/history';
import { changedAttributes } from '../../lib/identities/attributes';
import { uuid7 } from '../../lib/util/uuid7';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const LOG = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const SIZES = (process.env.BENCH_SIZES ?? '1000,20000,100000').split(',').map(Number);
const MB = (bytes: number) => Math.round(bytes / 1024 / 1024);
/** Field encryption on unless BENCH_FIELD_ENCRYPTION=off (the stack's KEY_VAULT_URL emptied). */
const STACK_ENV: Record<string, string> = process.env.BENCH_FIELD_ENCRYPTION === 'off' ? { KEY_VAULT_URL: '' } : {};
const two = (n: number) => String(n).padStart(2, '0');
/** A well-formed CPR number for User i (day 1-28, month 1-12). */
const cprOf = (i: number) =>
  `${two(1 + (i % 28))}${two(1 + (i % 12))}${two(i % 100)}${String(i % 10_000).padStart(4, '0')}`;

function seedDoc(tenantId: string, integrationId: string, i: number, prefix = 'seed'): IdentityDoc {
  const attributes = {
    externalId: `${prefix}-${i}`,
    userName: `${prefix}.user.${i}@corp.example`,
    givenName: 'Seed',
    familyName: `User${i}`,
    active: true,
    affiliationType: 'employment' as const,
    personalNumbers: [{ type: 'DkCpr' as const, value: cprOf(i) }],
    identityDocumentReferences: [
      { type: 'Passport' as const, issuingCountry: 'DK', documentNumber: `P${String(i).padStart(7, '0')}` },
    ],
  };
  return newIdentityDoc({
    id: uuid7(),
    tenantId,
    sourceKind: 'scim',
    sourceKey: integrationId,
    attributes,
    now: new Date().toISOString(),
  });
}

/**
 * A seeded User whose history is full: created, then patched (name.familyName) by the integration an hour
 * apart until it holds MAX_HISTORY changes, as a User changed often by its connector looks.
 */
function fullHistoryDoc(tenantId: string, integrationId: string, i: number): IdentityDoc {
  const doc = seedDoc(tenantId, integrationId, i, 'full');
  let history: Pick<IdentityDoc, 'history' | 'historyOmitted'> = {};
  const start = Date.now() - MAX_HISTORY * 3_600_000;
  for (let k = 0; k < MAX_HISTORY; k++)
    history = appendEntry(history, {
      at: new Date(start + k * 3_600_000 + (i % 1000)).toISOString(),
      actor: byIntegration(integrationId),
      operation: k === 0 ? 'CREATE' : 'PATCH',
      changedAttributes: k === 0 ? changedAttributes(undefined, doc) : ['name.familyName'],
    });
  return { ...doc, ...history };
}

interface Grown {
  integrationId: string;
  pk: string;
  seededIds: string[];
  /** Users with a full history (seeded once, counted in `users`). */
  fullIds: string[];
  users: number;
}

async function grown(clientId: string): Promise<Grown> {
  const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, clientId))!;
  return {
    integrationId: integration.id,
    pk: partitionKey(DEV_TENANT_ID, integration.id),
    seededIds: [],
    fullIds: [],
    users: 0,
  };
}

/** Grows the integration to n Users (the POSTs of the previous size count too), then measures every request kind. */
async function measureAt(stack: Stack & { base: string }, client: DevClient, g: Grown, n: number): Promise<Measured[]> {
  const seeded = Date.now();
  if (g.fullIds.length === 0) {
    const full = Array.from({ length: SAMPLES }, (_, k) => fullHistoryDoc(DEV_TENANT_ID, g.integrationId, k));
    const outcomes = await services().identities.batchCreate(g.pk, full);
    if (outcomes.some((o) => o !== 'created')) throw new Error('seeding failed');
    g.fullIds.push(...full.map((d) => d.id));
    g.users += full.length;
  }
  const start = g.seededIds.length;
  const docs = Array.from({ length: Math.max(0, n - g.users) }, (_, k) =>
    seedDoc(DEV_TENANT_ID, g.integrationId, start + k),
  );
  for (let i = 0; i < docs.length; i += 1000) {
    const part = docs.slice(i, i + 1000);
    const outcomes = await services().identities.batchCreate(g.pk, part);
    if (outcomes.some((o) => o !== 'created')) throw new Error('seeding failed');
    g.seededIds.push(...part.map((d) => d.id));
  }
  g.users += docs.length;
  LOG(`seeded ${docs.length} Users (now ${g.users}) in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
  const token = await tokenFor(stack, client);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };
  const url = (p: string) => `${stack.base}/scim/v2${p}`;
  const pick = (i: number) => (i * 7919) % g.seededIds.length;
  const ids = Array.from({ length: SAMPLES }, (_, i) => g.seededIds[pick(i)] ?? '');
  const lastStart = Math.floor((g.users - 1) / 100) * 100 + 1;
  const rows: Measured[] = [];
  // A client jumping straight to the last page: no remembered cursor, the start is found by reading ids once.
  rows.push(
    await measure('last page, first jump (no cursor)', 1, async () =>
      expectStatus(await fetch(url(`/Users?startIndex=${lastStart}&count=100`), { headers }), 200),
    ),
  );
  const post = (i: number) =>
    fetch(url('/Users'), {
      method: 'POST',
      headers,
      body: JSON.stringify({
        schemas: [CORE, EXT],
        externalId: `new-${n}-${i}`,
        userName: `new.${n}.${i}@corp.example`,
        name: { givenName: 'New', familyName: 'User' },
        [EXT]: {
          affiliationType: 'employment',
          personalNumbers: [{ type: 'DkCpr', value: cprOf(i) }],
          identityDocumentReferences: [{ type: 'passport', issuingCountry: 'DK', documentNumber: `N${i}` }],
        },
      }),
    });
  const patch = (i: number) =>
    fetch(url(`/Users/${ids[i]}`), {
      method: 'PATCH',
      headers,
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'name.familyName', value: `Patched${n}-${i}` }],
      }),
    });
  const patchFull = (i: number) =>
    fetch(url(`/Users/${g.fullIds[i % g.fullIds.length]}`), {
      method: 'PATCH',
      headers,
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'name.familyName', value: `Patched${n}-${i}` }],
      }),
    });
  const lastModifiedPage2 = `/Users?filter=${encodeURIComponent('meta.lastModified gt "2000-01-01T00:00:00Z"')}&startIndex=101&count=100`;
  rows.push(
    ...(await measureInterleaved(SAMPLES, [
      {
        name: 'GET /Users/{id}',
        fn: async (i) => expectStatus(await fetch(url(`/Users/${ids[i]}`), { headers }), 200),
      },
      {
        name: 'filter externalId eq',
        fn: async (i) =>
          expectStatus(
            await fetch(url(`/Users?filter=${encodeURIComponent(`externalId eq "seed-${pick(i)}"`)}`), { headers }),
            200,
          ),
      },
      {
        name: 'filter userName eq',
        fn: async (i) =>
          expectStatus(
            await fetch(url(`/Users?filter=${encodeURIComponent(`userName eq "SEED.USER.${pick(i)}@corp.example"`)}`), {
              headers,
            }),
            200,
          ),
      },
      { name: 'POST /Users', fn: async (i) => expectStatus(await post(i), 201) },
      { name: 'PATCH /Users/{id}', fn: async (i) => expectStatus(await patch(i), 200) },
      {
        name: `PATCH /Users/{id}, history full (${MAX_HISTORY})`,
        fn: async (i) => expectStatus(await patchFull(i), 200),
      },
      {
        name: 'last page via cursor (count=100)',
        fn: async () => expectStatus(await fetch(url(`/Users?startIndex=${lastStart}&count=100`), { headers }), 200),
      },
      {
        name: 'page 2 of a lastModified range (count=100)',
        fn: async () => expectStatus(await fetch(url(lastModifiedPage2), { headers }), 200),
      },
    ])),
  );
  g.users += SAMPLES;
  LOG(`measured N=${n}`);
  return rows;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scim-'));
  let stack = await startBenchStack(STACK_ENV, dataDir);
  const results: Array<{ n: number; rows: Measured[] }> = [];
  const client = DEV_CLIENTS.scim;
  let memory = { rss: 0, heapUsed: 0 };
  let users = 0;
  try {
    // The same run at the first size in the other dev integration first, not reported: the first size is not measured cold.
    const other = await grown(DEV_CLIENTS.scim2.clientId);
    await measureAt(stack, DEV_CLIENTS.scim2, other, SIZES[0] ?? 1000);
    const g = await grown(client.clientId);
    for (const n of SIZES) results.push({ n, rows: await measureAt(stack, client, g, n) });
    // The small integration once more, now that the process holds the large one: same partition size, same process state.
    results.push({ n: other.users, rows: await measureAt(stack, DEV_CLIENTS.scim2, other, other.users) });
    users = g.users;
    global.gc?.();
    memory = { rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed };
  } finally {
    await stack.stop();
  }

  // The same data folder again: the stack replays the engine's journal and snapshot and is ready.
  const restartStarted = performance.now();
  stack = await startBenchStack(STACK_ENV, dataDir);
  const restartSeconds = (performance.now() - restartStarted) / 1000;
  const loaded = stack.cosmosLoadedDocuments;
  const check = await fetch(`${stack.base}/scim/v2/Users?count=1`, {
    headers: { authorization: `Bearer ${await tokenFor(stack, client)}` },
  });
  const total = ((await check.json()) as { totalResults: number }).totalResults;
  await stack.stop();
  const dataMb = MB(fs.readdirSync(dataDir).reduce((a, f) => a + fs.statSync(path.join(dataDir, f)).size, 0));
  fs.rmSync(dataDir, { recursive: true, force: true });

  const table = requestRows(results, { requestCharge: true });
  printTable(table);
  const largest = results[SIZES.length - 1];
  for (const small of [results[0], results[SIZES.length]]) {
    console.log(
      `\nratio of p50 latency, N=${largest?.n} / N=${small?.n}${small === results[0] ? ' (first)' : ' (other integration, measured last)'}:`,
    );
    for (const [i, r] of (small?.rows ?? []).entries())
      console.log(`  ${r.name}: ${((largest?.rows[i]?.p50 ?? NaN) / r.p50).toFixed(2)}`);
  }
  console.log(`\nfield encryption: ${STACK_ENV.KEY_VAULT_URL === '' ? 'off (BENCH_FIELD_ENCRYPTION=off)' : 'on'}`);
  console.log(
    `\nprocess memory with ${users} Users in the stack: rss ${MB(memory.rss)} MB, heap used ${MB(memory.heapUsed)} MB`,
  );
  console.log(
    `restart on the same data (${dataMb} MB on disk): ${loaded} documents loaded, stack ready in ${restartSeconds.toFixed(1)} s; the integration lists ${total} Users`,
  );
}

runBench('scim', main);
