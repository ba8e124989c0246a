/**
 * The planners over the in-memory store: one pending-links unit per registered tenant, and one retention unit
 * per identities partition with sensitive data due (an empty store has none): the timers only plan.
 */
import { planPendingLinks, planRetention } from '../../../lib/background/planner';
import { TenantRegistry } from '../../../lib/tenants/tenantRegistry';
import { createMemoryStore } from '../../support/memoryStore';
import { RecordingQueue } from '../../support/recordingQueue';

const A = '11111111-1111-4111-8111-111111111111';
const B = '33333333-3333-4333-8333-333333333333';

describe('the planners', () => {
  it('plan one pending-links unit per registered tenant', async () => {
    const memory = createMemoryStore();
    const tenants = new TenantRegistry(memory.store);
    await tenants.register(A);
    await tenants.register(B);
    const queue = new RecordingQueue();
    await expect(planPendingLinks(tenants, queue)).resolves.toEqual({ units: 2 });
    expect(queue.messages.map((m) => m.work).sort((x, y) => x.tenantId.localeCompare(y.tenantId))).toEqual([
      { kind: 'pendingLinks', tenantId: A },
      { kind: 'pendingLinks', tenantId: B },
    ]);
    expect(memory.indexGaps()).toEqual([]);
  });

  it('plan no retention unit when no partition has anything due', async () => {
    const memory = createMemoryStore();
    const queue = new RecordingQueue();
    await expect(planRetention(memory.store, queue, 30)).resolves.toEqual({ units: 0 });
    expect(queue.messages).toEqual([]);
    expect(memory.indexGaps()).toEqual([]);
  });
});
