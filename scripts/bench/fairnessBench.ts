/*
 * npm run bench:fairness — tenant A's SCIM mix (GET /Users/{id}, filter externalId eq, PATCH) measured
 * alone and while tenant B, in turn: (a) imports a large set and associates it, with every container at
 * DEV_COSMOS_RU_PER_SECOND (default 5,000, a serverless container); (b) sends huge and aliased GraphQL
 * documents; (c) holds 60 GraphQL bodies it never sends; (d) sends 10,000 forged tokens of random tenants.
 * One line per scenario with ratio = A's p95 during / alone (goal ≤ 1.5). Writes docs/performance/bench-fairness.md.
 * BENCH_FAIRNESS_IDENTITIES sets the import's size (default 200,000; the size used is reported).
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { percentile, printTable, round, runBench, startBenchStack, tokenFor, type Stack } from './harness';
import type { TenantBPlan } from './fairnessTenantB';
import { DEV_CLIENTS, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { storeInProcess } from './storeProcess';

const IDENTITIES = Number(process.env.BENCH_FAIRNESS_IDENTITIES ?? 200_000);
const RU_PER_SECOND = Number(process.env.DEV_COSMOS_RU_PER_SECOND ?? 5000);
const ALONE_ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 60);
const FORGED = Number(process.env.BENCH_FAIRNESS_FORGED ?? 10_000);
const GOAL = 1.5;
/** Which scenarios run (letters a–d; all by default), e.g. BENCH_FAIRNESS_SCENARIOS=ad. */
const ONLY = process.env.BENCH_FAIRNESS_SCENARIOS ?? 'abcd';
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const IMPORT_CHUNK = 100_000;
const LOG = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const B_TENANT = UNREGISTERED_TENANT_ID;

interface Mix {
  p50: number;
  p95: number;
  requests: number;
  statuses: Record<string, number>;
}

/** Tenant A's SCIM client: its users, and one round of the mix (three requests). */
function tenantA(stack: Stack & { base: string }, token: string, ids: string[], externalIds: string[]) {
  const send = async (method: string, p: string, body?: unknown): Promise<number> => {
    const res = await fetch(`${stack.base}/scim/v2${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };
  return async (i: number, times: number[], statuses: Map<number, number>): Promise<void> => {
    const k = i % ids.length;
    const steps: Array<() => Promise<number>> = [
      () => send('GET', `/Users/${ids[k]}`),
      () => send('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${externalIds[k]}"`)}`),
      () =>
        send('PATCH', `/Users/${ids[k]}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'Replace', path: 'name.familyName', value: `F${i}` }],
        }),
    ];
    for (const step of steps) {
      const t = performance.now();
      const status = await step();
      times.push(performance.now() - t);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
}

async function runMix(
  round1: (i: number, times: number[], statuses: Map<number, number>) => Promise<void>,
  keepGoing: (i: number) => boolean,
): Promise<Mix> {
  const times: number[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; keepGoing(i); i++) await round1(i, times, statuses);
  times.sort((a, b) => a - b);
  return {
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    requests: times.length,
    statuses: Object.fromEntries([...statuses].map(([s, n]) => [String(s), n])),
  };
}

/** Runs one of tenant B's workloads in a process of its own (another customer's machines): its outcome line. */
function tenantB(plan: TenantBPlan): Promise<string> {
  const child = fork(path.join(__dirname, 'fairnessTenantB.js'));
  // Tenant B stands for other machines: on this one it should not take CPU the service needs.
  if (child.pid !== undefined) os.setPriority(child.pid, 10);
  return new Promise<string>((resolve, reject) => {
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
  const stack = await startBenchStack({ SCIM_RATE_LIMIT_PER_SECOND: '50' });
  const rows: Array<Record<string, string | number>> = [];
  try {
    await services().tenants.register(B_TENANT);
    const aToken = await tokenFor(stack, DEV_CLIENTS.scim);
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
    const mix = tenantA(stack, aToken, ids, externalIds);
    // Paced below the integration's 50 requests a second, as a SCIM client is.
    const paced: typeof mix = async (i, times, statuses) => {
      await mix(i, times, statuses);
      await new Promise((r) => setTimeout(r, 60));
    };
    await runMix(paced, (i) => i < 10); // warm-up
    const plan: TenantBPlan = {
      scenario: 'import',
      base: stack.base,
      adminToken: bAdmin,
      issuerOf: stack.idp.issuer('TENANT'),
      kid: (JSON.parse(Buffer.from(aToken.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid,
      audience: SERVICE_APP_ID_URI,
      identities: IDENTITIES,
      forged: FORGED,
    };

    const scenario = async (name: string, b: () => Promise<string>, prepare?: () => void): Promise<void> => {
      if (!ONLY.includes(name.charAt(1))) return;
      prepare?.();
      LOG(`${name}: A alone`);
      const alone = await runMix(paced, (i) => i < ALONE_ROUNDS);
      LOG(`${name}: A while B runs`);
      let done = false;
      const started = performance.now();
      const bRun = b().finally(() => (done = true));
      const during = await runMix(paced, (i) => !done || i < 10);
      const outcome = await bRun;
      const ratio = round(during.p95 / alone.p95);
      const row = {
        scenario: name,
        'A p95 alone ms': alone.p95,
        'A p95 during ms': during.p95,
        ratio,
        'A p50 alone/during ms': `${alone.p50} / ${during.p50}`,
        'A requests during': during.requests,
        'A answers during': Object.entries(during.statuses)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', '),
        'B seconds': round((performance.now() - started) / 1000),
        'B outcome': outcome,
      };
      rows.push(row);
      console.log(
        `${name}: A p95 alone ${alone.p95} ms, during ${during.p95} ms, ratio ${ratio} ${ratio <= GOAL ? '≤' : '>'} ${GOAL}; B: ${outcome}`,
      );
    };

    await scenario(
      `(a) import ${IDENTITIES} + association`,
      async () => {
        const before = await store.usage();
        const outcome = await tenantB({ ...plan, scenario: 'import' });
        const ru = await store.usage();
        const low = ru.lowRequests - before.lowRequests;
        const lowThrottled = ru.lowThrottled - before.lowThrottled;
        const highThrottled = ru.throttled - ru.lowThrottled - (before.throttled - before.lowThrottled);
        return `${outcome}; store: ${low} low-priority requests, ${lowThrottled} of them throttled, ${highThrottled} high-priority throttled`;
      },
      // B's directory users exist before anything is measured (the stand-in shares the service's process here).
      () => {
        for (let i = 0; i < Math.min(IDENTITIES, IMPORT_CHUNK); i++)
          stack.directory.createUser(B_TENANT, `b${i}@b.example.com`);
      },
    );
    await scenario('(b) huge and aliased GraphQL documents', () => tenantB({ ...plan, scenario: 'documents' }));
    await scenario('(c) 60 held bodies', () => tenantB({ ...plan, scenario: 'held' }));
    await scenario(`(d) ${FORGED} forged tokens of random tenants`, async () => {
      const before = stack.idp.jwksRequests('common');
      const outcome = await tenantB({ ...plan, scenario: 'forged' });
      return `${outcome}; key fetches ${stack.idp.jwksRequests('common') - before}`;
    });
  } finally {
    await services()
      .tenants.remove(B_TENANT)
      .catch(() => undefined);
    await stack.stop();
    await store.stop();
  }

  console.log('');
  printTable(rows);
  const worst = Math.max(...rows.map((r) => Number(r.ratio)));
  console.log(`\nworst ratio ${worst} (goal ≤ ${GOAL})`);
  describeRun();
}

/** What the figures above measure (printed, so it lands in the result file with them). */
function describeRun(): void {
  console.log(`
Tenant A's SCIM mix (GET /Users/{id}, filter \`externalId eq\`, PATCH; one integration, paced below its rate
limit) measured alone and while tenant B runs each scenario; \`ratio\` = A's p95 during / alone, goal ≤ ${GOAL}.
Every container of the local engine serves ${RU_PER_SECOND} RU/s (\`DEV_COSMOS_RU_PER_SECOND\`); the import in (a)
has ${IDENTITIES} identities (\`BENCH_FAIRNESS_IDENTITIES\`, default 200,000) and its association
${Math.min(IDENTITIES, IMPORT_CHUNK)} pairs. One process serves both tenants, as one instance would: bodies of
GRAPHQL_BULK_THREAD_BYTES or more run on its bulk thread, and the store keeps B's bulk work behind A's requests.
The store (the local engine) runs in a process of its own, as Cosmos DB does; tenant B's client in another,
at lower CPU priority (it stands for other machines); all share this machine's cores.`);
}

runBench('fairness', main);
