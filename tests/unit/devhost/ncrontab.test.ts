import { parseNcrontab, resolveAppSettingExpression } from '../../../devhost/ncrontab';

describe('NCRONTAB', () => {
  it('matches six-field schedules', () => {
    const every5 = parseNcrontab('0 */5 * * * *');
    expect(every5.matches(new Date(2026, 0, 1, 10, 5, 0))).toBe(true);
    expect(every5.matches(new Date(2026, 0, 1, 10, 6, 0))).toBe(false);
    expect(every5.matches(new Date(2026, 0, 1, 10, 5, 1))).toBe(false);
    const daily = parseNcrontab('0 0 2 * * *');
    expect(daily.matches(new Date(2026, 0, 1, 2, 0, 0))).toBe(true);
    expect(parseNcrontab('0 0 9 * * 1-5').matches(new Date(2026, 10, 22, 9, 0, 0))).toBe(false); // a Sunday
    expect(parseNcrontab('0 0 9 * * 1,3').matches(new Date(2026, 10, 23, 9, 0, 0))).toBe(true); // a Monday
  });

  it('rejects malformed expressions', () => {
    for (const bad of ['* * * * *', '61 * * * * *', '*/0 * * * * *', 'a * * * * *'])
      expect(() => parseNcrontab(bad)).toThrow();
  });

  it('resolves %SETTING% binding expressions', () => {
    expect(resolveAppSettingExpression('%S%', { S: '0 0 1 * * *' })).toBe('0 0 1 * * *');
    expect(() => resolveAppSettingExpression('%MISSING%', {})).toThrow(/MISSING/);
  });
});
