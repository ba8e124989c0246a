import fc from 'fast-check';
import { ISO_3166_ALPHA2_CODES } from '../../../lib/identities/countries';
import {
  cprBirthDate,
  isIso3166Alpha2,
  isPlausibleEmail,
  isValidLocalDate,
  normalizeCountryCode,
  normalizeCpr,
  normalizeE164,
} from '../../../lib/identities/formats';

describe('normalizeCpr', () => {
  it.each([
    ['0101901234', '0101901234'],
    ['010190-1234', '0101901234'],
    ['290224-4123', '2902244123'], // 7th digit 4, YY 24 -> 2024, leap year
    ['2902244123', '2902244123'],
    ['290200-4123', '2902004123'], // 7th digit 4 -> 2000, leap year (divisible by 400)
    ['290200-5123', '2902005123'], // 7th digit 5, YY 00 -> 2000
    ['311299-0000', '3112990000'],
    ['300499-1234', '3004991234'],
    ['290296-2123', '2902962123'], // 1996 leap year
    ['290204-9123', '2902049123'], // 7th digit 9, YY 04 -> 2004
    ['290260-5123', '2902605123'], // 7th digit 5, YY 60 -> 1860, leap year
  ])('accepts %s', (input, expected) => {
    expect(normalizeCpr(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['290223-4123', '29 Feb 2023 does not exist'],
    ['290223-0123', '29 Feb 1923 does not exist'],
    ['290223-5123', '29 Feb 2023 does not exist'],
    ['290200-0123', '7th digit 0 -> 1900, not a leap year'],
    ['290200-3123', '7th digit 3 -> 1900, not a leap year'],
    ['310499-1234', 'April has 30 days'],
    ['000000-0000', 'day 0'],
    ['0000000000', 'day 0 without dash'],
    ['001090-1234', 'day 0'],
    ['320190-1234', 'day 32'],
    ['011390-1234', 'month 13'],
    ['010090-1234', 'month 0'],
  ])('rejects %s (%s)', (input) => {
    expect(normalizeCpr(input).ok).toBe(false);
  });

  describe('century from the 7th digit', () => {
    it.each([
      ['010100-0000', '1900-01-01'],
      ['010199-3999', '1999-01-01'],
      ['010136-4000', '2036-01-01'],
      ['010137-4000', '1937-01-01'],
      ['010136-9000', '2036-01-01'],
      ['010137-9000', '1937-01-01'],
      ['010199-9000', '1999-01-01'],
      ['010157-5000', '2057-01-01'],
      ['010158-5000', '1858-01-01'],
      ['010157-8000', '2057-01-01'],
      ['010158-8000', '1858-01-01'],
      ['311299-6000', '1899-12-31'],
      ['0101005000', '2000-01-01'],
    ])('cprBirthDate(%s) -> %s', (input, expected) => {
      expect(cprBirthDate(input)).toEqual({ ok: true, value: expected });
    });

    // 1900 is not a leap year but 2000 is, so 29 Feb YY 00 shows which century was chosen.
    it.each([
      ['290200-0000', false],
      ['290200-3000', false],
      ['290200-4000', true],
      ['290200-5000', true],
      ['290200-8000', true],
      ['290200-9000', true],
    ])('normalizeCpr(%s).ok -> %s', (input, ok) => {
      expect(normalizeCpr(input).ok).toBe(ok);
    });

    it('cprBirthDate rejects what normalizeCpr rejects', () => {
      expect(cprBirthDate('290223-4123').ok).toBe(false);
      expect(cprBirthDate('0101-901234').ok).toBe(false);
    });
  });

  it.each([
    ['', 'empty'],
    ['010190123', '9 digits'],
    ['01019012345', '11 digits'],
    ['010190-12345', '11 digits with dash'],
    ['01019-01234', 'dash in the wrong place'],
    ['0101901-234', 'dash in the wrong place'],
    ['010190--1234', 'two dashes'],
    ['01-0190-1234', 'two dashes'],
    ['010190 1234', 'space'],
    [' 0101901234', 'leading space'],
    ['0101901234 ', 'trailing space'],
    ['01019O1234', 'letter O'],
    ['010190-123a', 'letter'],
    ['０１０１９０１２３４', 'full-width digits'],
    ['010190\u20131234', 'en dash'],
  ])('rejects shape %j (%s)', (input) => {
    expect(normalizeCpr(input).ok).toBe(false);
  });

  it('does not apply the modulus-11 check', () => {
    // 0101901234 fails modulus 11; it must still be accepted.
    expect(normalizeCpr('0101901234').ok).toBe(true);
  });

  it('never includes the input in the reason', () => {
    const result = normalizeCpr('310499-1234');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).not.toContain('310499');
      expect(result.reason).not.toContain('1234');
      expect(result.reason).toMatch(/CPR/);
    }
  });

  it('reasons are fixed strings for arbitrary input', () => {
    const reasons = new Set<string>();
    fc.assert(
      fc.property(fc.string(), (input) => {
        const result = normalizeCpr(input);
        if (!result.ok) reasons.add(result.reason);
      }),
    );
    expect(reasons.size).toBeLessThanOrEqual(1);
  });
});

describe('isValidLocalDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2000-02-29', true],
    ['1900-02-29', false],
    ['2023-02-28', true],
    ['2023-13-01', false],
    ['2023-00-10', false],
    ['2023-04-31', false],
    ['2023-04-30', true],
    ['2023-12-31', true],
    ['2023-01-32', false],
    ['2023-01-00', false],
    ['2023-1-01', false],
    ['2023-01-1', false],
    ['23-01-01', false],
    ['0000-01-01', false],
    ['0001-01-01', true],
    ['9999-12-31', true],
    ['10000-01-01', false],
    ['2023/01/01', false],
    ['2023-01-01T00:00:00Z', false],
    [' 2023-01-01', false],
    ['', false],
  ])('%j -> %s', (input, expected) => {
    expect(isValidLocalDate(input)).toBe(expected);
  });
});

describe('normalizeE164', () => {
  it.each([
    ['+4512345678', true],
    ['+1', true],
    ['+123456789012345', true], // 15 digits
    ['+1234567890123456', false], // 16 digits
    ['4512345678', false],
    ['+45 1234', false],
    ['+45-12345678', false],
    ['+0123456', false],
    ['+', false],
    ['++4512345678', false],
    ['+4512345678 ', false],
    ['+45(0)12345678', false],
    ['', false],
  ])('%j -> %s', (input, ok) => {
    const result = normalizeE164(input);
    expect(result.ok).toBe(ok);
    if (result.ok) expect(result.value).toBe(input);
  });

  it('never includes the input in the reason', () => {
    const result = normalizeE164('+45 98765');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toContain('98765');
  });
});

describe('countries', () => {
  it('holds exactly the 249 officially assigned ISO 3166-1 alpha-2 codes', () => {
    expect(ISO_3166_ALPHA2_CODES.size).toBe(249);
    for (const code of ISO_3166_ALPHA2_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it.each([
    ['DK', true],
    ['US', true],
    ['GB', true],
    ['GL', true],
    ['FO', true],
    ['AX', true],
    ['SS', true],
    ['XX', false],
    ['dk', false],
    ['Dk', false],
    ['DNK', false],
    ['UK', false], // exceptionally reserved, not assigned
    ['EU', false],
    ['XK', false],
    ['D', false],
    ['', false],
  ])('isIso3166Alpha2(%j) -> %s', (code, expected) => {
    expect(isIso3166Alpha2(code)).toBe(expected);
  });

  it.each([
    ['dk', 'DK'],
    ['DK', 'DK'],
    ['Us', 'US'],
    ['gb', 'GB'],
  ])('normalizeCountryCode(%j) -> %s', (input, expected) => {
    expect(normalizeCountryCode(input)).toEqual({ ok: true, value: expected });
  });

  it.each(['DNK', 'dnk', 'UK', 'uk', 'xx', '', ' dk', 'dk ', 'd', 'ß', 'ıd'])(
    'normalizeCountryCode(%j) is invalid',
    (input) => {
      const result = normalizeCountryCode(input);
      expect(result.ok).toBe(false);
      // The reason is one fixed string, so it cannot echo the input.
      expect(result).toEqual(normalizeCountryCode('XX'));
    },
  );
});

describe('isPlausibleEmail', () => {
  it.each([
    ['anna@example.dk', true],
    ['anna.hansen+tag@sub.example.co.uk', true],
    ['a@b.c', true],
    ['ø@æblegrød.dk', true],
    ['anna@example', false],
    ['anna.example.dk', false],
    ['anna@@example.dk', false],
    ['an@na@example.dk', false],
    ['anna @example.dk', false],
    ['anna@exa mple.dk', false],
    ['anna@example.dk ', false],
    ['@example.dk', false],
    ['anna@', false],
    ['anna@.example.dk', false],
    ['anna@example.dk.', false],
    ['anna@example..dk', false],
    ['anna\t@example.dk', false],
    ['anna\u0000@example.dk', false],
    ['', false],
  ])('%j -> %s', (input, expected) => {
    expect(isPlausibleEmail(input)).toBe(expected);
  });
});
