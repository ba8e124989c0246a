import { startTestStack, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { ORPHAN_GRACE_MS } from '../../lib/links/claims';

/** Claims left behind by a crash between the claim and the identity write (or the identity delete and the release). */
describe('link claims and background runs: orphans are repaired, nothing is starved', () => {
  let stack: TestStack;
  const gone = { pk: `${DEV_TENANT_ID}|scim:no-such-integration`, id: 'no-such-identity' };
  const later = (ms: number) => new Date(Date.now() + ms);

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  const claimIds = async (): Promise<string[]> =>
    (
      await services()
        .store.collection('links')
        .queryAll<{ id: string }>({ query: 'SELECT c.id FROM c WHERE IS_DEFINED(c.claimedAt)' })
    )
      .map((c) => c.id)
      .sort();

  it('a claim whose identity is gone blocks nobody after the grace period, and is respected within it', async () => {
    const { claims } = services();
    const userId = 'zz-orphan-takeover';
    expect(await claims.claim(DEV_TENANT_ID, userId, gone)).toBe('claimed');
    const other = { pk: `${DEV_TENANT_ID}|scim:another`, id: 'another-identity' };
    // Within the grace period the first identity's write may still be under way.
    expect(await claims.claim(DEV_TENANT_ID, userId, other, later(ORPHAN_GRACE_MS / 2))).toBe('heldByOther');
    expect(await claims.claim(DEV_TENANT_ID, userId, other, later(ORPHAN_GRACE_MS + 1000))).toBe('claimed');
    expect((await claims.get(DEV_TENANT_ID, userId))?.identityId).toBe(other.id);
    await claims.release(DEV_TENANT_ID, userId, other);
    expect(await claims.get(DEV_TENANT_ID, userId)).toBeUndefined();
  });

  it('repair goes on where the last run stopped: healthy claims first in order never hide the orphans behind them', async () => {
    const { claims } = services();
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    // Two live links (their claims carry directory object ids, GUIDs) ...
    for (const upn of ['alice@dev.example.com', 'bob@dev.example.com']) {
      const res = await api.create(userBody({}, { directoryUserPrincipalName: upn }));
      expect(res.body[EXT]?.directoryLinkStatus).toBe('linked');
    }
    const live = await claimIds();
    expect(live).toHaveLength(2);
    // ... and three orphans whose ids sort after every GUID.
    const orphans = ['zz-orphan-1', 'zz-orphan-2', 'zz-orphan-3'];
    for (const id of orphans) expect(await claims.claim(DEV_TENANT_ID, id, gone)).toBe('claimed');

    const now = later(ORPHAN_GRACE_MS + 1000);
    // Two claims a run: the first run sees only the two healthy claims; the next ones reach the orphans.
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await claims.repairOrphans(2, now));
    expect(runs.map((r) => r.removed)).toEqual([0, 2, 1]);
    expect(runs.map((r) => r.examined)).toEqual([2, 2, 1]);
    expect(await claimIds()).toEqual(live);

    // The last run wrapped around: the next one starts again from the beginning and removes nothing healthy.
    expect(await claims.repairOrphans(2, now)).toEqual({ examined: 2, removed: 0 });
    expect(await claimIds()).toEqual(live);
  });

  it('claims younger than the grace period are not examined', async () => {
    const { claims } = services();
    expect(await claims.claim(DEV_TENANT_ID, 'zz-orphan-young', gone)).toBe('claimed');
    for (let i = 0; i < 3; i++) await claims.repairOrphans(10);
    expect(await claims.get(DEV_TENANT_ID, 'zz-orphan-young')).toBeDefined();
  });
});
