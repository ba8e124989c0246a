/*
 * npm run bench:profile — where a SCIM request's CPU time goes. The local stack runs in this process;
 * after seeding BENCH_USERS Users (default 1,000) and a warm-up, BENCH_ROUNDS rounds (default 400) of
 * GET, filter eq, POST and PATCH run sequentially with one token under the V8 sampling profiler. Each
 * sample is put in the category of the nearest frame on its stack that belongs to a known part
 * (product code by module, the Cosmos SDK, the local Functions host, the local Cosmos engine, the
 * benchmark's own HTTP client, the runtime), and the CPU time per request is the process's CPU time
 * over the measured rounds divided by the requests. The figures go to docs/performance/bench-profile.md.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { expectStatus, printTable, runBench, startBenchStack, tokenFor } from './harness';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';

const USERS = Number(process.env.BENCH_USERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Category of a frame by its script, or undefined to look further up the stack. */
function categoryOf(url: string, fn: string): string | undefined {
  if (fn === '(garbage collector)') return 'runtime: garbage collection';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'runtime: other (program)';
  if (!url) return undefined;
  const u = url.replace(/\\/g, '/');
  if (/\/node_modules\/(jsonwebtoken|jws|jwa)\//.test(u) || u.includes('/lib/auth/')) return 'product: token check';
  if (u.includes('/lib/limits/rateLimiter')) return 'product: rate limit';
  if (u.includes('/lib/log/')) return 'product: logging';
  // Admission (lib/limits, apart from the token buckets) stays counted with the request handling it was part of.
  if (u.includes('/lib/http/') || u.includes('/lib/limits/'))
    return 'product: request handling (headers, body, errors)';
  if (/\/lib\/scim\/(filter|patch|userInput)/.test(u)) return 'product: parsing and validation';
  if (/\/lib\/scim\/(userResponse|userResource|attributes)/.test(u)) return 'product: mapping to SCIM';
  if (u.includes('/lib/store/')) return 'product: store layer';
  if (u.includes('/lib/') || u.includes('/functions/')) return 'product: SCIM operations and other';
  if (/\/node_modules\/(ajv|ajv-formats)\//.test(u)) return 'product: parsing and validation';
  if (/\/node_modules\/@azure\/(cosmos|core-|abort-controller|logger)/.test(u)) return 'Cosmos SDK';
  if (
    u.includes('/devhost/cosmos/') ||
    /\/node_modules\/(@zeit|@vercel)\//.test(u) ||
    u.includes('/devhost/cosmosServer')
  )
    return 'local Cosmos engine';
  if (u.includes('/devhost/') || u.includes('/node_modules/@azure/functions')) return 'local Functions host';
  if (u.includes('/scripts/')) return 'benchmark client';
  if (u.startsWith('node:internal/deps/undici')) return 'benchmark client';
  return undefined;
}

function split(profile: Profile): Map<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const memo = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = memo.get(id);
    if (known) return known;
    const chain: number[] = [];
    let cur: number | undefined = id;
    let found = 'runtime: node internals (http, streams, timers)';
    while (cur !== undefined) {
      const hit = memo.get(cur);
      if (hit) {
        found = hit;
        break;
      }
      chain.push(cur);
      const n = byId.get(cur);
      const c = n ? categoryOf(n.callFrame.url, n.callFrame.functionName) : undefined;
      if (c) {
        found = c;
        break;
      }
      cur = parent.get(cur);
    }
    for (const c of chain) memo.set(c, found);
    return found;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const c = resolve(id);
    out.set(c, (out.get(c) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const pk = partitionKey(DEV_TENANT_ID, integration.id);
    const docs: IdentityDoc[] = Array.from({ length: USERS }, (_, i) =>
      newIdentityDoc({
        id: uuid7(),
        tenantId: DEV_TENANT_ID,
        sourceKind: 'scim',
        sourceKey: integration.id,
        attributes: {
          externalId: `seed-${i}`,
          userName: `seed.user.${i}@corp.example`,
          givenName: 'Seed',
          familyName: `User${i}`,
          active: true,
          affiliationType: 'employment',
          personalNumbers: [],
          identityDocumentReferences: [],
        },
        now: new Date().toISOString(),
      }),
    );
    for (let i = 0; i < docs.length; i += 1000) await services().identities.batchCreate(pk, docs.slice(i, i + 1000));
    const token = await tokenFor(stack, DEV_CLIENTS.scim);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };
    const url = (p: string) => `${stack.base}/scim/v2${p}`;
    const id = (i: number) => docs[(i * 7919) % docs.length]!.id;
    const kinds: Array<[string, (i: number, tag: string) => Promise<void>]> = [
      ['GET /Users/{id}', async (i) => expectStatus(await fetch(url(`/Users/${id(i)}`), { headers }), 200)],
      [
        'filter externalId eq',
        async (i) =>
          expectStatus(
            await fetch(url(`/Users?filter=${encodeURIComponent(`externalId eq "seed-${(i * 7919) % USERS}"`)}`), {
              headers,
            }),
            200,
          ),
      ],
      [
        'POST /Users',
        async (i, tag) =>
          expectStatus(
            await fetch(url('/Users'), {
              method: 'POST',
              headers,
              body: JSON.stringify({
                schemas: [CORE, EXT],
                externalId: `new-${tag}-${i}`,
                userName: `new.${tag}.${i}@corp.example`,
                name: { givenName: 'New', familyName: 'User' },
                [EXT]: { affiliationType: 'employment' },
              }),
            }),
            201,
          ),
      ],
      [
        'PATCH /Users/{id}',
        async (i, tag) =>
          expectStatus(
            await fetch(url(`/Users/${id(i)}`), {
              method: 'PATCH',
              headers,
              body: JSON.stringify({
                schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
                Operations: [{ op: 'Replace', path: 'name.familyName', value: `Patched-${tag}-${i}` }],
              }),
            }),
            200,
          ),
      ],
    ];
    for (let i = 0; i < 100; i++) for (const [, fn] of kinds) await fn(i, 'warm');

    const cpuPerKind = new Map<string, number>();
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    for (let i = 0; i < ROUNDS; i++)
      for (const [name, fn] of kinds) {
        const c = process.cpuUsage();
        await fn(i, 'run');
        const d = process.cpuUsage(c);
        cpuPerKind.set(name, (cpuPerKind.get(name) ?? 0) + (d.user + d.system) / 1000);
      }
    const cpu = process.cpuUsage(cpuStart);
    const wallMs = performance.now() - wallStart;
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    session.disconnect();

    // BENCH_PROFILE_OUT=file.cpuprofile keeps the raw profile (for Chrome DevTools or speedscope).
    if (process.env.BENCH_PROFILE_OUT) fs.writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    const requests = ROUNDS * kinds.length;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const byCategory = split(profile);
    const sampled = [...byCategory.entries()].filter(([c]) => c !== 'idle').reduce((a, [, ms]) => a + ms, 0);
    const rows = [...byCategory.entries()]
      .filter(([c]) => c !== 'idle')
      .sort((a, b) => b[1] - a[1])
      .map(([category, ms]) => ({
        part: category,
        'share of CPU': `${((100 * ms) / sampled).toFixed(1)} %`,
        'ms per request': ((cpuMs * ms) / sampled / requests).toFixed(3),
      }));
    const product = rows
      .filter((r) => r.part.startsWith('product:'))
      .reduce((a, r) => a + Number(r['ms per request']), 0);
    const kindRows = kinds.map(([name]) => ({
      request: name,
      'process CPU ms per request': ((cpuPerKind.get(name) ?? 0) / ROUNDS).toFixed(3),
    }));
    printTable(rows);
    console.log('');
    printTable(kindRows);
    const summary = [
      `${requests} requests (${ROUNDS} rounds of ${kinds.length} kinds) at ${USERS} Users: process CPU ${cpuMs.toFixed(0)} ms`,
      `(${(cpuMs / requests).toFixed(3)} ms per request, all parts in this process), wall ${wallMs.toFixed(0)} ms;`,
      `product code ${product.toFixed(3)} ms per request.`,
    ].join(' ');
    console.log(`\n${summary}`);
  } finally {
    await stack.stop();
  }
}

runBench('profile', main);
