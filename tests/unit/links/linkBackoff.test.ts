import { afterUnchangedCheck, backoffSeconds, isDue, withoutBackoff } from '../../../lib/links/linkBackoff';
import { afterLookup } from '../../../lib/links/linkStateMachine';

const policy = { baseSeconds: 300, maxSeconds: 14_400 };
const now = new Date('2026-01-01T00:00:00.000Z');

describe('back-off of identities that stay pending or in conflict', () => {
  it('doubles from the base up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffSeconds(n, policy))).toEqual([
      300, 600, 1200, 2400, 4800, 9600, 14_400, 14_400,
    ]);
    expect(backoffSeconds(0, policy)).toBe(0);
    expect(backoffSeconds(5, { baseSeconds: 0, maxSeconds: 14_400 })).toBe(0);
  });

  it('each unchanged check counts and moves the next check; the link is otherwise kept', () => {
    const first = afterUnchangedCheck({ status: 'pending', lookedUpUpn: 'a@x.example' }, policy, now);
    expect(first).toEqual({
      status: 'pending',
      lookedUpUpn: 'a@x.example',
      checks: 1,
      nextCheckAt: '2026-01-01T00:05:00.000Z',
    });
    const second = afterUnchangedCheck(first, policy, now);
    expect(second).toMatchObject({ checks: 2, nextCheckAt: '2026-01-01T00:10:00.000Z' });
    const conflict = afterUnchangedCheck(
      { status: 'conflict', lookedUpUpn: 'a@x.example', conflictUserId: 'u1' },
      policy,
      now,
    );
    expect(conflict).toMatchObject({ status: 'conflict', conflictUserId: 'u1', checks: 1 });
  });

  it('is due without a next-check time or once it has passed', () => {
    expect(isDue({ status: 'pending' }, now)).toBe(true);
    expect(isDue({ status: 'pending', nextCheckAt: '2026-01-01T00:00:00.000Z' }, now)).toBe(true);
    expect(isDue({ status: 'pending', nextCheckAt: '2026-01-01T00:00:00.001Z' }, now)).toBe(false);
  });

  it('starts again when the back-off is dropped or the UPN changes', () => {
    const backedOff = afterUnchangedCheck(
      afterUnchangedCheck({ status: 'conflict', lookedUpUpn: 'a@x.example', conflictUserId: 'u1' }, policy, now),
      policy,
      now,
    );
    expect(withoutBackoff(backedOff)).toEqual({ status: 'conflict', lookedUpUpn: 'a@x.example', conflictUserId: 'u1' });
    expect(afterLookup(backedOff, 'b@x.example', { kind: 'notFound' }, undefined).link).toEqual({
      status: 'pending',
      lookedUpUpn: 'b@x.example',
      upnKey: 'b@x.example',
    });
  });
});
