import { applyLinkEffects, type LinkAuditAction } from '../../../lib/links/linkEffects';
import { afterManualClaim } from '../../../lib/links/linkStateMachine';

describe('applyLinkEffects', () => {
  it('hands each effect to the handler of its kind, one after the other, in order', async () => {
    const done: string[] = [];
    let releasing = false;
    await applyLinkEffects(
      [
        { kind: 'releaseClaim', userId: 'u-1' },
        { kind: 'audit', action: 'link.manualReplacedByAsserted' },
        { kind: 'releaseClaim', userId: 'u-2' },
      ],
      {
        releaseClaim: async (userId) => {
          expect(releasing).toBe(false);
          releasing = true;
          await new Promise((resolve) => setTimeout(resolve, 5));
          done.push(`release ${userId}`);
          releasing = false;
        },
        audit: (action: LinkAuditAction) => {
          expect(releasing).toBe(false);
          done.push(`audit ${action}`);
        },
      },
    );
    expect(done).toEqual(['release u-1', 'audit link.manualReplacedByAsserted', 'release u-2']);
  });

  it('stops at a handler that fails: later effects are not applied', async () => {
    const done: string[] = [];
    await expect(
      applyLinkEffects(
        [
          { kind: 'releaseClaim', userId: 'u-1' },
          { kind: 'audit', action: 'link.unlinked' },
        ],
        {
          releaseClaim: () => Promise.reject(new Error('store down')),
          audit: (action) => {
            done.push(action);
          },
        },
      ),
    ).rejects.toThrow('store down');
    expect(done).toEqual([]);
  });

  it('applies what the state machine plans for a manual link that replaces another user', async () => {
    const previous = { status: 'linked' as const, source: 'asserted' as const, userId: 'old-user' };
    const transition = afterManualClaim(previous, 'new-user', 'claimed');
    if (transition === 'heldByOther') throw new Error('the claim was taken');
    const done: string[] = [];
    await applyLinkEffects(transition.effects, {
      releaseClaim: async (userId) => {
        done.push(`release ${userId}`);
      },
      audit: (action) => {
        done.push(action);
      },
    });
    expect(done).toEqual(['release old-user', 'link.manualLinked']);
  });
});
