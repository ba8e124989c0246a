import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey, type IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { uuid7 } from '../../lib/util/uuid7';
import { JUMP_IDS_PER_REQUEST } from '../../lib/scim/userList';

describe('a SCIM page without a cursor pays for the ids it reads', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { SCIM_RATE_LIMIT_PER_SECOND: '1' } });
  });
  afterAll(async () => stack?.stop());

  it('a jump past 3,400 Users counts as 3 more requests of the integration: its next request waits (429, Retry-After)', async () => {
    const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!;
    const pk = partitionKey(DEV_TENANT_ID, integration.id);
    const now = new Date().toISOString();
    const start = Date.now();
    const docs: IdentityDoc[] = Array.from({ length: 3500 }, (_, i) =>
      newIdentityDoc({
        id: uuid7(start + i),
        tenantId: DEV_TENANT_ID,
        sourceKind: 'scim',
        sourceKey: integration.id,
        attributes: {
          externalId: `jump-${i}`,
          userName: `jump.${i}@example.com`,
          givenName: 'Jump',
          familyName: `Person${i}`,
          active: true,
          affiliationType: 'employment',
          personalNumbers: [],
          identityDocumentReferences: [],
        },
        now,
      }),
    );
    const items = services().store.collection<IdentityDoc>('identities');
    for (let i = 0; i < docs.length; i += 100)
      expect(await items.batchCreate(pk, docs.slice(i, i + 100))).not.toContain('conflict');

    const token = await stack.token(DEV_CLIENTS.scim);
    // The bucket holds 2 (twice the rate): this request takes one, and its jump reads 3,399 ids.
    const jump = await call<{ Resources: unknown[] }>(`${stack.base}/scim/v2/Users?startIndex=3400&count=1`, { token });
    expect(jump.status).toBe(200);
    expect(jump.body.Resources).toHaveLength(1);
    expect(Math.floor(3399 / JUMP_IDS_PER_REQUEST)).toBe(3);
    const next = await call(`${stack.base}/scim/v2/Users?count=0`, { token });
    expect(next.status).toBe(429);
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
