/*
 * npm run bench:links -- [tenants] [pendingPerTenant] [freshPerTenant]   (defaults 200 500 50)
 *
 * Background pending-link work at scale, as in production: the planner timer enqueues one unit per
 * tenant on the background-work queue (Azurite) and the dev host runs backgroundWork for every unit
 * (bounded batches, continuations). Each tenant has `pendingPerTenant` pending identities: 90 % with
 * UPNs that never appear, 10 % whose directory user is created after they were saved. Cycle 1 runs
 * until every resolvable one is linked; then a second wave of `freshPerTenant` fresh pending identities
 * per tenant (users created after save) arrives while the stale ones remain, and must be linked by the
 * next cycle alone, with Graph requests for the fresh wave only (the stale ones back off).
 */
import { printTable, startBenchStack, runBench, type Stack } from './harness';
import { SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services } from '../../lib/services';
import { type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { UPNS_PER_FILTER, REQUESTS_PER_BATCH } from '../../lib/directory/directoryClient';

const [tenantsArg, perTenantArg, freshArg] = process.argv.slice(2).map(Number);
const TENANTS = tenantsArg || 200;
const PER_TENANT = perTenantArg || 500;
const FRESH_PER_TENANT = freshArg || 50;
const RESOLVABLE_SHARE = 0.1;
const MAX_CYCLES = 5;
const SOURCE = 'bench-links';

const tenantId = (i: number): string =>
  `${(0x10000000 + i).toString(16)}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

async function seed(stack: Stack, wave: string, perTenant: number, resolvableShare: number): Promise<number> {
  const svc = services();
  const now = new Date().toISOString();
  const work = Array.from({ length: TENANTS * perTenant }, (_, k) => ({
    t: Math.floor(k / perTenant),
    i: k % perTenant,
  }));
  const resolvable: Array<[string, string]> = [];
  await forEachBounded(work, 64, async ({ t, i }) => {
    const tenant = tenantId(t);
    const willAppear = i < Math.round(perTenant * resolvableShare);
    const upn = `${wave}.${willAppear ? 'later' : 'never'}.${i}@t${t}.example.com`;
    const attributes = {
      externalId: `${wave}-${i}`,
      userName: upn,
      givenName: 'P',
      familyName: `${i}`,
      active: true,
      affiliationType: 'employment' as const,
      personalNumbers: [],
      identityDocumentReferences: [],
      directoryUserPrincipalName: upn,
    };
    await svc.identities.create(
      newIdentityDoc({
        id: uuid7(),
        tenantId: tenant,
        sourceKind: 'custom',
        sourceKey: SOURCE,
        attributes,
        now,
        link: { status: 'pending', lookedUpUpn: upn },
      }),
    );
    if (willAppear) resolvable.push([tenant, upn]);
  });
  // The directory users appear after the identities were saved (pending at save time).
  for (const [tenant, upn] of resolvable) stack.directory.createUser(tenant, upn);
  return resolvable.length;
}

async function linkedCount(wave: string): Promise<number> {
  const rows = await services()
    .store.collection<IdentityDoc>('identities')
    .queryAll<{ id: string }>({
      query:
        "SELECT c.id FROM c WHERE c.sourceKey = @source AND c.link.status = 'linked' AND STARTSWITH(c.externalId, @wave)",
      parameters: [
        { name: '@source', value: SOURCE },
        { name: '@wave', value: `${wave}-` },
      ],
    });
  return rows.length;
}

interface CycleRow {
  [column: string]: string | number;
}

async function cycle(
  stack: Stack,
  label: string,
  expectedPerTenant: number,
  linkedBefore: () => Promise<number>,
): Promise<CycleRow> {
  const svc = services();
  stack.directory.resetStats();
  const ops = storeCounters();
  const unitsBefore = svc.workQueue.sent;
  const started = performance.now();
  await stack.host.runTimer('resolvePendingLinks');
  const plannedMs = performance.now() - started;
  await stack.host.queuesIdle(3_600_000);
  const ms = performance.now() - started;
  const graph = stack.directory.stats();
  const store = diffCounters(storeCounters(), ops);
  const queries = Math.ceil(expectedPerTenant / UPNS_PER_FILTER);
  return {
    cycle: label,
    'planner s': (plannedMs / 1000).toFixed(2),
    'until queue empty s': (ms / 1000).toFixed(1),
    'units (messages)': svc.workQueue.sent - unitsBefore,
    'linked so far': await linkedBefore(),
    'Graph requests / tenant': (graph.requests / TENANTS).toFixed(1),
    '$batch / tenant': (graph.batchRequests / TENANTS).toFixed(1),
    'filter queries / tenant': (graph.filterQueries / TENANTS).toFixed(1),
    'bound ⌈N/15⌉ / tenant': queries,
    '$batch bound / tenant': Math.ceil(queries / REQUESTS_PER_BATCH),
    'store reads': store.pointReads,
    'store queries': store.queries,
    'store writes': store.writes,
  };
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const svc = services();
    for (let t = 0; t < TENANTS; t++) {
      await svc.tenants.register(tenantId(t));
      stack.idp.addClient({
        tenantId: tenantId(t),
        clientId: SERVICE_GRAPH_CLIENT.clientId,
        secret: SERVICE_GRAPH_CLIENT.secret,
        roles: [],
      });
    }
    let t0 = performance.now();
    const resolvable = await seed(stack, 'w1', PER_TENANT, RESOLVABLE_SHARE);
    console.log(
      `seeded ${TENANTS} tenants × ${PER_TENANT} pending (${resolvable} resolvable) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const rows: CycleRow[] = [];
    let cycles = 0;
    t0 = performance.now();
    do {
      cycles++;
      rows.push(await cycle(stack, `wave 1, cycle ${cycles}`, cycles === 1 ? PER_TENANT : 0, () => linkedCount('w1')));
    } while ((await linkedCount('w1')) < resolvable && cycles < MAX_CYCLES);
    const wave1Ms = performance.now() - t0;
    const wave1Linked = await linkedCount('w1');

    const fresh = await seed(stack, 'w2', FRESH_PER_TENANT, 1);
    rows.push(await cycle(stack, 'wave 2 (fresh), next cycle', FRESH_PER_TENANT, () => linkedCount('w2')));
    const wave2Linked = await linkedCount('w2');

    printTable(rows);
    console.log(
      `\n${TENANTS} tenants × ${PER_TENANT} pending = ${TENANTS * PER_TENANT}: ${wave1Linked}/${resolvable} resolvable linked after ${cycles} planner cycle(s), ${(wave1Ms / 1000).toFixed(1)} s of queue work.` +
        `\nSecond wave: ${wave2Linked}/${fresh} fresh pending linked by the next cycle while ${TENANTS * PER_TENANT - wave1Linked} stale ones remain (backed off).`,
    );
    if (wave1Linked !== resolvable) throw new Error('not every resolvable identity of the first wave was linked');
    if (cycles !== 1) throw new Error('the first wave needed more than one cycle');
    if (wave2Linked !== fresh) throw new Error('the fresh wave was not linked within one cycle');
    const [first, second] = [rows[0], rows.at(-1)];
    if (Number(first?.['filter queries / tenant']) > Math.ceil(PER_TENANT / UPNS_PER_FILTER))
      throw new Error('Graph queries above ⌈N/15⌉ per tenant');
    if (Number(second?.['filter queries / tenant']) > Math.ceil(FRESH_PER_TENANT / UPNS_PER_FILTER))
      throw new Error('the second cycle looked up stale identities');
  } finally {
    await stack.stop();
  }
}

runBench('links', main);
