/*
 * npm run bench:import — custom-integration import and association at 10,000 and 100,000 identities.
 * BENCH_RU_PER_SECOND=5000: the local engine serves each container 5,000 RU/s (a serverless
 * container) and answers 429 beyond; the import steps then show Azure's pace (association is skipped),
 * and the first import is sent by the reference client, which gives up on its request after
 * BENCH_CLIENT_TIMEOUT_S (default: its own, just under Azure's 230 s) and follows the run to its end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printTable, startBenchStack, tokenFor, type Stack, runBench, postJsonNoTimeout } from './harness';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';
import { validateImportSet, type ImportIdentityInput } from '../../lib/imports/importInput';
import { diffCounters, storeCounters } from '../../lib/store/metrics';
import { DEFAULT_ASSOCIATION_CHUNK, DEFAULT_TIMEOUT_MS, runImport } from '../importClient';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const RU_PER_SECOND = process.env.BENCH_RU_PER_SECOND ? Number(process.env.BENCH_RU_PER_SECOND) : undefined;
/** The Azure Functions front end ends an HTTP request after 230 s, whatever the function does. */
const HTTP_WINDOW_S = 230;
const CLIENT_TIMEOUT_MS = process.env.BENCH_CLIENT_TIMEOUT_S
  ? Number(process.env.BENCH_CLIENT_TIMEOUT_S) * 1000
  : DEFAULT_TIMEOUT_MS;

function cpr(i: number): string {
  const day = String((i % 28) + 1).padStart(2, '0');
  const month = String((Math.floor(i / 28) % 12) + 1).padStart(2, '0');
  return `${day}${month}85${String(i % 10000).padStart(4, '0')}`;
}

function people(n: number, variant = 0): ImportIdentityInput[] {
  return Array.from({ length: n }, (_, i) => ({
    externalId: `EMP-${i}`,
    affiliationType: i % 10 === 0 ? 'ENGAGEMENT' : 'EMPLOYMENT',
    firstName: i < variant ? `Changed${i}` : `First${i}`,
    lastName: `Last${i}`,
    birthDate: '1985-01-01',
    nationality: 'DK',
    personalNumbers: [{ type: 'DK_CPR', value: cpr(i) }],
  }));
}

async function graphql(
  stack: Stack & { base: string },
  token: string,
  query: string,
  variables: unknown,
): Promise<{ ms: number; body: { data?: Record<string, unknown>; errors?: unknown[] } }> {
  const started = performance.now();
  const res = await postJsonNoTimeout(`${stack.base}/graphql`, token, { query, variables });
  const body = res.json as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 300));
  return { ms: performance.now() - started, body };
}

const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged } }';

/** Store requests: point reads, query pages, single writes and transactional batches (each one request). */
function storeRequests(ops: ReturnType<typeof diffCounters>): number {
  return ops.pointReads + ops.queryPages + (ops.writes - ops.batchedWrites) + ops.batchRequests;
}

async function main(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const ruRows: Array<Record<string, string | number>> = [];
  const associationRows: Array<Record<string, string | number>> = [];
  const perIdentityLines: string[] = [];
  for (const n of SIZES) {
    // CPU of parse-free validation + hashing + diff, in this process.
    const set = people(n);
    const cpuStart = process.cpuUsage();
    const valid = validateImportSet(set);
    const manifest = new Map(valid.map((v) => [v.attributes.externalId, v.hash]));
    let changed = 0;
    for (const v of validateImportSet(people(n, Math.floor(n / 100))))
      if (manifest.get(v.attributes.externalId) !== v.hash) changed++;
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000 / 2; // two validations were run: report one validate + diff
    void changed;

    const stack = await startBenchStack({}, undefined, RU_PER_SECOND);
    try {
      const token = await tokenFor(stack, DEV_CLIENTS.admin);
      const source = `Bench${n}`;
      type Counts = Record<string, number>;
      /** The set sent as one GraphQL request, with no client-side time limit. */
      const direct = async (identities: ImportIdentityInput[]): Promise<Counts> =>
        (await graphql(stack, token, IMPORT, { i: { source, identities } })).body.data
          ?.importBusinessIdentities as Counts;
      /** The set sent by the reference client: past its timeout it follows the run in the run history. */
      const viaClient = async (identities: ImportIdentityInput[], notes: string[]): Promise<Counts> => {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-')), 'set.json');
        fs.writeFileSync(file, JSON.stringify(identities));
        try {
          const client = DEV_CLIENTS.admin;
          const result = await runImport({
            service: stack.base,
            source,
            file,
            tenant: DEV_TENANT_ID,
            clientId: client.clientId,
            secret: client.secret,
            authority: stack.idp.url,
            scope: SERVICE_SCOPE,
            timeoutMs: CLIENT_TIMEOUT_MS,
            pollMs: 2_000,
            progress: (line) => notes.push(line),
          });
          return result.import as unknown as Counts;
        } finally {
          fs.rmSync(path.dirname(file), { recursive: true, force: true });
        }
      };
      const run = async (label: string, identities: ImportIdentityInput[], byClient = false) => {
        const before = storeCounters();
        const ruBefore = stack.cosmosRequestUnits();
        const started = performance.now();
        let counts: Counts = {};
        let failure = '';
        const notes: string[] = [];
        try {
          counts = byClient ? await viaClient(identities, notes) : await direct(identities);
        } catch (err) {
          failure = err instanceof Error ? err.message.slice(0, 120) : 'failed';
        }
        const ms = performance.now() - started;
        const ops = diffCounters(storeCounters(), before);
        const ru = stack.cosmosRequestUnits();
        rows.push({
          N: n,
          step: label,
          s: (ms / 1000).toFixed(2),
          created: counts.created ?? 0,
          updated: counts.updated ?? 0,
          deleted: counts.deleted ?? 0,
          unchanged: counts.unchanged ?? 0,
          'identity writes': ops.identityWrites,
          'batch requests': ops.batchRequests,
          'store writes': ops.writes,
          'point reads': ops.pointReads,
          queries: ops.queries,
        });
        const charged = ru.charged - ruBefore.charged;
        const identitiesAfter = ru.byContainer['business-identities/identities']?.charged ?? 0;
        const identitiesBefore = ruBefore.byContainer['business-identities/identities']?.charged ?? 0;
        const written = (counts.created ?? 0) + (counts.updated ?? 0) + (counts.deleted ?? 0);
        const per = written > 0 ? charged / written : counts.unchanged ? charged / counts.unchanged : NaN;
        const ofIdentities = identitiesAfter - identitiesBefore;
        if (label.includes('changed') && (counts.updated ?? 0) > 0)
          perIdentityLines.push(
            `N=${n} ${label}: a changed imported identity costs ${(ofIdentities / (counts.updated ?? 1)).toFixed(2)} RU in the identities container (point read + replace; goal <= 14), ${per.toFixed(2)} RU with the manifest and run records`,
          );
        if (label.startsWith('unchanged'))
          perIdentityLines.push(
            `N=${n} ${label}: ${ops.identityWrites} identity writes for ${counts.unchanged ?? 0} unchanged identities (goal 0), ${Math.round(charged)} RU in all`,
          );
        const gaveUp = notes.find((l) => l.includes('following the import'));
        ruRows.push({
          N: n,
          'RU/s': RU_PER_SECOND ?? 'unlimited',
          step: label,
          s: (ms / 1000).toFixed(1),
          [`past ${HTTP_WINDOW_S} s`]: ms / 1000 > HTTP_WINDOW_S ? 'yes' : 'no',
          'RU charged': Math.round(charged),
          'of which identities': Math.round(identitiesAfter - identitiesBefore),
          'RU per identity written': written > 0 ? per.toFixed(2) : '',
          'RU per unchanged identity': written > 0 ? '' : per.toFixed(3),
          'store requests': ru.requests - ruBefore.requests,
          '429s': ru.throttled - ruBefore.throttled,
          'SDK-reported RU': Math.round(ops.requestCharge),
          outcome:
            failure ||
            (byClient
              ? gaveUp
                ? `client: ${gaveUp.replace(/; following.*/, '')}, followed the run to its end`
                : 'client: answered in time'
              : 'answered'),
        });
      };
      await run(
        RU_PER_SECOND === undefined ? 'first import' : 'first import (reference client)',
        set,
        RU_PER_SECOND !== undefined,
      );
      await run('unchanged re-import', set);
      await run('1% changed re-import', people(n, Math.floor(n / 100)));
      // Under a request-unit budget only the import steps run (their rows are the point of such a run).
      if (RU_PER_SECOND !== undefined) continue;
      for (let i = 0; i < n; i++) stack.directory.createUser(DEV_TENANT_ID, `emp${i}@dev.example.com`);
      const associations = set.map((p, i) => ({
        externalId: p.externalId,
        userPrincipalName: `emp${i}@dev.example.com`,
      }));
      const associate = async (label: string) => {
        stack.directory.resetStats();
        const before = storeCounters();
        const ruBefore = stack.cosmosRequestUnits().charged;
        let ms = 0;
        const totals = { associated: 0, unchanged: 0 };
        // In parts, as the reference client sends them (ASSOCIATION_MAX_PAIRS).
        for (let i = 0; i < associations.length; i += DEFAULT_ASSOCIATION_CHUNK) {
          const a = await graphql(stack, token, ASSOCIATE, {
            i: { source, associations: associations.slice(i, i + DEFAULT_ASSOCIATION_CHUNK) },
          });
          ms += a.ms;
          const counts = a.body.data?.associateBusinessIdentities as Record<string, number>;
          totals.associated += counts.associated ?? 0;
          totals.unchanged += counts.unchanged ?? 0;
        }
        const ops = diffCounters(storeCounters(), before);
        const requests = storeRequests(ops);
        const ru = stack.cosmosRequestUnits().charged - ruBefore;
        associationRows.push({
          N: n,
          step: `${label} (${Math.ceil(n / DEFAULT_ASSOCIATION_CHUNK)} calls, ${stack.directory.stats().filterQueries} Graph queries)`,
          s: (ms / 1000).toFixed(2),
          associated: totals.associated,
          unchanged: totals.unchanged,
          'store requests': requests,
          'per pair': (requests / n).toFixed(3),
          'per new link': totals.associated > 0 ? (requests / totals.associated).toFixed(3) : '–',
          'batch requests': ops.batchRequests,
          'store writes': ops.writes,
          'point reads': ops.pointReads,
          'query pages': ops.queryPages,
          'RU charged': Math.round(ru),
          'RU per new link': totals.associated > 0 ? (ru / totals.associated).toFixed(1) : '–',
          'RU per pair': (ru / n).toFixed(2),
        });
      };
      await associate('associate all');
      await associate('associate again');
      rows.push({
        N: n,
        step: 'CPU ms validate+diff (in s column)',
        s: cpuMs.toFixed(0),
        created: '',
        updated: '',
        deleted: '',
        unchanged: '',
        'identity writes': '',
        'batch requests': '',
        'store writes': '',
        'point reads': '',
        queries: '',
      });
    } finally {
      await stack.stop();
    }
  }
  printTable(rows);
  console.log('\nAssociation (store requests: point reads, query pages, single writes and transactional batches)');
  printTable(associationRows);
  console.log('\nRequest units charged by the local engine (Cosmos DB model; see docs/local-stack.md)');
  printTable(ruRows);
  console.log('\nRequest units per identity');
  for (const line of perIdentityLines) console.log(line);
}

runBench('import', main);
