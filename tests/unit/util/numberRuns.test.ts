import { hasNumberRun, maskNumberRuns } from '../../../lib/util/numberRuns';

describe('hasNumberRun', () => {
  it.each([
    '0101901234',
    '010190-1234',
    '010190.1234',
    '010190_1234',
    '010190:1234',
    '01 01 90 1234',
    '01.01.90',
    'id-0101-90',
    'run/01/01/90/x',
    '０１０１９０１２３４',
    'a1.2.3.4.5.6b',
    'HR-2026-07',
  ])('finds the run in %s', (text) => expect(hasNumberRun(text)).toBe(true));

  it.each(['', 'abc', '12345', '1234-5', 'a1b2c3d4e5f6', 'v2.0.15', 'x12345y67890'])('finds none in %s', (text) =>
    expect(hasNumberRun(text)).toBe(false),
  );
});

describe('maskNumberRuns', () => {
  it.each([
    ['010190-4321', '******-****'],
    ['E-0101901234', 'E-**********'],
    ['01 01 90 1234 and 020290.4321', '** ** ** **** and ******.****'],
    ['０１０１９０１２３４', '**********'],
    ['E1001', 'E1001'],
    ['HR-12345-x', 'HR-12345-x'],
  ])('masks %s as %s', (text, masked) => {
    expect(maskNumberRuns(text)).toBe(masked);
    expect(hasNumberRun(maskNumberRuns(text))).toBe(false);
  });
});
