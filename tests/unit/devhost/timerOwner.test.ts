/** Which instance of the local fleet runs the timers: one at a time, kept while it lives, a survivor after. */
import { timerOwner } from '../../../devhost/timerOwner';

describe('timer owner', () => {
  it('the first live instance takes the timers when nobody has them', () => {
    expect(timerOwner([1, 2, 3], undefined)).toBe(1);
  });

  it('the owner keeps them while it lives, whoever else comes or goes', () => {
    expect(timerOwner([1, 2, 3], 2)).toBe(2);
    expect(timerOwner([2, 3], 2)).toBe(2);
    expect(timerOwner([3, 2, 4], 2)).toBe(2);
  });

  it('when the owner dies, the first survivor (in start order) takes them; none when none lives', () => {
    expect(timerOwner([2, 3], 1)).toBe(2);
    expect(timerOwner([3], 2)).toBe(3);
    expect(timerOwner([], 3)).toBeUndefined();
  });
});
