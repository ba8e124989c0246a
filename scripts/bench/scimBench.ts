/* npm run bench:scim — SCIM request cost at N = 1,000 and 20,000 Users in one integration. */
import { expectStatus, measure, printTable, startBenchStack, tokenFor, type Measured, runBench } from './harness';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../lib/devhost/devData';
import { services } from '../../lib/services';
import { newIdentityDoc, type IdentityDoc } from '../../lib/identities/model';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const SAMPLES_SMALL = Number(process.env.BENCH_SAMPLES ?? 100);
/** Each query costs seconds on the local server at 20,000 documents (see README), so fewer samples there. */
const SAMPLES_LARGE = Number(process.env.BENCH_SAMPLES_LARGE ?? 8);
const LOG = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const SIZES = (process.env.BENCH_SIZES ?? '1000,20000').split(',').map(Number);

function seedDoc(tenantId: string, integrationId: string, i: number): IdentityDoc {
  const attributes = { externalId: `seed-${i}`, userName: `seed.user.${i}@corp.example`, givenName: 'Seed', familyName: `User${i}`, active: true, affiliationType: 'employment' as const, personalNumbers: [], identityDocumentReferences: [] };
  return newIdentityDoc({ id: uuid7(), tenantId, sourceKind: 'scim', sourceKey: integrationId, attributes, now: new Date().toISOString() });
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const results: Array<{ n: number; rows: Measured[] }> = [];
  const clients = [DEV_CLIENTS.scim, DEV_CLIENTS.scim2];
  try {
    for (const [index, n] of SIZES.entries()) {
      const client = clients[index % clients.length]!;
      const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, client.clientId))!;
      const repo = services().identities;
      const seeded = Date.now();
      const seededIds: string[] = new Array<string>(n);
      await forEachBounded(Array.from({ length: n }, (_, i) => i), 32, async (i) => {
        seededIds[i] = (await repo.create(seedDoc(DEV_TENANT_ID, integration.id, i))).id;
      });
      LOG(`seeded ${n} Users in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
      const token = await tokenFor(stack, client);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };
      const url = (p: string) => `${stack.base}/scim/v2${p}`;
      const pick = (i: number) => (i * 7919) % n;
      const SAMPLES = n > 5000 ? SAMPLES_LARGE : SAMPLES_SMALL;
      const ids = Array.from({ length: SAMPLES }, (_, i) => seededIds[pick(i)] ?? '');
      const lastStart = Math.floor((n - 1) / 100) * 100 + 1;
      const rows: Measured[] = [];
      // A client jumping straight to the last page: no remembered cursor, the start is found by reading ids once.
      rows.push(await measure('last page, first jump', 1, async () => expectStatus(await fetch(url(`/Users?startIndex=${lastStart}&count=100`), { headers }), 200)));
      LOG('measured first jump');
      LOG('measuring requests');
      rows.push(await measure('GET /Users/{id}', SAMPLES, async (i) => expectStatus(await fetch(url(`/Users/${ids[i]}`), { headers }), 200)));
      rows.push(await measure('filter externalId eq', SAMPLES, async (i) => expectStatus(await fetch(url(`/Users?filter=${encodeURIComponent(`externalId eq "seed-${pick(i)}"`)}`), { headers }), 200)));
      rows.push(await measure('filter userName eq', SAMPLES, async (i) => expectStatus(await fetch(url(`/Users?filter=${encodeURIComponent(`userName eq "SEED.USER.${pick(i)}@corp.example"`)}`), { headers }), 200)));
      rows.push(
        await measure('POST /Users', SAMPLES, async (i) =>
          expectStatus(
            await fetch(url('/Users'), {
              method: 'POST',
              headers,
              body: JSON.stringify({ schemas: [CORE, EXT], externalId: `new-${n}-${i}`, userName: `new.${n}.${i}@corp.example`, name: { givenName: 'New', familyName: 'User' }, [EXT]: { affiliationType: 'employment' } }),
            }),
            201,
          ),
        ),
      );
      rows.push(
        await measure('PATCH /Users/{id}', SAMPLES, async (i) =>
          expectStatus(
            await fetch(url(`/Users/${ids[i]}`), {
              method: 'PATCH',
              headers,
              body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Replace', path: 'name.familyName', value: `Patched${i}` }] }),
            }),
            200,
          ),
        ),
      );
      rows.push(await measure('last page via cursor', Math.min(SAMPLES, 50), async () => expectStatus(await fetch(url(`/Users?startIndex=${lastStart}&count=100`), { headers }), 200)));
      LOG(`measured N=${n}`);
      results.push({ n, rows });
    }
  } finally {
    await stack.stop();
  }
  const table = results.flatMap(({ n, rows }) =>
    rows.map((r) => ({
      N: n,
      request: r.name,
      'p50 ms': r.p50,
      'p95 ms': r.p95,
      'point reads': r.perRequest.pointReads,
      queries: r.perRequest.queries,
      'items returned': r.perRequest.itemsReturned,
      writes: r.perRequest.writes,
      samples: r.n,
      RU: r.perRequest.requestCharge,
    })),
  );
  printTable(table);
  if (results.length === 2) {
    console.log('\nratio of p50 latency, large N / small N:');
    for (const [i, r] of (results[0]?.rows ?? []).entries()) console.log(`  ${r.name}: ${((results[1]?.rows[i]?.p50 ?? NaN) / r.p50).toFixed(2)}`);
  }
}

runBench(main);
