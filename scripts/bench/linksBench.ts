/* npm run bench:links — 10,000 pending identities resolved by one background run. */
import { printTable, startBenchStack, runBench } from './harness';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../lib/devhost/devData';
import { services, workDeps } from '../../lib/services';
import { newIdentityDoc } from '../../lib/identities/model';
import { uuid7 } from '../../lib/util/uuid7';
import { forEachBounded } from '../../lib/util/concurrency';
import { resolveTenantPendingLinks } from '../../lib/links/pendingLinks';
import { diffCounters, storeCounters } from '../../lib/store/metrics';

const N = Number(process.env.BENCH_PENDING ?? 10_000);

async function main(): Promise<void> {
  const stack = await startBenchStack({ PENDING_LINK_BATCH_LIMIT: String(N * 2) });
  try {
    const svc = services();
    const integration = (await svc.integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const now = new Date().toISOString();
    await forEachBounded(Array.from({ length: N }, (_, i) => i), 32, async (i) => {
      const upn = `pending.${i}@dev.example.com`;
      const attributes = { externalId: `pending-${i}`, userName: upn, givenName: 'P', familyName: `${i}`, active: true, affiliationType: 'employment' as const, personalNumbers: [], identityDocumentReferences: [], directoryUserPrincipalName: upn };
      const doc = newIdentityDoc({ id: uuid7(), tenantId: DEV_TENANT_ID, sourceKind: 'scim', sourceKey: integration.id, attributes, now, link: { status: 'pending', lookedUpUpn: upn } });
      await svc.identities.create(doc);
      stack.directory.createUser(DEV_TENANT_ID, upn);
    });
    stack.directory.resetStats();
    const before = storeCounters();
    const started = performance.now();
    const result = await resolveTenantPendingLinks(workDeps(svc), DEV_TENANT_ID, '', N * 2);
    const ms = performance.now() - started;
    const ops = diffCounters(storeCounters(), before);
    const graph = stack.directory.stats();
    printTable([
      {
        pending: N,
        linked: result.linked,
        'run s': (ms / 1000).toFixed(2),
        'Graph HTTP requests': graph.requests,
        '$batch requests': graph.batchRequests,
        'filter queries': graph.filterQueries,
        'bound ceil(N/15)': Math.ceil(N / 15),
        'store reads': ops.pointReads,
        'store queries': ops.queries,
        'store writes': ops.writes,
      },
    ]);
    if (result.linked !== N || graph.filterQueries > Math.ceil(N / 15)) throw new Error('pending-link run did not meet its bound');
  } finally {
    await stack.stop();
  }
}

runBench(main);
