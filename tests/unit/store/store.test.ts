import { isPossibleId } from '../../../lib/store/store';

describe('isPossibleId', () => {
  it.each(['a/b', 'a\\b', 'a?b', 'a#b', '', ' ', '   ', '\t', 'x'.repeat(256)])(
    '%p cannot name a stored item',
    (id) => {
      expect(isPossibleId(id)).toBe(false);
    },
  );

  it.each(['0f8fad5b-d9cb-469f-a165-70867728950e', 'E1700000000000-1', 'a b', 'ümlaut', 'x'.repeat(255)])(
    '%p can',
    (id) => {
      expect(isPossibleId(id)).toBe(true);
    },
  );
});
