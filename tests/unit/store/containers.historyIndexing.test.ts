/**
 * The identities container does not index an identity's history: a full history of 50 changes adds its
 * bytes to a write, never an index term.
 */
import { CONTAINERS } from '../../../lib/store/containers';
import { newIdentityDoc } from '../../../lib/identities/rules';
import { appendEntry, MAX_HISTORY } from '../../../lib/identities/history';
import type { IdentityDoc } from '../../../lib/identities/model';
import type { Json } from '../../../devhost/cosmos/library';
import { createCharge, indexTerms, writeChargeOfSize } from '../../../devhost/cosmos/requestCharge';

describe('identities container indexing', () => {
  it('a full history adds no index term', () => {
    const doc = newIdentityDoc({
      id: '0190f5a2-1111-7000-8000-000000000001',
      tenantId: 't',
      sourceKind: 'scim',
      sourceKey: 'i',
      attributes: {
        externalId: 'E1',
        userName: 'anna',
        givenName: 'Anna',
        familyName: 'Berg',
        active: true,
        affiliationType: 'employment',
        personalNumbers: [],
        identityDocumentReferences: [],
      },
      now: '2026-01-01T00:00:00.000Z',
    });
    let withHistory: IdentityDoc = doc;
    for (let n = 0; n < MAX_HISTORY + 5; n++)
      withHistory = {
        ...withHistory,
        ...appendEntry(withHistory, {
          at: new Date(Date.parse(doc.created) + n).toISOString(),
          actor: { kind: 'integration', id: '0190f5a2-2222-7000-8000-000000000002' },
          operation: 'PATCH',
          changedAttributes: ['name.givenName', 'personalNumbers'],
        }),
      };
    const policy = CONTAINERS.identities.indexingPolicy;
    const json = (d: IdentityDoc) => JSON.parse(JSON.stringify(d)) as Json;
    expect(indexTerms(json(withHistory), policy).sort()).toEqual(indexTerms(json(doc), policy).sort());
    expect(indexTerms(json(withHistory), policy).some((t) => t.startsWith('history'))).toBe(false);
    // What a full history costs a write: its bytes only (stored compactly, about 1 KB: 6.4 RU to create instead of 5.0).
    const bytes = (d: unknown) => Buffer.byteLength(JSON.stringify(d));
    expect(bytes(withHistory) - bytes(doc)).toBeLessThan(MAX_HISTORY * 25);
    expect(createCharge(json(withHistory), policy) - createCharge(json(doc), policy)).toBeCloseTo(
      writeChargeOfSize(bytes(withHistory)) - writeChargeOfSize(bytes(doc)),
      6,
    );
  });
});
