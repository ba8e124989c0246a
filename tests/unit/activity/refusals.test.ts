import { CONTAINERS } from '../../../lib/store/containers';
import type { Store } from '../../../lib/store/store';
import { StoreError } from '../../../lib/store/errors';
import { createLogger } from '../../../lib/log/logger';
import {
  MAX_DETAIL_BYTES,
  RefusalLog,
  operationOf,
  recordableExternalId,
  refusalDoc,
  type Refusal,
} from '../../../lib/activity/refusals';
import { createCharge, indexTerms } from '../../../devhost/cosmos/requestCharge';
import { expiresAt } from '../../../devhost/cosmos/expiry';

const TENANT = '11111111-1111-4111-8111-111111111111';
const INTEGRATION = '0190aaaa-0000-7000-8000-000000000001';
const NOW = Date.parse('2026-03-01T08:00:10.000Z');

const refusal = (more: Partial<Refusal> = {}): Refusal => ({
  tenantId: TENANT,
  integrationId: INTEGRATION,
  method: 'POST',
  namedUser: false,
  status: 400,
  scimType: 'invalidValue',
  detail: 'personalNumbers[0].value is not a valid CPR number',
  body: { externalId: 'E-1001', userName: 'anna', personalNumbers: [{ type: 'DkCpr', value: '3213901234' }] },
  correlationId: 'c0ffee00-0000-4000-8000-000000000001',
  ...more,
});

/** As the store keeps it: with the system properties Cosmos DB adds to every item. */
const stored = (doc: object) => ({
  ...doc,
  _rid: 'AAAAAAAAAAAAAAAAAAAAAA==',
  _self: 'dbs/AAAAAA==/colls/AAAAAAAAAAA=/docs/AAAAAAAAAAAAAAAAAAAAAA==/',
  _etag: '"00000000-0000-0000-0000-000000000000"',
  _attachments: 'attachments/',
  _ts: 1_772_352_010,
});

describe('refused request records', () => {
  it('keep the operation, status, scimType, detail, externalId and correlation id: nothing else of the request', () => {
    const doc = refusalDoc(refusal(), NOW, 30);
    expect(doc).toEqual({
      id: expect.stringMatching(/^2026-03-01T08:00:10\.000Z\|[0-9a-f]{12}$/),
      pk: `${TENANT}|${INTEGRATION}`,
      kind: 'refusal',
      operation: 'POST /Users',
      status: 400,
      scimType: 'invalidValue',
      detail: 'personalNumbers[0].value is not a valid CPR number',
      externalId: 'E-1001',
      correlationId: 'c0ffee00-0000-4000-8000-000000000001',
      ttl: 30 * 86_400,
    });
    expect(JSON.stringify(doc)).not.toContain('3213901234');
  });

  it('names the operation, never the URL', () => {
    expect(operationOf('patch', true)).toBe('PATCH /Users/{id}');
    expect(operationOf('GET', false)).toBe('GET /Users');
    expect(operationOf('TRACE', true)).toBe('OTHER /Users/{id}');
  });

  it('masks a six-digit run in the externalId it keeps, as every echo of the service does', () => {
    expect(recordableExternalId({ externalId: '010190-4321' })).toBe('******-****');
    expect(recordableExternalId({ externalId: 'E-1001' })).toBe('E-1001');
    const doc = refusalDoc(refusal({ body: { externalId: 'emp 0101904321' } }), NOW, 30);
    expect(JSON.stringify(doc)).not.toContain('0101904321');
    expect(doc.externalId).toBe('emp **********');
  });

  it('keeps an externalId only when it is a string of bounded length, and an identity id only when it is an id', () => {
    expect(recordableExternalId({ externalId: 'x'.repeat(256) })).toBe('x'.repeat(256));
    expect(recordableExternalId({ externalId: 'x'.repeat(257) })).toBeUndefined();
    expect(recordableExternalId({ externalId: 'æ'.repeat(200) })).toBeUndefined(); // 400 bytes
    for (const body of [undefined, null, 'text', [1], { externalId: 7 }, { externalId: '' }])
      expect(recordableExternalId(body)).toBeUndefined();
    const id = '0190ABCD-0000-7000-8000-000000000009';
    expect(refusalDoc(refusal({ namedUser: true, identityId: id }), NOW, 30).identityId).toBe(id.toLowerCase());
    expect(refusalDoc(refusal({ namedUser: true, identityId: '0101901234' }), NOW, 30)).not.toHaveProperty(
      'identityId',
    );
  });

  it('write for at most 6 RU in the local engine, the largest record included', () => {
    const policy = CONTAINERS.activity.indexingPolicy;
    const largest = refusalDoc(
      refusal({
        method: 'DELETE',
        namedUser: true,
        identityId: '0190abcd-0000-7000-8000-000000000009',
        detail: 'd’'.repeat(500),
        body: { externalId: 'e'.repeat(256) },
        correlationId: 'k'.repeat(64),
      }),
      NOW,
      3650,
    );
    expect(Buffer.byteLength(largest.detail)).toBeLessThanOrEqual(MAX_DETAIL_BYTES);
    expect(largest.detail.endsWith('…')).toBe(true);
    expect(indexTerms(stored(largest), policy)).toHaveLength(4); // id, pk, externalId, the composite
    expect(createCharge(stored(largest), policy)).toBeLessThanOrEqual(6);
    const smallest = refusalDoc(refusal({ body: undefined }), NOW, 30);
    expect(createCharge(stored(smallest), policy)).toBeLessThan(createCharge(stored(largest), policy));
  });

  it('expire after the retention days (the container has time to live on, so the item ttl applies)', () => {
    expect(CONTAINERS.activity.defaultTtl).toBe(-1);
    const doc = stored(refusalDoc(refusal(), NOW, 30));
    expect(expiresAt(doc, CONTAINERS.activity.defaultTtl)).toBe((doc._ts + 30 * 86_400) * 1000);
    // Without a default on the container an item's ttl would be ignored.
    expect(expiresAt(doc, undefined)).toBeUndefined();
  });
});

describe('RefusalLog', () => {
  const logs: string[] = [];
  const log = createLogger((_level, line) => logs.push(line));

  function fakeStore(fail = false) {
    const created: Array<Record<string, unknown>> = [];
    const upserted: Array<Record<string, unknown>> = [];
    const store = {
      collection: () => ({
        create: async (doc: Record<string, unknown>) => {
          if (fail) throw new StoreError('unavailable', 'down', 1000);
          created.push(doc);
          return doc;
        },
        upsert: async (doc: Record<string, unknown>) => {
          upserted.push(doc);
          return doc;
        },
      }),
    } as unknown as Store;
    return { store, created, upserted };
  }

  it('records at most the limit per integration per minute and counts the rest in one summary', async () => {
    let now = NOW;
    const { store, created, upserted } = fakeStore();
    const refusals = new RefusalLog(store, { retentionDays: 30, perMinute: 3 }, () => now, 20);
    for (let i = 0; i < 10; i++) await refusals.record(refusal(), log);
    await refusals.record(refusal({ integrationId: '0190aaaa-0000-7000-8000-000000000002' }), log);
    expect(created).toHaveLength(4); // three of the first integration, one of the other
    await new Promise((r) => setTimeout(r, 100));
    const last = upserted[upserted.length - 1];
    expect(last).toMatchObject({ kind: 'refusalCount', count: 7, pk: `${TENANT}|${INTEGRATION}`, ttl: 30 * 86_400 });
    // Written at once for the first, then at most once per flush interval: not once per refusal.
    expect(upserted.length).toBeLessThanOrEqual(3);
    now += 60_000; // the next minute records again
    await refusals.record(refusal(), log);
    expect(created).toHaveLength(5);
  });

  it("records at most its share of the tenant's bound over all the tenant's integrations, the rest in one summary of the tenant", async () => {
    const { store, created, upserted } = fakeStore();
    const asked: string[] = [];
    // This instance has half of the fleet's bound of 8 a minute: 4.
    const half = { fraction: (budget: string, key: string) => (asked.push(`${budget} ${key}`), 1 / 2) };
    const refusals = new RefusalLog(
      store,
      { retentionDays: 30, perMinute: 3, tenantPerMinute: 8 },
      () => NOW,
      20,
      half,
    );
    const integrations = Array.from({ length: 10 }, (_, i) => `0190aaaa-0000-7000-8000-0000000000${10 + i}`);
    for (const integrationId of integrations) await refusals.record(refusal({ integrationId }), log);
    expect(created).toHaveLength(4);
    expect(asked).toContain(`refusal-records ${TENANT}`);
    await new Promise((r) => setTimeout(r, 100));
    const summaries = upserted.filter((d) => d.scope === 'tenant');
    expect(summaries[summaries.length - 1]).toMatchObject({
      kind: 'refusalCount',
      count: 6,
      pk: `${TENANT}|${integrations[4]}`,
    });
    // Another tenant has its own bound.
    await refusals.record(refusal({ tenantId: '22222222-2222-4222-8222-222222222222' }), log);
    expect(created).toHaveLength(5);
  });

  it('never fails the caller when the store fails, and logs no value', async () => {
    logs.length = 0;
    const { store } = fakeStore(true);
    const refusals = new RefusalLog(store, { retentionDays: 30, perMinute: 3 }, () => NOW);
    await expect(refusals.record(refusal(), log)).resolves.toBeUndefined();
    expect(logs.join('\n')).toContain('refused request not recorded');
    expect(logs.join('\n')).not.toMatch(/E-1001|3213901234/);
  });
});
