import { GraphError } from '@microsoft/microsoft-graph-client';
import { InvalidBackgroundWork, MAX_DEFERRALS, parseBackgroundWork } from '../../../lib/background/backgroundWork';
import { deferralFor } from '../../../lib/background/deferral';
import { encodeWork } from '../../../lib/background/workQueue';
import { DirectoryAccessError, DirectoryUnavailableError } from '../../../lib/directory/directoryClient';

const TENANT = '11111111-1111-4111-8111-111111111111';
const IMPORT_ID = '0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';

describe('background work messages', () => {
  it('accepts a unit, normalizing the tenant id, and round-trips through the queue encoding', () => {
    expect(parseBackgroundWork({ kind: 'pendingLinks', tenantId: TENANT.toUpperCase() })).toEqual({
      kind: 'pendingLinks',
      tenantId: TENANT,
    });
    const work = {
      kind: 'retention' as const,
      tenantId: TENANT,
      partition: `${TENANT}|src:Payroll`,
      after: '019a-id',
      deferrals: 2,
    };
    expect(parseBackgroundWork(JSON.parse(Buffer.from(encodeWork(work), 'base64').toString('utf8')))).toEqual(work);
  });

  it("accepts a step of a staged import's job in one of the tenant's custom sources", () => {
    const work = {
      kind: 'import' as const,
      tenantId: TENANT,
      partition: `${TENANT}|src:Payroll`,
      importId: IMPORT_ID,
      step: 3,
    };
    expect(parseBackgroundWork(JSON.parse(Buffer.from(encodeWork(work), 'base64').toString('utf8')))).toEqual(work);
  });

  it.each([
    ['not an object', 'pendingLinks', 'not a JSON object'],
    ['an array', [], 'not a JSON object'],
    ['an unknown kind', { kind: 'wipeEverything', tenantId: TENANT }, 'unknown kind'],
    ['a tenant that is not a GUID', { kind: 'pendingLinks', tenantId: 'VALUE-FROM-QUEUE' }, 'tenantId is not a GUID'],
    [
      'an overlong cursor',
      { kind: 'pendingLinks', tenantId: TENANT, after: 'x'.repeat(256) },
      'after is not an identity id',
    ],
    [
      'a cursor that is not a string',
      { kind: 'pendingLinks', tenantId: TENANT, after: 7 },
      'after is not an identity id',
    ],
    [
      'deferrals out of range',
      { kind: 'pendingLinks', tenantId: TENANT, deferrals: MAX_DEFERRALS + 1 },
      'deferrals is out of range',
    ],
    ['extra members', { kind: 'pendingLinks', tenantId: TENANT, VALUE_FROM_QUEUE: 1 }, 'unknown members'],
    [
      "another tenant's partition",
      { kind: 'retention', tenantId: TENANT, partition: '22222222-2222-4222-8222-222222222222|VALUE-FROM-QUEUE' },
      "partition is not one of the tenant's identity partitions",
    ],
    [
      'a partition on a pending-links unit',
      { kind: 'pendingLinks', tenantId: TENANT, partition: `${TENANT}|VALUE-FROM-QUEUE` },
      "partition is not one of the tenant's identity partitions",
    ],
    [
      'an import step without its partition',
      { kind: 'import', tenantId: TENANT, importId: IMPORT_ID, step: 0 },
      "partition is not one of the tenant's identity partitions",
    ],
    [
      "an import step in another tenant's source",
      {
        kind: 'import',
        tenantId: TENANT,
        partition: '22222222-2222-4222-8222-222222222222|src:VALUE',
        importId: IMPORT_ID,
        step: 0,
      },
      "partition is not one of the tenant's identity partitions",
    ],
    [
      'an import step outside custom sources',
      { kind: 'import', tenantId: TENANT, partition: `${TENANT}|VALUE-FROM-QUEUE`, importId: IMPORT_ID, step: 0 },
      "partition is not one of the tenant's identity partitions",
    ],
    [
      'an import step without an import id',
      { kind: 'import', tenantId: TENANT, partition: `${TENANT}|src:P`, importId: 'VALUE', step: 0 },
      'importId is not an import id',
    ],
    [
      'an import step out of range',
      { kind: 'import', tenantId: TENANT, partition: `${TENANT}|src:P`, importId: IMPORT_ID, step: -1 },
      'step is out of range',
    ],
    [
      'a cursor on an import step',
      { kind: 'import', tenantId: TENANT, partition: `${TENANT}|src:P`, importId: IMPORT_ID, step: 1, after: 'VALUE' },
      'unknown members',
    ],
    [
      'an import id on a retention unit',
      { kind: 'retention', tenantId: TENANT, importId: IMPORT_ID },
      'unknown members',
    ],
  ])('refuses %s without repeating the value', (_what, message, problem) => {
    let error: unknown;
    try {
      parseBackgroundWork(message);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidBackgroundWork);
    expect((error as Error).message).toBe(`Background work message refused: ${problem}`);
    expect((error as Error).message).not.toContain('VALUE');
    expect((error as Error).message).not.toContain('wipe');
  });
});

describe('deferral of a unit whose directory cannot answer now', () => {
  it('waits out a throttling directory for its Retry-After', () => {
    expect(deferralFor(new DirectoryUnavailableError(429, 7_000))).toEqual({ reason: 'throttled', seconds: 7 });
    expect(deferralFor(new DirectoryUnavailableError(429, 10))).toEqual({ reason: 'throttled', seconds: 1 });
  });

  it('waits at least a minute for an unavailable directory', () => {
    expect(deferralFor(new DirectoryUnavailableError(503, 5_000))).toEqual({ reason: 'unavailable', seconds: 60 });
    expect(deferralFor(new DirectoryUnavailableError(503, 120_000))).toEqual({ reason: 'unavailable', seconds: 120 });
  });

  it('treats a refused token or access as missing consent', () => {
    expect(deferralFor(new DirectoryAccessError())).toEqual({ reason: 'notConsented', seconds: 900 });
    expect(deferralFor(new GraphError(403, 'Insufficient privileges'))).toEqual({
      reason: 'notConsented',
      seconds: 900,
    });
    expect(deferralFor(new GraphError(401, 'Invalid token'))).toEqual({ reason: 'notConsented', seconds: 900 });
  });

  it('does not defer other failures (they are retried and end in the poison queue)', () => {
    expect(deferralFor(new Error('store down'))).toBeUndefined();
    expect(deferralFor(new GraphError(400, 'Bad request'))).toBeUndefined();
  });
});
