import { BodyBytesBudget } from '../../../lib/limits/bodyBytes';

describe('BodyBytesBudget', () => {
  it("holds a tenant's bytes up to its share, while other tenants still get the rest of the instance's budget", () => {
    const budget = new BodyBytesBudget(100, 40);
    const a1 = budget.hold('A');
    const a2 = budget.hold('A');
    expect(a1.grow(30)).toBe(true);
    expect(a2.grow(10)).toBe(true);
    // A's share is full: another byte of A is refused, and nothing of it is held.
    expect(a2.grow(1)).toBe(false);
    expect(budget.held('A')).toBe(40);
    const b = budget.hold('B');
    expect(b.grow(40)).toBe(true);
    const c = budget.hold('C');
    expect(c.grow(21)).toBe(false);
    expect(c.grow(20)).toBe(true);
    expect(budget.held()).toBe(100);
    a1.release();
    expect(budget.held('A')).toBe(10);
    expect(budget.held()).toBe(70);
    expect(budget.hold('A').grow(30)).toBe(true);
  });

  it('gives back everything a hold took, once', () => {
    const budget = new BodyBytesBudget(100, 50);
    const hold = budget.hold('A');
    expect(hold.grow(20)).toBe(true);
    expect(hold.grow(25)).toBe(true);
    hold.release();
    hold.release();
    expect(budget.held()).toBe(0);
    expect(budget.held('A')).toBe(0);
    expect(budget.hold('A').grow(50)).toBe(true);
  });
});
