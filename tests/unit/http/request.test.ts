import { isSafeCorrelationId } from '../../../lib/http/request';

describe('isSafeCorrelationId', () => {
  it.each(['job-42.run:7', 'a1b2c3', 'HR_nightly-2026', '0f1e2d3c-4b5a'])('keeps %s', (id) =>
    expect(isSafeCorrelationId(id)).toBe(true),
  );

  it.each([
    ['a personal number', '0101901234'],
    ['a dashed one', '010190-1234'],
    ['one written with a dot', '010190.1234'],
    ['one written with an underscore', '010190_1234'],
    ['one written with colons', '01:01:90:12:34'],
    ['a birth date', 'run-01.01.90'],
    ['six digits', 'x123456'],
    ['markup', '<b>'],
    ['a space', 'a b'],
    ['an over-long id', 'a'.repeat(65)],
    ['nothing', ''],
  ])('refuses %s', (_what, id) => expect(isSafeCorrelationId(id)).toBe(false));
});
