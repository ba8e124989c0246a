/*
 * npm run bench:fairness — tenant A's SCIM mix (GET /Users/{id}, filter externalId eq, PATCH) measured
 * alone and while tenant B, in turn: (a) imports a large set as a staged import and associates it; (b) sends
 * huge and aliased GraphQL documents; (c) holds 60 GraphQL bodies it never sends; (d) sends 10,000 forged
 * tokens of random tenants; (f) floods with 30 disabled SCIM integrations. (e) measures tenant B's own 5-identity
 * staged import alone and while tenant A runs four large staged imports (ratio during / alone, goal ≤ 5).
 * (g) measures tenant B's own SCIM flood
 * through the front: B's accepted rate divided by its tenant SCIM budget (goal ≤ 1.25). Every container serves
 * DEV_COSMOS_RU_PER_SECOND (default 5,000, a serverless container). Each scenario runs with the local engine in each
 * account mode: `serverless` (request priority ignored, as on Azure's serverless accounts and the template's
 * default) and `provisioned` (priority-based execution). `-- --instances N` (default 1) serves both tenants with N
 * function hosts in processes of their own behind the local stack's front (devhost/fleet.ts), as Azure runs N
 * instances. One line per scenario, mode and instance count with ratio = A's p95 during / alone (goal ≤ 1.5).
 * Writes docs/performance/bench-fairness.md.
 * BENCH_FAIRNESS_IDENTITIES sets the import's size (default 20,000, so that the whole bench fits 25 minutes on a
 * 2-core machine; the full size: BENCH_FAIRNESS_IDENTITIES=200000, about an hour; the size used is reported);
 * BENCH_FAIRNESS_SCENARIOS the scenarios (letters, e.g. `bcd`; default all); BENCH_FAIRNESS_MODES the modes
 * (`serverless,provisioned` by default); BENCH_FAIRNESS_FORGED the forged tokens (default 10,000);
 * BENCH_FAIRNESS_FLOOD_SECONDS how long the floods of (f) and (g) last (default 15);
 * BENCH_FAIRNESS_LARGE_IMPORT the size of each of A's four imports in (e) (default 8,000; the issue's long run: 200,000).
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { percentile, printTable, round, runBench, startBenchFleet, tokenFor } from './harness';
import { ASSOCIATED, type FloodOutcome, type ImportsSideOutcome, type TenantBPlan } from './fairnessTenantB';
import type { TenantAWindow, TenantAWindowResult, ToTenantA } from './fairnessTenantA';
import { instanceCount, MAX_INSTANCES } from '../../devhost/startArgs';
import { settings } from '../../lib/config/settings';
import { DEV_CLIENTS, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID, type DevClient } from '../../devhost/devData';
import { services } from '../../lib/services';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { storeInProcess } from './storeProcess';
import { COSMOS_MODES, type CosmosMode } from '../../devhost/cosmos/throughput';
import { BULK_BUDGET_SETTINGS, bulkBudgetsFor } from '../../devhost/bulkBudgets';

const IDENTITIES = Number(process.env.BENCH_FAIRNESS_IDENTITIES ?? 20_000);
const RU_PER_SECOND = Number(process.env.DEV_COSMOS_RU_PER_SECOND ?? 5000);
const ALONE_ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 60);
/**
 * Windows per scenario but (a): B's run of (b), (c), (d) or (f) lasts 13–50 s, A's p95 then rests on a few hundred
 * requests, and one slow moment of a shared machine moves it; the ratio quoted is the median window's.
 */
const WINDOWS = Number(process.env.BENCH_FAIRNESS_WINDOWS ?? 3);
const FORGED = Number(process.env.BENCH_FAIRNESS_FORGED ?? 10_000);
const FLOOD_SECONDS = Number(process.env.BENCH_FAIRNESS_FLOOD_SECONDS ?? 15);
/** (e): tenant A's large staged imports at once, their size, and tenant B's small one's size. */
const LARGE_IMPORTS = 4;
const LARGE_IMPORT = Number(process.env.BENCH_FAIRNESS_LARGE_IMPORT ?? 8_000);
const SMALL_IMPORT = 5;
/** (e): B's small import during A's large ones, divided by its time alone. */
const IMPORTS_GOAL = 5;
const GOAL = 1.5;
/** (g): B's accepted SCIM rate through the front, divided by its tenant budget. */
const FLEET_GOAL = 1.25;
/** The first seconds of a flood spend the budget's burst allowance; the rate of (g) is taken after them. */
const BURST_SECONDS = 2;
/** Disabled SCIM integrations of tenant B in (f); enabled ones flooding in (g) (more than the tenant budget holds). */
const DISABLED_FLOODERS = 30;
const ENABLED_FLOODERS = 4;
/** Senders per enabled integration in (g): enough that the answers' latency does not hold B below N budgets. */
const ENABLED_SENDERS = 12;

/** `-- --instances N`: how many function hosts serve the tenants (1 = the stack in this process, as before). */
function instancesArg(argv: string[]): number {
  const usage = `bench:fairness accepts only --instances N (1 to ${MAX_INSTANCES})`;
  let raw: string | undefined;
  try {
    raw = parseArgs({ args: argv, strict: true, options: { instances: { type: 'string', short: 'n' } } }).values
      .instances;
  } catch {
    throw new Error(usage);
  }
  const n = instanceCount(raw);
  if (n === undefined) throw new Error(usage);
  return n;
}
const INSTANCES = instancesArg(process.argv.slice(2));
/** Bulk work's request-unit budgets: as set, else in step with the store's (the service's defaults at 5,000 RU/s). */
const BULK_BUDGETS = BULK_BUDGET_SETTINGS.some((k) => process.env[k] !== undefined)
  ? Object.fromEntries(BULK_BUDGET_SETTINGS.map((k) => [k, process.env[k] ?? '']).filter(([, v]) => v !== ''))
  : bulkBudgetsFor(RU_PER_SECOND);
/** Which scenarios run (letters a–g; all by default), e.g. BENCH_FAIRNESS_SCENARIOS=bcd. */
const ONLY = process.env.BENCH_FAIRNESS_SCENARIOS ?? 'abcdefg';
/** The engine's account modes each scenario runs in, e.g. BENCH_FAIRNESS_MODES=serverless. */
const MODES: CosmosMode[] = (process.env.BENCH_FAIRNESS_MODES ?? COSMOS_MODES.join(','))
  .split(',')
  .map((m) => m.trim())
  .filter((m): m is CosmosMode => {
    if (COSMOS_MODES.includes(m as CosmosMode)) return true;
    throw new Error(`BENCH_FAIRNESS_MODES: ${m} is not one of ${COSMOS_MODES.join(', ')}`);
  });
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const LOG = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const B_TENANT = UNREGISTERED_TENANT_ID;

/** One window of a scenario: A alone and A during B's run, with what B's run did. */
interface Window {
  alone: Mix;
  during: Mix;
  ratio: number;
  outcome: string;
  load: number;
  seconds: number;
  highThrottled: number;
  /** This process's event loop and collections while B ran (it runs the stand-ins; the service runs apart). */
  front: string;
}

/**
 * This process's event-loop delay (p99, max) and garbage collections (count, total and longest pause) from now
 * until stop(): the stand-ins run in this process (the front and the instances in processes of their own).
 */
function frontWatch(): { stop(): string } {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push(e.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      delay.disable();
      gc.disconnect();
      const ms = (ns: number) => round(ns / 1e6);
      const total = round(pauses.reduce((a, b) => a + b, 0));
      return `loop p99 ${ms(delay.percentile(99))} max ${ms(delay.max)} ms, gc ${pauses.length} (${total} ms, longest ${round(Math.max(0, ...pauses))})`;
    },
  };
}

interface Mix {
  p50: number;
  p95: number;
  requests: number;
  statuses: Record<string, number>;
  /** Each request's time, ms (to pool two windows' samples). */
  times: number[];
}

/**
 * Tenant A's SCIM client in a process of its own (fairnessTenantA.ts), at normal priority: one window of its mix
 * at a time, of `rounds` rounds, or until stopped (after at least 10).
 */
function startTenantA() {
  const child = fork(path.join(__dirname, 'fairnessTenantA.js'));
  const window = (w: Omit<TenantAWindow, 'kind'>): { result: Promise<Mix>; stop(): void } => ({
    result: new Promise<Mix>((resolve, reject) => {
      const failed = (code: number | null) => reject(new Error(`tenant A's process ended with ${code}`));
      child.once('exit', failed);
      child.once('message', (m: TenantAWindowResult) => {
        child.off('exit', failed);
        resolve(mixOf(m.times, m.statuses));
      });
      child.send({ kind: 'window', ...w } satisfies ToTenantA);
    }),
    stop: () => child.send({ kind: 'stop' } satisfies ToTenantA),
  });
  return { window, end: () => child.kill() };
}

function mixOf(times: number[], statuses: Record<string, number>): Mix {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    requests: sorted.length,
    statuses,
    times: sorted,
  };
}

/** Two windows' samples as one (tenant A alone just before and just after tenant B's run). */
function pooled(a: Mix, b: Mix): Mix {
  const statuses: Record<string, number> = { ...a.statuses };
  for (const [s, n] of Object.entries(b.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  return mixOf([...a.times, ...b.times], statuses);
}

/** Tenant B's process, forked and loaded (it says 'ready'), at the lowest CPU priority. */
function forkTenantB(): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'fairnessTenantB.js'));
  // Tenant B stands for other machines: on this one it should take as little CPU the service needs as it can.
  if (child.pid !== undefined) os.setPriority(child.pid, 19);
  return new Promise<ChildProcess>((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code: number | null) => reject(new Error(`tenant B's process ended with ${code}`)));
  });
}

/** A process of tenant B made ready before a window of A begins (prepareTenantB), for the next tenantB(). */
let preparedB: Promise<ChildProcess> | undefined;
async function prepareTenantB(): Promise<void> {
  preparedB ??= forkTenantB();
  await preparedB;
}

/**
 * Runs one of tenant B's workloads in a process of its own (another customer's machines): its outcome line. The
 * process is the one prepared before A's window, if any, so that A's window does not time B's process loading.
 */
async function tenantB(plan: TenantBPlan): Promise<string> {
  const child = await (preparedB ?? forkTenantB());
  preparedB = undefined;
  return new Promise<string>((resolve, reject) => {
    child.removeAllListeners('exit');
    child.once('message', (m: unknown) => resolve(String(m)));
    child.once('exit', (code: number | null) => reject(new Error(`tenant B's process ended with ${code}`)));
    child.send(plan);
  });
}

async function main(): Promise<void> {
  LOG(`starting the stack (${RU_PER_SECOND} RU/s per container)`);
  // The store runs in a process of its own, as Cosmos DB runs on machines of its own: the service's process
  // spends its CPU on the service only.
  const store = await storeInProcess(RU_PER_SECOND);
  process.env.COSMOS_ENDPOINT = store.endpoint;
  process.env.COSMOS_KEY = LOCAL_COSMOS_KEY;
  // Room for (f)'s disabled integrations and (g)'s enabled ones beside the seeded ones.
  const env = { SCIM_RATE_LIMIT_PER_SECOND: '50', SCIM_MAX_INTEGRATIONS_PER_TENANT: '100', ...BULK_BUDGETS };
  // Even one instance runs in a process of its own behind the front, as on Azure: in this process it would share
  // its heap and event loop with the stand-ins (a directory of 40,000 users for (a)), whose collections are not
  // the service's.
  LOG(`${INSTANCES} instance${INSTANCES > 1 ? 's' : ''}, each in a process of its own behind the front`);
  const stack = await startBenchFleet(env, INSTANCES);
  const tenantAProcess = startTenantA();
  const where = (mode: CosmosMode) => `${mode} instances ${INSTANCES}`;
  const rows: Array<Record<string, string | number>> = [];
  const fleetRows: Array<Record<string, string | number>> = [];
  const importRows: Array<Record<string, string | number>> = [];
  try {
    await services().tenants.register(B_TENANT);
    // Tokens last an hour and the whole run takes longer: each scenario starts with new ones.
    let aToken = await tokenFor(stack, DEV_CLIENTS.scim);
    const bAdmin = await tokenFor(stack, DEV_CLIENTS.otherAdmin);
    const ids: string[] = [];
    const externalIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const externalId = `fair-a-${i}`;
      const res = await fetch(`${stack.base}/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${aToken}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({
          schemas: [CORE, EXT],
          externalId,
          userName: `${externalId}@corp.example`,
          name: { givenName: 'Fair', familyName: 'A' },
          [EXT]: { affiliationType: 'employment' },
        }),
      });
      ids.push(((await res.json()) as { id: string }).id);
      externalIds.push(externalId);
    }
    // Paced below the integration's 50 requests a second, as a SCIM client is.
    const windowOfA = (rounds?: number) =>
      tenantAProcess.window({
        base: stack.base,
        token: aToken,
        ids,
        externalIds,
        pauseMs: 60,
        ...(rounds === undefined ? { minRounds: 10 } : { rounds }),
      });
    const runMix = (rounds: number) => windowOfA(rounds).result;
    const plan: TenantBPlan = {
      scenario: 'import',
      base: stack.base,
      adminToken: bAdmin,
      issuerOf: stack.idp.issuer('TENANT'),
      kid: (JSON.parse(Buffer.from(aToken.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid,
      audience: SERVICE_APP_ID_URI,
      identities: IDENTITIES,
      forged: FORGED,
      upnDomain: 'b.example.com',
    };

    // Tenant B's SCIM integrations for (f) (disabled) and (g) (enabled), each with its client at the identity provider.
    const actor = { tenantId: B_TENANT, kind: 'system' as const, id: 'bench-fairness' };
    const integrationsOfB = async (n: number, enabled: boolean): Promise<DevClient[]> => {
      const clients: DevClient[] = [];
      for (let i = 0; i < n; i++) {
        const client = {
          name: `b-${enabled ? 'enabled' : 'disabled'}-${i}`,
          tenantId: B_TENANT,
          clientId: randomUUID(),
          secret: `b-flood-${randomUUID()}`,
          roles: [],
        };
        stack.idp.addClient(client);
        const created = await services().integrations.create(
          B_TENANT,
          { displayName: `Flood ${client.name}`, clientId: client.clientId },
          actor,
        );
        if (!enabled) await services().integrations.setEnabled(B_TENANT, created.id, false, actor);
        clients.push(client);
      }
      return clients;
    };
    const disabled = ONLY.includes('f') ? await integrationsOfB(DISABLED_FLOODERS, false) : [];
    const enabled = ONLY.includes('g') ? await integrationsOfB(ENABLED_FLOODERS, true) : [];
    const flood = async (clients: DevClient[], sendersPerToken: number): Promise<FloodOutcome> => {
      const scimTokens = await Promise.all(clients.map((c) => tokenFor(stack, c)));
      return JSON.parse(
        await tenantB({ ...plan, scenario: 'scimFlood', scimTokens, sendersPerToken, seconds: FLOOD_SECONDS }),
      ) as FloodOutcome;
    };
    const answers = (statuses: Record<string, number>) =>
      Object.entries(statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ');

    /**
     * (g): B floods through the front with ENABLED_FLOODERS integrations (together more than the tenant budget
     * admits); B's accepted rate after the burst seconds, divided by the tenant SCIM budget (per instance today,
     * so N instances admit about N times it).
     */
    const fleetBudget = async (mode: CosmosMode): Promise<Record<string, string | number>> => {
      const budget = settings().scimTenantRateLimitPerSecond;
      const name = "(g) tenant B's SCIM flood through the front";
      LOG(`${name} [${where(mode)}]`);
      const outcome = await flood(enabled, ENABLED_SENDERS);
      const steady = outcome.perSecond.slice(BURST_SECONDS);
      const accepted = steady.reduce((sum, s) => sum + (s['200'] ?? 0), 0);
      const rate = round(accepted / Math.max(1, steady.length));
      const ratio = round(rate / budget);
      // Without a 429 the budget was never reached: what B got is what this machine served, not what the budget allows.
      const bound = outcome.statuses['429'] ? '' : ' (no 429: bounded by this machine, not by the budget)';
      console.log(
        `${name} [${where(mode)}]: B accepted ${rate}/s after the first ${BURST_SECONDS} s, tenant budget ${budget}/s, ratio ${ratio} ${ratio <= FLEET_GOAL ? '≤' : '>'} ${FLEET_GOAL}${bound}; B: ${answers(outcome.statuses)}`,
      );
      return {
        scenario: name,
        mode: where(mode),
        'B accepted/s': rate,
        'tenant budget/s': budget,
        ratio,
        'B answers': answers(outcome.statuses),
        'B seconds': outcome.seconds,
      };
    };

    /**
     * (e): B's small staged import alone (the median of three), then while A runs LARGE_IMPORTS large staged
     * imports at once (each of its own source, all committed before B's begins); ratio = during / alone.
     */
    const importsSide = async (mode: CosmosMode): Promise<Record<string, string | number>> => {
      const name = `(e) B's ${SMALL_IMPORT}-identity staged import during A's ${LARGE_IMPORTS} of ${LARGE_IMPORT}`;
      LOG(`${name} [${where(mode)}]`);
      const outcome = JSON.parse(
        await tenantB({
          ...plan,
          scenario: 'importsSide',
          adminToken: await tokenFor(stack, DEV_CLIENTS.otherAdmin),
          largeTenantToken: await tokenFor(stack, DEV_CLIENTS.admin),
          largeImports: LARGE_IMPORTS,
          largeIdentities: LARGE_IMPORT,
          smallIdentities: SMALL_IMPORT,
        }),
      ) as ImportsSideOutcome;
      const alone = round([...outcome.aloneSeconds].sort((x, y) => x - y)[1] ?? NaN);
      const during = round([...outcome.duringSeconds].sort((x, y) => x - y)[1] ?? NaN);
      const ratio = round(during / alone);
      const aEnds = outcome.aEndedAfter.map((s) => round(s)).join(', ');
      const aStatuses = [...new Set(outcome.aStatuses)]
        .map((s) => `${s} ×${outcome.aStatuses.filter((x) => x === s).length}`)
        .join(', ');
      // A's imports must still run while B's does, else B's time is not "during" them.
      const overlap = outcome.aRunningThroughout ? '' : " (one of A's ended before B's: not all during)";
      console.log(
        `${name} [${where(mode)}]: B alone ${alone} s, during ${during} s, ratio ${ratio} ${ratio <= IMPORTS_GOAL ? '≤' : '>'} ${IMPORTS_GOAL}${overlap}; A's jobs ${aStatuses}, ended ${aEnds} s after B's began; B: ${outcome.bStatuses.join(', ')}${outcome.codes ? `; errors: ${outcome.codes}` : ''}`,
      );
      return {
        scenario: name,
        mode: where(mode),
        'B alone s': `${alone} (of ${outcome.aloneSeconds.map((s) => round(s)).join(', ')})`,
        'B during s': `${during} (of ${outcome.duringSeconds.map((s) => round(s)).join(', ')})`,
        ratio,
        "A's jobs": aStatuses,
        "A's ended after B's began, s": aEnds,
      };
    };

    /** One window of a scenario: A alone (half before B's run, half after, pooled) and A while B runs. */
    const measureWindow = async (b: () => Promise<string>): Promise<Window> => {
      aToken = await tokenFor(stack, DEV_CLIENTS.scim);
      plan.adminToken = await tokenFor(stack, DEV_CLIENTS.otherAdmin);
      await prepareTenantB();
      // The machine is shared, and a baseline taken at one moment only may be a quiet or a busy one.
      const aloneBefore = await runMix(ALONE_ROUNDS / 2);
      const started = performance.now();
      const before = await store.usage();
      const duringWindow = windowOfA();
      const front = frontWatch();
      const outcome = await b().finally(() => duringWindow.stop());
      const frontDuring = front.stop();
      const during = await duringWindow.result;
      const after = await store.usage();
      const load = os.loadavg()[0] ?? 0;
      const alone = pooled(aloneBefore, await runMix(ALONE_ROUNDS / 2));
      return {
        alone,
        during,
        ratio: round(during.p95 / alone.p95),
        outcome,
        load: round(load),
        seconds: round((performance.now() - started) / 1000),
        highThrottled: after.throttled - after.lowThrottled - (before.throttled - before.lowThrottled),
        front: frontDuring,
      };
    };

    /**
     * Runs scenario `name` in `mode` in `windows` windows (WINDOWS for the short scenarios): the scenario's ratio is
     * the median window's, the worst beside it; one line and one row.
     */
    const scenario = async (
      mode: CosmosMode,
      name: string,
      b: () => Promise<string>,
      windows = WINDOWS,
    ): Promise<void> => {
      if (!ONLY.includes(name.charAt(1))) return;
      const measured: Window[] = [];
      for (let i = 0; i < windows; i++) {
        LOG(`${name} [${where(mode)}]: window ${i + 1} of ${windows}`);
        measured.push(await measureWindow(b));
      }
      const byRatio = [...measured].sort((x, y) => x.ratio - y.ratio);
      const median = byRatio[Math.floor((byRatio.length - 1) / 2)];
      const worst = byRatio[byRatio.length - 1];
      if (median === undefined || worst === undefined) return;
      const { alone, during, ratio, outcome } = median;
      const ratios = measured.map((w) => w.ratio).join(', ');
      const highThrottled = measured.reduce((sum, w) => sum + w.highThrottled, 0);
      const loads = measured.map((w) => w.load).join(', ');
      const fronts = measured.map((w) => w.front).join('; ');
      rows.push({
        scenario: name,
        mode: where(mode),
        'A p95 alone ms': alone.p95,
        'A p95 during ms': during.p95,
        ratio,
        'worst ratio': worst.ratio,
        'ratio of each window': ratios,
        'A p50 alone/during ms': `${alone.p50} / ${during.p50}`,
        'A requests during': during.requests,
        'A answers during': Object.entries(during.statuses)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', '),
        'high-priority throttled': highThrottled,
        'B seconds': median.seconds,
        'load average': loads,
        "this process during B's run": fronts,
        'B outcome': outcome,
      });
      const of = windows > 1 ? ` (median of ${windows} windows: ${ratios}; worst ${worst.ratio})` : '';
      console.log(
        `${name} [${where(mode)}]: A p95 alone ${alone.p95} ms, during ${during.p95} ms, ratio ${ratio} ${ratio <= GOAL ? '≤' : '>'} ${GOAL}${of}; ${highThrottled} high-priority store requests throttled; load average ${loads}; this process during B's run: ${fronts}; B: ${outcome}`,
      );
    };

    const upnDomain = (mode: CosmosMode) => `${mode}.b.example.com`;
    // B's directory users exist before anything is measured (the stand-in shares the service's process here),
    // other users for each mode, so that each run's association links new users.
    if (ONLY.includes('a'))
      for (const mode of MODES)
        for (let i = 0; i < Math.min(IDENTITIES, ASSOCIATED); i++)
          stack.directory.createUser(B_TENANT, `b${i}@${upnDomain(mode)}`);
    for (const mode of MODES) {
      await store.setMode(mode);
      LOG(`the store is ${mode}`);
      await runMix(10); // warm-up
      await scenario(
        mode,
        `(a) staged import ${IDENTITIES} + association`,
        async () => {
          const before = await store.usage();
          const started = performance.now();
          const outcome = await tenantB({ ...plan, scenario: 'import', upnDomain: upnDomain(mode) });
          const seconds = (performance.now() - started) / 1000;
          const ru = await store.usage();
          const low = ru.lowRequests - before.lowRequests;
          const lowThrottled = ru.lowThrottled - before.lowThrottled;
          const lowRate = Math.round((ru.lowCharged - before.lowCharged) / seconds);
          return `${outcome}; store: ${low} low-priority requests (${lowRate} RU/s), ${lowThrottled} of them throttled; paced: counted in each instance (not shown)`;
          // One window: B's run lasts minutes and A's window holds thousands of requests.
        },
        1,
      );
      await scenario(mode, '(b) huge and aliased GraphQL documents', () => tenantB({ ...plan, scenario: 'documents' }));
      await scenario(mode, '(c) 60 held bodies', () => tenantB({ ...plan, scenario: 'held' }));
      await scenario(mode, `(d) ${FORGED} forged tokens of random tenants`, async () => {
        const before = stack.idp.jwksRequests('common');
        const outcome = await tenantB({ ...plan, scenario: 'forged' });
        return `${outcome}; key fetches ${stack.idp.jwksRequests('common') - before}`;
      });
      if (ONLY.includes('e')) importRows.push(await importsSide(mode));
      await scenario(mode, `(f) ${DISABLED_FLOODERS} disabled SCIM integrations flooding`, async () => {
        const outcome = await flood(disabled, 2);
        return `${FLOOD_SECONDS} s: ${answers(outcome.statuses)}`;
      });
      if (ONLY.includes('g')) fleetRows.push(await fleetBudget(mode));
    }
  } finally {
    tenantAProcess.end();
    await services()
      .tenants.remove(B_TENANT)
      .catch(() => undefined);
    await stack.stop();
    await store.stop();
  }

  console.log('');
  printTable(rows);
  for (const mode of MODES) {
    const ratios = rows.filter((r) => r.mode === where(mode)).map((r) => Number(r.ratio));
    if (ratios.length) console.log(`\nworst ratio ${where(mode)}: ${Math.max(...ratios)} (goal ≤ ${GOAL})`);
  }
  if (importRows.length) {
    console.log('');
    printTable(importRows);
  }
  if (fleetRows.length) {
    console.log('');
    printTable(fleetRows);
  }
  describeRun();
}

/** What the figures above measure (printed, so it lands in the result file with them). */
function describeRun(): void {
  console.log(`
Tenant A's SCIM mix (GET /Users/{id}, filter \`externalId eq\`, PATCH; one integration, paced below its rate
limit) measured alone (${ALONE_ROUNDS / 2} rounds just before tenant B's run and ${ALONE_ROUNDS / 2} just after it, pooled) and while
tenant B runs each scenario; \`ratio\` = A's p95 during / alone, goal ≤ ${GOAL}; \`load average\`: the machine's
1-minute load average as B's run ended. (b), (c), (d) and (f) run ${WINDOWS} times each (\`BENCH_FAIRNESS_WINDOWS\`), a window
being A alone, B's run with A, A alone again: the ratio quoted is the median window's, the worst beside it; (a) runs
once (B's run lasts minutes and A's window holds thousands of requests).
Each scenario runs with the local engine in each account mode: \`serverless\` ignores request priority, as Azure
does on serverless accounts (the template's default); \`provisioned\` throttles low-priority requests first
(priority-based execution). In both, the service paces each tenant's bulk work by request units
(${Object.entries(BULK_BUDGETS)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}); \`high-priority throttled\` counts the store's
429s to requests not sent at low priority (A's, and B's own non-bulk requests).
Every container of the local engine serves ${RU_PER_SECOND} RU/s (\`DEV_COSMOS_RU_PER_SECOND\`); the staged import in
(a) has ${IDENTITIES} identities (\`BENCH_FAIRNESS_IDENTITIES\`, default 20,000; the full size 200,000) in parts of 2,000, applied by the
background queue, and its association ${Math.min(IDENTITIES, ASSOCIATED)} pairs in requests of 5,000.
(e): tenant B's staged import of ${SMALL_IMPORT} identities, three times alone and three times (one after another) while tenant A runs
${LARGE_IMPORTS} staged imports of ${LARGE_IMPORT} identities at once (\`BENCH_FAIRNESS_LARGE_IMPORT\`), each of its own source, all
committed 2 s before B's begins; B's time runs from startImport to its run read COMPLETED (read every 20 ms at first);
\`ratio\` = the median during / the median alone, goal ≤ ${IMPORTS_GOAL}.
(f): tenant B's ${DISABLED_FLOODERS} disabled SCIM integrations flood for ${FLOOD_SECONDS} s (\`BENCH_FAIRNESS_FLOOD_SECONDS\`), two
senders each, every request sent as soon as the one before is answered. (g): B's ${ENABLED_FLOODERS} enabled integrations flood
the same way with ${ENABLED_SENDERS} senders each (together beyond the tenant's SCIM budget); \`ratio\` = B's accepted (200) requests per second after
the first ${BURST_SECONDS} s (the budget's burst) / \`SCIM_TENANT_RATE_LIMIT_PER_SECOND\`, goal ≤ ${FLEET_GOAL}.
${INSTANCES} function host${INSTANCES > 1 ? 's serve' : ' serves'} both tenants, each in a process of its own behind the local stack's front (a process
of its own too), which gives each request to the next instance in turn (\`--instances ${INSTANCES}\`, devhost/fleet.ts); the
store's operation counters of (a) are per process and not shown.
The store (the local engine) runs in a process of its own, as Cosmos DB does; tenant A's client in another (so
that its timings do not include this process's other work: the front and the stand-ins); tenant B's client in a
third, at the lowest CPU priority (it stands for other machines) and loaded before A's window begins; all share
this machine's cores.`);
}

runBench('fairness', main);
