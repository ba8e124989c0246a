/**
 * The cost model of docs/operations.md: it reads the request units the benchmarks measured from their tables,
 * prices a month per preset, and the tables in the docs are exactly what it prints (so they stay true when a
 * benchmark or a price changes).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  LOG_ROW_BYTES,
  PRESETS,
  PRICES,
  costTablesFromDocs,
  logGbPerDay,
  measuredRu,
  monthlyUsd,
  tableAfter,
  tenantDay,
} from '../../../scripts/costModel';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const SCIM = [
  '## The last full run',
  '',
  '| N    | request              | p50 ms | RU (SDK) |',
  '| ---- | -------------------- | ------ | -------- |',
  '| 1000 | PATCH /Users/{id}    | 3      | 11       |',
  '| 1000 | filter externalId eq | 2      | 2.5      |',
  '| 5000 | PATCH /Users/{id}    | 3      | 12       |',
  '| 5000 | filter externalId eq | 2      | 3        |',
  '',
].join('\n');
const IMPORT = [
  'Staged imports: parts of 2000',
  '',
  '| N    | step                 | upload s | job s | upload RU/identity | job RU/identity |',
  '| ---- | -------------------- | -------- | ----- | ------------------ | --------------- |',
  '| 1000 | unchanged re-import  | 1        | 1     | 0.1                | 0.01            |',
  '| 1000 | 1% changed re-import | 2        | 3     | 0.2                | 0.3             |',
  '',
  'Association in requests of 10000 pairs',
  '',
  '| pairs | step                        | RU per pair |',
  '| ----- | --------------------------- | ----------- |',
  '| 100   | associate all (10 requests) | 20          |',
  '',
].join('\n');

describe('measured request units', () => {
  it('come from the largest N of the last full bench:scim run and the 1% changed re-import of bench:import', () => {
    expect(measuredRu(SCIM, IMPORT)).toEqual({
      scimPatch: 12,
      scimLookup: 3,
      importUploadPerIdentity: 0.2,
      importJobPerIdentity: 0.3,
      importSecondsPerIdentity: 5 / 1000,
      linkPerPair: 20,
    });
  });

  it('a benchmark file without its table is an error that names what is missing', () => {
    expect(() => measuredRu('# nothing', IMPORT)).toThrow(/The last full run/);
    expect(() => measuredRu(SCIM, IMPORT.replace('1% changed re-import', 'other'))).toThrow(/1% changed re-import/);
    expect(() => tableAfter('## heading\n\ntext', '## heading')).toThrow(/no table/);
  });

  it("reads the repository's benchmark files", () => {
    const read = (f: string) => fs.readFileSync(path.join(ROOT, 'docs', 'performance', f), 'utf8');
    const ru = measuredRu(read('bench-scim.md'), read('bench-import.md'));
    for (const v of Object.values(ru)) expect(v).toBeGreaterThan(0);
  });
});

describe('the month', () => {
  const ru = measuredRu(SCIM, IMPORT);

  it("one tenant's day: a nightly import of its 10,000 identities, 1 % SCIM churn and 1 % links", () => {
    expect(tenantDay(ru)).toEqual({
      importRu: 10_000 * 0.5,
      daytimeRu: 100 * (3 + 12) + 100 * 20,
      requests: 200 + 5 + 2 + 1,
      busySeconds: 10_000 * 0.005 + 208 * 0.1,
    });
  });

  it('serverless bills the request units used; autoscale at least a tenth of its maxima, every hour, with no zone premium', () => {
    const [trial, production] = PRESETS;
    expect(monthlyUsd(trial!, 0, ru)['Cosmos DB request units']).toBe(0);
    expect(monthlyUsd(trial!, 100, ru)['Cosmos DB request units']).toBeCloseTo(
      (100 * (5_000 + 3_500) * 30 * PRICES.cosmosServerlessPerMillionRu) / 1e6,
    );
    const floorRu = (1000 + 3 * 4000) / 10;
    expect(monthlyUsd(production!, 0, ru)['Cosmos DB request units']).toBeCloseTo((floorRu / 100) * 0.008 * 1.5 * 730);
    // Zone redundancy's 1.25 premium is waived for autoscale throughput: a zonal production costs the same.
    expect(production!.zoneRedundant).toBe(true);
    expect(monthlyUsd({ ...production!, zoneRedundant: false }, 0, ru)['Cosmos DB request units']).toBeCloseTo(
      monthlyUsd(production!, 0, ru)['Cosmos DB request units'] ?? NaN,
    );
    expect(monthlyUsd(production!, 0, ru)['Front Door and WAF']).toBe(PRICES.frontDoorStandardBaseMonth);
    expect(monthlyUsd(trial!, 0, ru)['Front Door and WAF']).toBe(0);
  });

  it('states the log volume at 10 and 100 requests a second', () => {
    expect(logGbPerDay(10)).toBeCloseTo((10 * 86_400 * 2 * LOG_ROW_BYTES) / 1e9);
    expect(logGbPerDay(100)).toBeCloseTo(10 * logGbPerDay(10));
  });
});

describe('docs/operations.md', () => {
  it('shows exactly the tables `npm run cost` prints from the benchmarks', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const block = /<!-- cost-model:start[^>]*-->\n([\s\S]*?)\n<!-- cost-model:end -->/.exec(doc)?.[1];
    expect(block).toBeDefined();
    expect(block).toBe(costTablesFromDocs(ROOT));
  });

  it('states the prices with their source and date', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    expect(doc).toMatch(/Understand your Azure Cosmos DB bill/);
    expect(doc).toMatch(/as\s+of 2026-12-01/);
    expect(doc).toContain(`1 USD = ${PRICES.eurPerUsd} EUR`);
  });
});
