/*
 * npm run bench:links -- [tenants] [pendingPerTenant] [freshPerTenant]   (defaults 200 500 50)
 *
 * How soon a pending identity is linked after its directory account appears, and what the background
 * link work costs, in simulated time (the cycles get an injected clock; nothing waits for real):
 * `tenants` × `pendingPerTenant` pending identities, saved over the past week; accounts for a random
 * 10 % appear at random moments over 30 minutes; a background cycle runs every 5 minutes. The same run
 * (same seed: same identities, same arrival moments) is made twice on fresh stacks, with:
 *   - directory change tracking (lib/links/tenantLinkCycle.ts: one users-delta request per tenant, changes
 *     matched by UPN key), and
 *   - polling (pollingLinks.ts beside this file, the design before it: every due pending identity is looked up,
 *     then backs off 5 minutes doubling to 4 hours; the history of the past week sets each one's back-off).
 * Prints link latency from account creation to linked (p50/p95, in cycles and in minutes at the 5-minute
 * cadence), Graph requests per idle tenant per cycle, Graph requests and store request units per cycle,
 * then a fresh wave (`freshPerTenant` identities saved per tenant, their accounts created right after)
 * that must be linked by the next cycle. Writes docs/performance/bench-links.md.
 */
import { percentile, printTable, startBenchStack, runBench, type Stack } from './harness';
import { SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services, workDeps } from '../../lib/services';
import { type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';
import { storeCounters } from '../../lib/store/metrics';
import { runTenantLinkCycle } from '../../lib/links/tenantLinkCycle';
import { resolveTenantPendingLinks } from './pollingLinks';
import { backoffSeconds, type BackoffPolicy } from '../../lib/links/linkBackoff';
import { upnKey } from '../../lib/identities/upn';

const [tenantsArg, perTenantArg, freshArg] = process.argv.slice(2).map(Number);
const TENANTS = tenantsArg || 200;
const PER_TENANT = perTenantArg || 500;
const FRESH_PER_TENANT = freshArg || 50;
const APPEARING_SHARE = 0.1;
const WINDOW_MIN = 30;
const CADENCE_MIN = 5;
const HISTORY_DAYS = 7;
/** Polling keeps going after the window until every appeared account is linked (the back-off caps at 4 h). */
const MAX_TAIL_CYCLES = 60;
/** Cycles measured after every appeared account is linked: no account appears, every tenant is idle. */
const IDLE_CYCLES = 2;
const SOURCE = 'bench-links';
const SEED = 20261126;
const TENANT_CONCURRENCY = 16;
const POLLING_UNIT_LIMIT = 300;
const T0 = Date.parse('2026-11-26T02:00:00.000Z');

type Design = 'delta' | 'polling';

const tenantId = (i: number): string =>
  `${(0x10000000 + i).toString(16)}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** mulberry32: the same pseudo-random sequence on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Person {
  tenant: string;
  upn: string;
  /** Saved this many minutes before the window (polling: drives its back-off so far). */
  savedMin: number;
  /** When the directory account appears (minutes into the window), if it does. */
  appearsMin?: number;
}

function scenario(): Person[] {
  const rnd = random(SEED);
  const people: Person[] = [];
  for (let t = 0; t < TENANTS; t++) {
    const indexes = Array.from({ length: PER_TENANT }, (_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [indexes[i], indexes[j]] = [indexes[j] ?? 0, indexes[i] ?? 0];
    }
    const appearing = new Set(indexes.slice(0, Math.round(PER_TENANT * APPEARING_SHARE)));
    for (let i = 0; i < PER_TENANT; i++) {
      people.push({
        tenant: tenantId(t),
        upn: `p.${i}@t${t}.example.com`,
        savedMin: rnd() * HISTORY_DAYS * 24 * 60,
        ...(appearing.has(i) ? { appearsMin: Math.max(0.01, rnd() * WINDOW_MIN) } : {}),
      });
    }
  }
  return people;
}

/** Polling's state at the window's start: checks made on the 5-minute grid since the save, each backing off. */
function pollingHistory(savedMin: number, policy: BackoffPolicy): { checks: number; nextCheckMin?: number } {
  let check = -Math.floor(savedMin / CADENCE_MIN) * CADENCE_MIN; // first cycle after the save (<= 0)
  let checks = 0;
  let due = check;
  while (check < 0) {
    checks++;
    due = check + backoffSeconds(checks, policy) / 60;
    check = Math.ceil(due / CADENCE_MIN) * CADENCE_MIN;
  }
  return checks === 0 ? { checks } : { checks, nextCheckMin: due };
}

function pendingDoc(p: Person, policy: BackoffPolicy, wave: string, history = true): IdentityDoc {
  const h = history ? pollingHistory(p.savedMin, policy) : { checks: 0 };
  return newIdentityDoc({
    id: uuid7(),
    tenantId: p.tenant,
    sourceKind: 'scim',
    sourceKey: SOURCE,
    attributes: {
      externalId: `${wave}-${p.upn}`,
      userName: `${wave}-${p.upn}`,
      givenName: 'P',
      familyName: 'Q',
      active: true,
      affiliationType: 'employment',
      personalNumbers: [],
      identityDocumentReferences: [],
      directoryUserPrincipalName: p.upn,
    },
    now: at(-p.savedMin).toISOString(),
    link: {
      status: 'pending',
      lookedUpUpn: p.upn,
      upnKey: upnKey(p.upn),
      ...(h.checks > 0 ? { checks: h.checks } : {}),
      ...(h.nextCheckMin !== undefined ? { nextCheckAt: at(h.nextCheckMin).toISOString() } : {}),
    },
  });
}

async function seed(docs: IdentityDoc[]): Promise<void> {
  const byTenant = new Map<string, IdentityDoc[]>();
  for (const d of docs) byTenant.set(d.pk, [...(byTenant.get(d.pk) ?? []), d]);
  await forEachBounded([...byTenant.entries()], 8, async ([pk, list]) => {
    const outcomes = await services().identities.batchCreate(pk, list);
    const failed = outcomes.filter((o) => o !== 'created').length;
    if (failed > 0) throw new Error(`${failed} identities not seeded`);
  });
}

/** Identities of the bench source linked now (ids). */
async function linkedIds(): Promise<Set<string>> {
  const rows = await services()
    .store.collection<IdentityDoc>('identities')
    .queryAll<{ id: string }>({
      query: "SELECT c.id FROM c WHERE c.sourceKey = @source AND c.link.status = 'linked'",
      parameters: [{ name: '@source', value: SOURCE }],
    });
  return new Set(rows.map((r) => r.id));
}

async function runCycle(design: Design, now: Date): Promise<void> {
  const svc = services();
  const deps = workDeps(svc);
  const tenants = Array.from({ length: TENANTS }, (_, t) => tenantId(t));
  await forEachBounded(tenants, TENANT_CONCURRENCY, async (tenant) => {
    if (design === 'delta') {
      while ((await runTenantLinkCycle(deps, tenant, now)).more);
      return;
    }
    let after: string | undefined = '';
    while (after !== undefined)
      after = (await resolveTenantPendingLinks(deps, tenant, after, POLLING_UNIT_LIMIT, now)).next;
  });
}

interface CycleRow {
  [column: string]: string | number;
}

interface DesignResult {
  design: Design;
  rows: CycleRow[];
  latencyCycles: number[];
  latencyMinutes: number[];
  appeared: number;
  linked: number;
  idleRequestsPerTenantCycle: number;
  graphPerCycle: number;
  ruPerCycle: number;
  idleGraphPerCycle: number;
  idleRuPerCycle: number;
  /** Delta requests and `$filter` queries (a `$batch` item counts, as Graph's throttling counts it), per tenant. */
  idleQueriesPerTenantCycle: number;
  /** Cycles after the first until every appeared account was linked. */
  total: { graph: number; ru: number; cycles: number };
  warmUp: { graph: number; ru: number };
  fresh: { linked: number; of: number; stale: number };
  wallSeconds: number;
}

async function runDesign(design: Design, people: Person[]): Promise<DesignResult> {
  const started = performance.now();
  const stack: Stack = await startBenchStack();
  try {
    const svc = services();
    const policy = svc.settings.pendingLinkBackoff;
    for (let t = 0; t < TENANTS; t++) {
      await svc.tenants.register(tenantId(t));
      stack.idp.addClient({
        tenantId: tenantId(t),
        clientId: SERVICE_GRAPH_CLIENT.clientId,
        secret: SERVICE_GRAPH_CLIENT.secret,
        roles: [],
      });
    }
    const docs = people.map((p) => pendingDoc(p, policy, 'w1'));
    const idOf = new Map(people.map((p, i) => [p, docs[i]?.id ?? '']));
    await seed(docs);
    console.log(`[${design}] seeded ${docs.length} pending identities`);

    const appearing = people.filter((p) => p.appearsMin !== undefined);
    const created = new Set<Person>();
    const linkedAt = new Map<string, number>();
    const rows: CycleRow[] = [];
    const idleSamples: number[] = [];
    const windowGraph: number[] = [];
    const windowRu: number[] = [];
    const idleGraph: number[] = [];
    const idleRu: number[] = [];
    const idleQueries: number[] = [];
    const total = { graph: 0, ru: 0, cycles: 0 };
    let idleLeft: number | undefined;
    let warmUp = { graph: 0, ru: 0 };
    let previous = -CADENCE_MIN;
    for (let k = 0; k <= WINDOW_MIN / CADENCE_MIN + MAX_TAIL_CYCLES + IDLE_CYCLES; k++) {
      const minute = k * CADENCE_MIN;
      const busy = new Set<string>();
      for (const p of appearing)
        if (!created.has(p) && (p.appearsMin ?? Infinity) <= minute) {
          stack.directory.createUser(p.tenant, p.upn);
          created.add(p);
          if ((p.appearsMin ?? 0) > previous) busy.add(p.tenant.toLowerCase());
        }
      const graphBefore = stack.directory.stats();
      const ruBefore = storeCounters().requestCharge;
      await runCycle(design, at(minute));
      const graphAfter = stack.directory.stats();
      const ru = storeCounters().requestCharge - ruBefore;
      const graph = graphAfter.requests - graphBefore.requests;
      for (const id of await linkedIds()) if (!linkedAt.has(id)) linkedAt.set(id, minute);
      const idleTenants = Array.from({ length: TENANTS }, (_, t) => tenantId(t).toLowerCase()).filter(
        (t) => !busy.has(t),
      );
      const idleRequests =
        idleTenants.length === 0
          ? undefined
          : idleTenants.reduce(
              (n, t) => n + ((graphAfter.requestsByTenant[t] ?? 0) - (graphBefore.requestsByTenant[t] ?? 0)),
              0,
            ) / idleTenants.length;
      if (k === 0) warmUp = { graph, ru };
      else {
        if (idleRequests !== undefined) idleSamples.push(idleRequests);
        if (idleLeft !== undefined) {
          idleGraph.push(graph);
          idleRu.push(ru);
          idleQueries.push(
            (graphAfter.deltaRequests -
              graphBefore.deltaRequests +
              graphAfter.filterQueries -
              graphBefore.filterQueries) /
              TENANTS,
          );
        } else {
          total.graph += graph;
          total.ru += ru;
          total.cycles++;
        }
        if (minute <= WINDOW_MIN) {
          windowGraph.push(graph);
          windowRu.push(ru);
        }
      }
      rows.push({
        design,
        minute: k === 0 ? '0 (first)' : idleLeft !== undefined ? `${minute} (idle)` : minute,
        'accounts so far': created.size,
        'linked so far': appearing.filter((p) => linkedAt.has(idOf.get(p) ?? '')).length,
        'Graph requests': graph,
        'delta requests': graphAfter.deltaRequests - graphBefore.deltaRequests,
        '$filter queries': graphAfter.filterQueries - graphBefore.filterQueries,
        'Graph req / idle tenant': idleRequests === undefined ? '—' : idleRequests.toFixed(2),
        'store RU': Math.round(ru),
      });
      previous = minute;
      if (idleLeft !== undefined) {
        if (--idleLeft === 0) break;
      } else if (minute >= WINDOW_MIN && appearing.every((p) => linkedAt.has(idOf.get(p) ?? ''))) {
        idleLeft = IDLE_CYCLES;
      }
    }

    const latencyMinutes: number[] = [];
    const latencyCycles: number[] = [];
    for (const p of appearing) {
      const t = linkedAt.get(idOf.get(p) ?? '');
      if (t === undefined) continue;
      const appears = p.appearsMin ?? 0;
      latencyMinutes.push(t - appears);
      latencyCycles.push(Math.floor(t / CADENCE_MIN) - Math.ceil(appears / CADENCE_MIN) + 1);
    }
    latencyMinutes.sort((a, b) => a - b);
    latencyCycles.sort((a, b) => a - b);

    // The fresh wave: saved now (their accounts do not exist yet), accounts created right after, next cycle.
    const end = previous;
    const freshPeople: Person[] = Array.from({ length: TENANTS * FRESH_PER_TENANT }, (_, k) => ({
      tenant: tenantId(Math.floor(k / FRESH_PER_TENANT)),
      upn: `fresh.${k % FRESH_PER_TENANT}@t${Math.floor(k / FRESH_PER_TENANT)}.example.com`,
      savedMin: 0,
    }));
    const freshDocs = freshPeople.map((p) => pendingDoc(p, policy, 'w2', false));
    await seed(freshDocs);
    for (const p of freshPeople) stack.directory.createUser(p.tenant, p.upn);
    await runCycle(design, at(end + CADENCE_MIN));
    const linkedNow = await linkedIds();
    const freshLinked = freshDocs.filter((d) => linkedNow.has(d.id)).length;
    const stale = docs.filter((d) => !linkedNow.has(d.id)).length;

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    return {
      design,
      rows,
      latencyCycles,
      latencyMinutes,
      appeared: appearing.length,
      linked: latencyMinutes.length,
      idleRequestsPerTenantCycle: mean(idleSamples),
      graphPerCycle: mean(windowGraph),
      ruPerCycle: mean(windowRu),
      idleGraphPerCycle: mean(idleGraph),
      idleRuPerCycle: mean(idleRu),
      idleQueriesPerTenantCycle: mean(idleQueries),
      total,
      warmUp,
      fresh: { linked: freshLinked, of: freshDocs.length, stale },
      wallSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await stack.stop();
  }
}

function summaryRows(results: DesignResult[]): CycleRow[] {
  return results.map((r) => ({
    design: r.design === 'delta' ? 'change tracking (delta)' : 'polling (before)',
    'appeared → linked': `${r.linked}/${r.appeared}`,
    'p50 cycles': percentile(r.latencyCycles, 50),
    'p95 cycles': percentile(r.latencyCycles, 95),
    'max cycles': r.latencyCycles.at(-1) ?? NaN,
    'p50 min': percentile(r.latencyMinutes, 50).toFixed(1),
    'p95 min': percentile(r.latencyMinutes, 95).toFixed(1),
    'Graph req / idle tenant / cycle': r.idleRequestsPerTenantCycle.toFixed(2),
    'Graph req / cycle (30 min)': Math.round(r.graphPerCycle),
    'store RU / cycle (30 min)': Math.round(r.ruPerCycle),
    'Graph queries / tenant / idle cycle': r.idleQueriesPerTenantCycle.toFixed(2),
    'Graph req / idle cycle': Math.round(r.idleGraphPerCycle),
    'store RU / idle cycle': Math.round(r.idleRuPerCycle),
    'cycles until all linked': r.total.cycles,
    'Graph req until all linked': r.total.graph,
    'store RU until all linked': Math.round(r.total.ru),
    'first cycle: Graph req': r.warmUp.graph,
    'first cycle: store RU': Math.round(r.warmUp.ru),
    'fresh wave linked by next cycle': `${r.fresh.linked}/${r.fresh.of}`,
  }));
}

async function main(): Promise<void> {
  const people = scenario();
  const results: DesignResult[] = [];
  for (const design of ['delta', 'polling'] as const) results.push(await runDesign(design, people));
  const [delta] = results;
  if (!delta) throw new Error('no result');

  // What is printed is the result file (docs/performance/bench-links.md, written by runBench).
  console.log(
    [
      `${TENANTS} tenants × ${PER_TENANT} pending identities, saved over the past ${HISTORY_DAYS} days; accounts for a random`,
      `${APPEARING_SHARE * 100} % appear at random moments over ${WINDOW_MIN} simulated minutes; a background cycle every ${CADENCE_MIN} minutes`,
      '(simulated clock: the cycles get the time injected, nothing waits). The same run (same seed) is made with',
      'directory change tracking and with the polling design it replaces (every due pending identity looked up,',
      'backing off 5 minutes doubling to 4 hours, the back-off of each identity set by its past week).',
      'Latency: from the account’s creation to the cycle that linked it; in cycles, 1 = the first cycle after',
      'the account appeared. “Idle tenant”: no account appeared in it since the previous cycle. The first',
      'cycle (minute 0) is the first round of change tracking (the whole directory once) and is shown apart.',
      `After every appeared account is linked, ${IDLE_CYCLES} more cycles run with no account appearing (“idle cycles”:`,
      'every tenant idle). “Until all linked”: the cycles after the first one until the last appeared account was',
      'linked, and what they cost in all (a link costs the same store writes in both designs, plus an audit',
      'entry with change tracking; polling spreads the links over more cycles). “Graph req” counts HTTP requests',
      '(a `$batch` once); “Graph queries” counts delta requests and `$filter` queries (each item of a `$batch`, as',
      'Graph’s throttling counts them).',
      '',
      '## Summary',
      '',
    ].join('\n'),
  );
  const summary = summaryRows(results);
  printTable(summary);
  const line =
    `\n${TENANTS} tenants × ${PER_TENANT} pending = ${TENANTS * PER_TENANT}: ${delta.linked}/${delta.appeared} accounts that appeared over ${WINDOW_MIN} simulated minutes linked, p95 ${percentile(delta.latencyCycles, 95)} cycle(s) after the account appeared.` +
    `\nSecond wave: ${delta.fresh.linked}/${delta.fresh.of} fresh pending linked by the next cycle while ${delta.fresh.stale} stale ones remain (one delta request per idle tenant per cycle).`;
  console.log(line.replace(/\n(?=.)/g, '\n\n'));
  console.log('\n## Per cycle\n');
  for (const r of results) {
    console.log(
      `### ${r.design === 'delta' ? 'Change tracking (delta)' : 'Polling (before)'} — ${r.wallSeconds.toFixed(0)} s of real time\n`,
    );
    printTable(r.rows);
    console.log('');
  }

  if (delta.linked !== delta.appeared) throw new Error('change tracking did not link every account that appeared');
  if (percentile(delta.latencyCycles, 95) > 1) throw new Error('change tracking p95 above one cycle');
  if (delta.fresh.linked !== delta.fresh.of) throw new Error('the fresh wave was not linked within one cycle');
  if (delta.idleRequestsPerTenantCycle > 1) throw new Error('more than one Graph request per idle tenant per cycle');
}

runBench('links', main);
