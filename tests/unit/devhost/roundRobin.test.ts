/** The front's choice of instance: the live ones in turn, with no stickiness; a dead one leaves the turn at once. */
import { RoundRobin } from '../../../devhost/roundRobin';

const picks = (rr: RoundRobin<string>, n: number) => Array.from({ length: n }, () => rr.pick());

describe('round-robin picking', () => {
  it('gives each live instance the next request in turn, evenly', () => {
    const rr = new RoundRobin(['a', 'b', 'c']);
    expect(picks(rr, 7)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  it('none live: no pick; an instance added joins the turn once', () => {
    const rr = new RoundRobin<string>();
    expect(rr.pick()).toBeUndefined();
    rr.add('a');
    rr.add('a');
    expect(picks(rr, 2)).toEqual(['a', 'a']);
  });

  it.each([
    ['a', ['c', 'b', 'c', 'b']],
    ['b', ['c', 'a', 'c', 'a']],
    ['c', ['a', 'b', 'a', 'b']],
  ])('after a and b were picked, %s dies: never picked again, and the turn goes on from where it was', (gone, next) => {
    const rr = new RoundRobin(['a', 'b', 'c']);
    expect(picks(rr, 2)).toEqual(['a', 'b']);
    rr.remove(gone);
    expect(rr.live).not.toContain(gone);
    expect(picks(rr, 4)).toEqual(next);
  });

  it('removing the last one in turn wraps to the first; removing all leaves nothing to pick', () => {
    const rr = new RoundRobin(['a', 'b', 'c']);
    picks(rr, 2); // a, b: c is next
    rr.remove('c');
    expect(picks(rr, 3)).toEqual(['a', 'b', 'a']);
    rr.remove('a');
    rr.remove('b');
    rr.remove('x');
    expect(rr.pick()).toBeUndefined();
  });

  it('after a removal, the survivors share the requests evenly', () => {
    const rr = new RoundRobin([1, 2, 3]);
    for (let i = 0; i < 5; i++) rr.pick();
    rr.remove(2);
    const counts = new Map<number, number>();
    for (let i = 0; i < 100; i++) {
      const m = rr.pick()!;
      counts.set(m, (counts.get(m) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({ 1: 50, 3: 50 });
  });
});
