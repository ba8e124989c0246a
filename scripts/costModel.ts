/*
 * `npm run cost`: what the service costs a month for 100, 1,000 and 10,000 tenants of 10,000 identities each,
 * per Cosmos DB mode, built from the request units the benchmarks measured (docs/performance/bench-scim.md and
 * bench-import.md, parsed from their tables) and the unit prices below. It prints the tables docs/operations.md
 * shows ("What it costs"); tests/unit/scripts/costModel.test.ts fails when the two differ, so a new benchmark run
 * or a new price shows up in the docs.
 *
 * The workload of one tenant a day: a nightly import of all its identities of which 1 % changed, SCIM churn of
 * 1 % of its identities (each a lookup by externalId and a PATCH), and links for 1 % of its identities.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Unit prices, USD list prices (pay as you go, a US/EU region, single region, no reservation), converted to € at
 * eurPerUsd, as of 2026-12-01: the Cosmos DB RU and storage prices are those Microsoft's documentation quotes
 * (named below); the others are the pricing pages' list prices as known then, not re-read for this table. Prices
 * change and differ by region: check the pricing pages before relying on a figure.
 */
export const PRICES = {
  /** Microsoft, "Understand your Azure Cosmos DB bill" (serverless example): $0.25 per million RU. */
  cosmosServerlessPerMillionRu: 0.25,
  /** Same page: standard provisioned throughput $0.008 per 100 RU/s per hour. */
  cosmosStandardPer100RuHour: 0.008,
  /** Autoscale is billed at 1.5 times the standard rate (Azure Cosmos DB pricing page, single write region). */
  cosmosAutoscaleFactor: 1.5,
  /**
   * Zone redundancy: standard (manual) provisioned throughput costs 1.25 times in a zone-redundant region, but
   * the premium is waived for autoscale throughput (Microsoft, "Reliability in Azure Cosmos DB", Cost): the
   * autoscale preset's zone redundancy adds nothing to its request units. Kept for a manual-throughput estimate.
   */
  cosmosZoneFactor: 1.25,
  /** Same page as the RU prices: $0.25 per GB-month of data and index. */
  cosmosStoragePerGbMonth: 0.25,
  /** Azure Functions pricing page, Flex Consumption on demand: execution time per GB-s, per million executions. */
  flexOnDemandPerGbSecond: 0.000026,
  flexPerMillionExecutions: 0.4,
  /** Monthly free grant of the Flex Consumption on-demand meter, per subscription. */
  flexFreeGbSeconds: 100_000,
  flexFreeExecutions: 250_000,
  /** Always-ready baseline per GB-s (billed while idle), and execution time on an always-ready instance. */
  flexAlwaysReadyBaselinePerGbSecond: 0.000004,
  /** Azure Monitor pricing page: Analytics logs, pay as you go, per GB ingested (first 5 GB a month free). */
  logAnalyticsPerGb: 2.3,
  logAnalyticsFreeGbMonth: 5,
  /** Azure Front Door pricing page: base fee a month, and per 10,000 requests (zone 1). */
  frontDoorStandardBaseMonth: 35,
  frontDoorPremiumBaseMonth: 330,
  frontDoorStandardPer10kRequests: 0.009,
  /** Azure Monitor pricing page: Application Insights standard availability test, per execution. */
  availabilityTestPerRun: 0.0012,
  /** Azure Private Link pricing page: $0.01 an hour per private endpoint; Azure DNS: $0.50 a month per zone. */
  privateEndpointPerHour: 0.01,
  privateDnsZonePerMonth: 0.5,
  /** Azure Storage pricing page (hot, LRS / ZRS): per GB-month, and per 10,000 queue operations. */
  storagePerGbMonthLrs: 0.018,
  storagePerGbMonthZrs: 0.0225,
  queuePer10kOperations: 0.004,
  /** The conversion used for the € figures. */
  eurPerUsd: 0.86,
} as const;

/** Hours in a month (Azure bills 730). */
const HOURS = 730;
const SECONDS = HOURS * 3600;
const DAYS = 30;

export const TENANT_COUNTS = [100, 1_000, 10_000] as const;
export const IDENTITIES_PER_TENANT = 10_000;
/** A day's share of changed identities: import changes, SCIM churn, links. */
export const DAILY_CHANGE = 0.01;

/** The figures the model reads from the benchmarks' tables. */
export interface MeasuredRu {
  /** bench:scim, the largest N of the last full run: RU of one request. */
  scimPatch: number;
  scimLookup: number;
  /** bench:import, "1% changed re-import": RU per identity of the source, upload and job. */
  importUploadPerIdentity: number;
  importJobPerIdentity: number;
  /** bench:import, job seconds per identity of that re-import (the service's busy time). */
  importSecondsPerIdentity: number;
  /** bench:import, "associate all": RU per linked pair. */
  linkPerPair: number;
}

/** The rows of the markdown table that follows `heading` (first table after it), as header -> cell. */
export function tableAfter(markdown: string, heading: string): Array<Record<string, string>> {
  const at = markdown.indexOf(heading);
  if (at < 0) throw new Error(`no "${heading}" in the benchmark file`);
  const lines = markdown.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  if (start < 0) throw new Error(`no table after "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  const [header, , ...body] = rows;
  if (!header) throw new Error(`empty table after "${heading}"`);
  return body.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
}

function numberIn(row: Record<string, string> | undefined, column: string, what: string): number {
  const value = Number((row?.[column] ?? '').replace(/,/g, ''));
  if (!row || !Number.isFinite(value)) throw new Error(`${what}: no number in column "${column}"`);
  return value;
}

/** The measured request units, from the two benchmark files. */
export function measuredRu(scimMarkdown: string, importMarkdown: string): MeasuredRu {
  const scim = tableAfter(scimMarkdown, '## The last full run');
  const largest = Math.max(...scim.map((r) => Number(r.N)));
  const scimRow = (request: string) => scim.find((r) => Number(r.N) === largest && r.request === request);
  const imports = tableAfter(importMarkdown, 'Staged imports:');
  const changed = imports.find((r) => r.step === '1% changed re-import');
  const links = tableAfter(importMarkdown, 'Association in requests');
  const associate = links.find((r) => r.step?.startsWith('associate all'));
  const n = numberIn(changed, 'N', 'bench:import 1% changed re-import');
  return {
    scimPatch: numberIn(scimRow('PATCH /Users/{id}'), 'RU (SDK)', 'bench:scim PATCH'),
    scimLookup: numberIn(scimRow('filter externalId eq'), 'RU (SDK)', 'bench:scim filter externalId eq'),
    importUploadPerIdentity: numberIn(changed, 'upload RU/identity', 'bench:import upload'),
    importJobPerIdentity: numberIn(changed, 'job RU/identity', 'bench:import job'),
    importSecondsPerIdentity:
      (numberIn(changed, 'upload s', 'bench:import upload s') + numberIn(changed, 'job s', 'bench:import job s')) / n,
    linkPerPair: numberIn(associate, 'RU per pair', 'bench:import associate all'),
  };
}

/** One tenant's day, from the measured request units. */
export function tenantDay(ru: MeasuredRu): {
  importRu: number;
  daytimeRu: number;
  requests: number;
  busySeconds: number;
} {
  const changed = IDENTITIES_PER_TENANT * DAILY_CHANGE;
  const importRu = IDENTITIES_PER_TENANT * (ru.importUploadPerIdentity + ru.importJobPerIdentity);
  const scimRu = changed * (ru.scimLookup + ru.scimPatch);
  const linkRu = changed * ru.linkPerPair;
  // SCIM: a lookup and a PATCH per change; an import: its parts of 2,000 plus begin and commit; links: one request.
  const requests = changed * 2 + Math.ceil(IDENTITIES_PER_TENANT / 2000) + 2 + 1;
  // Busy instance time: the import (measured), and a tenth of a second per request.
  const busySeconds = IDENTITIES_PER_TENANT * ru.importSecondsPerIdentity + requests * 0.1;
  return { importRu, daytimeRu: scimRu + linkRu, requests, busySeconds };
}

/**
 * Log volume: rows of about LOG_ROW_BYTES (the issue's measured 20 GB a day at 50 requests/s with four rows a
 * request); with host.json at Warning a request writes its requests row and one line of the service.
 */
export const LOG_ROW_BYTES = 1_150;
export const LOG_ROWS_PER_REQUEST = 2;

export function logGbPerDay(requestsPerSecond: number): number {
  return (requestsPerSecond * 86_400 * LOG_ROWS_PER_REQUEST * LOG_ROW_BYTES) / 1e9;
}

/** Timer invocations a month (measureBackgroundQueue and resumeImports every minute, pending links every 5). */
const TIMER_RUNS = (60 + 60 + 12) * 24 * DAYS;

export interface Preset {
  name: string;
  mode: 'serverless' | 'autoscale';
  zoneRedundant: boolean;
  frontDoor: 'None' | 'Standard' | 'Premium';
  alwaysReadyHttp: number;
  privateEndpoints: number;
  availabilityTest: boolean;
  /** Autoscale maxima: the shared database's and each of the three dedicated containers'. */
  sharedMaxRu: number;
  containerMaxRu: number;
  instanceMemoryGb: number;
}

export const PRESETS: readonly Preset[] = [
  {
    name: 'trial (serverless)',
    mode: 'serverless',
    zoneRedundant: false,
    frontDoor: 'None',
    alwaysReadyHttp: 0,
    privateEndpoints: 0,
    availabilityTest: false,
    sharedMaxRu: 1000,
    containerMaxRu: 4000,
    instanceMemoryGb: 2,
  },
  {
    name: 'production (autoscale)',
    mode: 'autoscale',
    zoneRedundant: true,
    frontDoor: 'Standard',
    alwaysReadyHttp: 1,
    privateEndpoints: 4,
    availabilityTest: true,
    sharedMaxRu: 1000,
    containerMaxRu: 4000,
    instanceMemoryGb: 2,
  },
];

export type Lines = Record<string, number>;

/** USD a month of each line for a preset and a number of tenants (0 = the idle floor). */
export function monthlyUsd(preset: Preset, tenants: number, ru: MeasuredRu): Lines {
  const p = PRICES;
  const day = tenantDay(ru);
  const importRuDay = tenants * day.importRu;
  const daytimeRuDay = tenants * day.daytimeRu;
  const requestsMonth = tenants * day.requests * DAYS;
  let cosmos: number;
  if (preset.mode === 'serverless') {
    cosmos = ((importRuDay + daytimeRuDay) * DAYS * p.cosmosServerlessPerMillionRu) / 1e6;
  } else {
    // Billed each hour at the highest RU/s it scaled to, at least a tenth of the maxima: imports over a 4-hour
    // night, SCIM and links over 12 daytime hours, both at twice their hourly mean (bursts), the pool as one.
    const floor = (preset.sharedMaxRu + 3 * preset.containerMaxRu) / 10;
    const night = Math.max(floor, (2 * importRuDay) / (4 * 3600));
    const daytime = Math.max(floor, (2 * daytimeRuDay) / (12 * 3600));
    const ruHoursPerDay = 4 * night + 12 * daytime + 8 * floor;
    // Autoscale throughput: no zone-redundancy premium (waived for autoscale, see cosmosZoneFactor).
    const rate = p.cosmosStandardPer100RuHour * p.cosmosAutoscaleFactor;
    cosmos = (ruHoursPerDay / 100) * rate * (HOURS / 24);
  }
  // Identity documents with their history and index, as the local engine stored them in bench:scim (181 MB for
  // 100,200 Users: about 1.8 KB each).
  const cosmosStorage = ((tenants * IDENTITIES_PER_TENANT * 1_810) / 1e9) * p.cosmosStoragePerGbMonth;
  // Functions: on-demand GB-s of busy time and timers (each run billed at least a second), less the free grant;
  // always-ready instances pay their baseline all month.
  const gbSeconds = (tenants * day.busySeconds * DAYS + TIMER_RUNS) * preset.instanceMemoryGb;
  const executions = requestsMonth + TIMER_RUNS;
  const functions =
    Math.max(0, gbSeconds - p.flexFreeGbSeconds) * p.flexOnDemandPerGbSecond +
    (Math.max(0, executions - p.flexFreeExecutions) / 1e6) * p.flexPerMillionExecutions +
    preset.alwaysReadyHttp * preset.instanceMemoryGb * SECONDS * p.flexAlwaysReadyBaselinePerGbSecond;
  // Storage: the deployment package and host state (about 1 GB), and the queue: timers' polls and background units.
  const queueOps = TIMER_RUNS * 3 + tenants * 10 * DAYS + 30 * 24 * 3600 * 0.5;
  const storage =
    1 * (preset.zoneRedundant ? p.storagePerGbMonthZrs : p.storagePerGbMonthLrs) +
    (queueOps / 1e4) * p.queuePer10kOperations;
  // Logs: the requests and timer runs, two rows each.
  const logGb = ((requestsMonth + TIMER_RUNS) * LOG_ROWS_PER_REQUEST * LOG_ROW_BYTES) / 1e9;
  const logs = Math.max(0, logGb - p.logAnalyticsFreeGbMonth) * p.logAnalyticsPerGb;
  const frontDoor =
    preset.frontDoor === 'None'
      ? 0
      : (preset.frontDoor === 'Premium' ? p.frontDoorPremiumBaseMonth : p.frontDoorStandardBaseMonth) +
        (requestsMonth / 1e4) * p.frontDoorStandardPer10kRequests;
  const network = preset.privateEndpoints * (p.privateEndpointPerHour * HOURS + p.privateDnsZonePerMonth);
  // Three locations every 5 minutes.
  const availability = preset.availabilityTest ? 3 * 12 * HOURS * p.availabilityTestPerRun : 0;
  return {
    'Cosmos DB request units': cosmos,
    'Cosmos DB storage': cosmosStorage,
    'Functions (Flex Consumption)': functions,
    'Storage (host, queues)': storage,
    'Logs (Log Analytics)': logs,
    'Availability test': availability,
    'Front Door and WAF': frontDoor,
    'Private endpoints': network,
  };
}

const euro = (usd: number): string => {
  const eur = usd * PRICES.eurPerUsd;
  return eur < 0.5 ? '€0' : `€${Math.round(eur).toLocaleString('en-US')}`;
};

/** The markdown tables docs/operations.md shows: one per preset, idle floor and each tenant count. */
export function renderCostTables(ru: MeasuredRu): string {
  const out: string[] = [];
  for (const preset of PRESETS) {
    const columns = [0, ...TENANT_COUNTS];
    const lines = columns.map((t) => monthlyUsd(preset, t, ru));
    const names = Object.keys(lines[0] ?? {});
    out.push(`**${preset.name}**, € a month`, '');
    out.push(`| line | idle floor | ${TENANT_COUNTS.map((t) => `${t.toLocaleString('en-US')} tenants`).join(' | ')} |`);
    out.push(`| ---- | ---------- | ${TENANT_COUNTS.map(() => '---').join(' | ')} |`);
    for (const name of names) out.push(`| ${name} | ${lines.map((l) => euro(l[name] ?? 0)).join(' | ')} |`);
    out.push(
      `| **total** | ${lines.map((l) => `**${euro(Object.values(l).reduce((a, b) => a + b, 0))}**`).join(' | ')} |`,
    );
    out.push('');
  }
  const day = tenantDay(ru);
  const production = PRESETS.find((p) => p.mode === 'autoscale');
  if (production) {
    const pool = production.sharedMaxRu + 3 * production.containerMaxRu;
    const peaks = TENANT_COUNTS.map((t) => Math.round((2 * t * day.importRu) / (4 * 3600)));
    out.push(
      `Autoscale peak at night (imports at twice their mean over 4 hours): ${peaks
        .map(
          (p, i) => `${p.toLocaleString('en-US')} RU/s for ${(TENANT_COUNTS[i] ?? 0).toLocaleString('en-US')} tenants`,
        )
        .join(', ')}; the preset's maxima add up to ${pool.toLocaleString('en-US')} RU/s, ` +
        `${production.containerMaxRu.toLocaleString('en-US')} for each busy container: raise ` +
        '`COSMOS_CONTAINER_AUTOSCALE_MAX_THROUGHPUT` where one container must take more (imports write mostly to `identities`).',
    );
    out.push('');
  }
  out.push(
    `Measured request units: PATCH ${ru.scimPatch}, lookup by externalId ${ru.scimLookup} (bench:scim); ` +
      `re-import with 1 % changed ${ru.importUploadPerIdentity} + ${ru.importJobPerIdentity} per identity, ` +
      `link ${ru.linkPerPair} per pair (bench:import). One tenant a day: ${Math.round(day.importRu).toLocaleString('en-US')} RU of import, ` +
      `${Math.round(day.daytimeRu).toLocaleString('en-US')} RU of SCIM and links, ${day.requests} requests.`,
  );
  out.push('');
  out.push(
    `Logs at a steady rate (requests row and one line of the service, ${LOG_ROW_BYTES.toLocaleString('en-US')} bytes a row): ` +
      `${logGbPerDay(10).toFixed(1)} GB a day at 10 requests/s, ${logGbPerDay(100).toFixed(1)} GB a day at 100 requests/s.`,
  );
  return out.join('\n');
}

export const SCIM_BENCH = path.join('docs', 'performance', 'bench-scim.md');
export const IMPORT_BENCH = path.join('docs', 'performance', 'bench-import.md');

export function costTablesFromDocs(root: string = process.cwd()): string {
  const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
  return renderCostTables(measuredRu(read(SCIM_BENCH), read(IMPORT_BENCH)));
}

if (require.main === module) {
  console.log(costTablesFromDocs());
}
