import { FilterError, MAX_FILTER_LENGTH, parseUserFilter } from '../../../lib/scim/filter';
import type { UserFilter } from '../../../lib/scim/filter';

const URN = 'urn:ietf:params:scim:schemas:core:2.0:User:';
const SECRET = 'Zq9-secret-Value';

function errorOf(input: string): FilterError {
  try {
    parseUserFilter(input);
  } catch (err) {
    if (err instanceof FilterError) return err;
    throw err;
  }
  throw new Error('expected a FilterError');
}

describe('parseUserFilter: eq', () => {
  it.each<[string, UserFilter]>([
    ['userName eq "anna"', { kind: 'eq', attribute: 'userName', value: 'anna' }],
    ['USERNAME EQ "anna"', { kind: 'eq', attribute: 'userName', value: 'anna' }],
    ['username Eq "anna"', { kind: 'eq', attribute: 'userName', value: 'anna' }],
    [
      'id eq "2819c223-7f76-453a-919d-413861904646"',
      { kind: 'eq', attribute: 'id', value: '2819c223-7f76-453a-919d-413861904646' },
    ],
    ['ID eq "x"', { kind: 'eq', attribute: 'id', value: 'x' }],
    ['externalId eq "E-1"', { kind: 'eq', attribute: 'externalId', value: 'E-1' }],
    ['EXTERNALID eq "E-1"', { kind: 'eq', attribute: 'externalId', value: 'E-1' }],
    [`${URN}userName eq "anna"`, { kind: 'eq', attribute: 'userName', value: 'anna' }],
    [`${URN.toLowerCase()}externalId eq "a"`, { kind: 'eq', attribute: 'externalId', value: 'a' }],
    ['userName eq "a \\"quoted\\" name"', { kind: 'eq', attribute: 'userName', value: 'a "quoted" name' }],
    ['userName eq "back\\\\slash"', { kind: 'eq', attribute: 'userName', value: 'back\\slash' }],
    ['userName eq "ren\\u00e9"', { kind: 'eq', attribute: 'userName', value: 'rené' }],
    ['userName eq "a\\/b\\tc"', { kind: 'eq', attribute: 'userName', value: 'a/b\tc' }],
    [
      'userName eq "with (parens) and or [brackets]"',
      { kind: 'eq', attribute: 'userName', value: 'with (parens) and or [brackets]' },
    ],
    ['userName eq ""', { kind: 'eq', attribute: 'userName', value: '' }],
    ['(userName eq "anna")', { kind: 'eq', attribute: 'userName', value: 'anna' }],
    ['((userName eq "anna"))', { kind: 'eq', attribute: 'userName', value: 'anna' }],
    ['  userName   eq   "anna"  ', { kind: 'eq', attribute: 'userName', value: 'anna' }],
  ])('%s', (input, expected) => {
    expect(parseUserFilter(input)).toEqual(expected);
  });
});

describe('parseUserFilter: meta.lastModified', () => {
  it.each<[string, UserFilter]>([
    [
      'meta.lastModified gt "2026-01-02T03:04:05Z"',
      { kind: 'lastModified', lower: { inclusive: false, value: '2026-01-02T03:04:05.000Z' } },
    ],
    [
      'meta.lastModified ge "2026-01-02T03:04:05.123Z"',
      { kind: 'lastModified', lower: { inclusive: true, value: '2026-01-02T03:04:05.123Z' } },
    ],
    [
      'meta.lastModified lt "2026-01-02T03:04:05+02:00"',
      { kind: 'lastModified', upper: { inclusive: false, value: '2026-01-02T01:04:05.000Z' } },
    ],
    [
      'META.LASTMODIFIED LE "2026-01-02T03:04:05.5-01:30"',
      { kind: 'lastModified', upper: { inclusive: true, value: '2026-01-02T04:34:05.500Z' } },
    ],
    [
      'meta.lastModified gt "2026-01-02T03:04:05.123456Z"',
      { kind: 'lastModified', lower: { inclusive: false, value: '2026-01-02T03:04:05.123Z' } },
    ],
    [
      'meta.lastModified ge "2026-01-01T00:00:00Z" and meta.lastModified lt "2026-02-01T00:00:00Z"',
      {
        kind: 'lastModified',
        lower: { inclusive: true, value: '2026-01-01T00:00:00.000Z' },
        upper: { inclusive: false, value: '2026-02-01T00:00:00.000Z' },
      },
    ],
    [
      'meta.lastModified le "2026-02-01T00:00:00Z" AND meta.lastModified gt "2026-01-01T00:00:00Z"',
      {
        kind: 'lastModified',
        lower: { inclusive: false, value: '2026-01-01T00:00:00.000Z' },
        upper: { inclusive: true, value: '2026-02-01T00:00:00.000Z' },
      },
    ],
    [
      '(meta.lastModified ge "2026-01-01T00:00:00Z") and (meta.lastModified le "2026-02-01T00:00:00Z")',
      {
        kind: 'lastModified',
        lower: { inclusive: true, value: '2026-01-01T00:00:00.000Z' },
        upper: { inclusive: true, value: '2026-02-01T00:00:00.000Z' },
      },
    ],
    [
      '(meta.lastModified ge "2026-01-01T00:00:00Z" and meta.lastModified le "2026-02-01T00:00:00Z")',
      {
        kind: 'lastModified',
        lower: { inclusive: true, value: '2026-01-01T00:00:00.000Z' },
        upper: { inclusive: true, value: '2026-02-01T00:00:00.000Z' },
      },
    ],
    [
      `${URN}meta.lastModified gt "2026-01-02T03:04:05Z"`,
      { kind: 'lastModified', lower: { inclusive: false, value: '2026-01-02T03:04:05.000Z' } },
    ],
  ])('%s', (input, expected) => {
    expect(parseUserFilter(input)).toEqual(expected);
  });

  it.each([
    '2026-01-02T03:04:05', // no time zone
    '2026-01-02',
    '2026-01-02 03:04:05Z',
    '2026-02-30T00:00:00Z',
    '2026-01-02T24:00:00Z',
    '2026-01-02T03:60:00Z',
    '2026-01-02T03:04:60Z',
    '2026-01-02T03:04:05+0100',
    '2026-01-02T03:04:05+24:00',
    '2026-1-02T03:04:05Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:00:00-02:00', // outside year 9999 in UTC
    'yesterday',
    '',
  ])('rejects timestamp %j', (value) => {
    const err = errorOf(`meta.lastModified gt "${value}"`);
    expect(err.message).toMatch(/meta\.lastModified/);
    expect(err.message).toMatch(/ISO 8601/);
  });

  it('rejects a non-string timestamp', () => {
    expect(errorOf('meta.lastModified gt 20260102').message).toMatch(/quoted/);
  });
});

describe('parseUserFilter: rejections', () => {
  it.each([
    ['or', 'userName eq "a" or userName eq "b"', /'or'/],
    ['OR upper case', 'userName eq "a" OR userName eq "b"', /'or'/],
    ['not', 'not (userName eq "a")', /'not'/],
    ['pr', 'userName pr', /'pr'/],
    ['co', 'userName co "a"', /'co'/],
    ['sw', 'userName sw "a"', /'sw'/],
    ['ew', 'userName ew "a"', /'ew'/],
    ['ne', 'userName ne "a"', /'ne'/],
    ['gt on userName', 'userName gt "a"', /'gt'.*userName/],
    ['eq on lastModified', 'meta.lastModified eq "2026-01-02T03:04:05Z"', /'eq'.*meta\.lastModified/],
    ['unknown operator', 'userName like "a"', /operator/],
    ['value path', 'emails[type eq "work"]', /value path/],
    ['value path on known attribute', 'userName[value eq "a"]', /value path/],
    ['other attribute', 'displayName eq "a"', /'displayName' cannot be filtered/],
    ['sub-attribute', 'name.familyName eq "a"', /'name\.familyName' cannot be filtered/],
    ['meta.created', 'meta.created gt "2026-01-02T03:04:05Z"', /'meta\.created' cannot be filtered/],
    [
      'other schema URN',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"',
      /cannot be filtered/,
    ],
    ['two eqs', 'userName eq "a" and externalId eq "b"', /eq/],
    ['eq and bound', 'userName eq "a" and meta.lastModified gt "2026-01-02T03:04:05Z"', /eq/],
    [
      'two lower bounds',
      'meta.lastModified gt "2026-01-01T00:00:00Z" and meta.lastModified ge "2026-01-02T00:00:00Z"',
      /lower bound/,
    ],
    [
      'two upper bounds',
      'meta.lastModified lt "2026-01-01T00:00:00Z" and meta.lastModified le "2026-01-02T00:00:00Z"',
      /upper bound/,
    ],
    [
      'three bounds',
      'meta.lastModified gt "2026-01-01T00:00:00Z" and meta.lastModified lt "2026-01-03T00:00:00Z" and meta.lastModified gt "2026-01-02T00:00:00Z"',
      /lower bound/,
    ],
    ['number value', 'userName eq 42', /quoted string/],
    ['boolean value', 'userName eq true', /quoted string/],
    ['null value', 'externalId eq null', /quoted string/],
    ['single-quoted value', "userName eq 'a'", /quoted string/],
    ['missing value', 'userName eq', /missing value/],
    ['missing operator', 'userName', /operator/],
    ['missing comparison after and', 'userName eq "a" and', /ended unexpectedly/],
    ['leading and', 'and userName eq "a"', /expected an attribute name at character 1/],
    [
      'and and',
      'userName eq "a" and and meta.lastModified gt "2026-01-02T03:04:05Z"',
      /attribute name at character 21/,
    ],
    ['empty', '', /empty/],
    ['whitespace only', '   ', /empty/],
    ['empty parentheses', '()', /attribute/],
    ['unclosed parenthesis', '(userName eq "a"', /missing '\)'/],
    ['extra closing parenthesis', 'userName eq "a")', /unbalanced/],
    ['juxtaposed comparisons', 'userName eq "a" userName eq "b"', /expected 'and'/],
    ['string as attribute', '"userName" eq "a"', /attribute name/],
    ['invalid attribute characters', 'user*name eq "a"', /attribute name/],
    ['invalid escape', 'userName eq "a\\x41"', /escape/],
    ['short unicode escape', 'userName eq "a\\u00e"', /escape/],
    ['raw control character', 'userName eq "a\u0001b"', /control character/],
    ['unterminated string', 'userName eq "abc', /unterminated/],
  ])('%s', (_label, input, message) => {
    expect(errorOf(input).message).toMatch(message);
  });

  it.each([
    'personalNumbers eq "0101901234"',
    'PERSONALNUMBERS.value eq "0101901234"',
    'personalNumbers[value eq "0101901234"]',
    `${URN}personalNumbers pr`,
    'identityDocumentReferences eq "x"',
    'userName eq "a" and identitydocumentreferences.value eq "x"',
    'userName eq "a" or personalNumbers pr',
    `${URN}PersonalNumbers.Value eq "x"`,
    `${URN}identityDocumentReferences[type eq "Passport"]`,
    'emails[personalNumbers eq "x"]',
    '(personalNumbers pr)',
    'urn:ietf:params:scim:schemas:extension:service:2.0:User:personalNumbers.value eq "x"',
    'userName eq "personalNumbers" and personalNumbers pr',
  ])('rejects protected attribute in %s', (input) => {
    const err = errorOf(input);
    expect(err.message).toMatch(/personalNumbers and identityDocumentReferences cannot be filtered/);
    expect(err.message).not.toContain('0101901234');
  });

  it.each([
    ['userName eq "personalNumbers-fan"', 'userName', 'personalNumbers-fan'],
    ['externalId eq "identityDocumentReferences"', 'externalId', 'identityDocumentReferences'],
    ['userName eq "a \\"personalNumbers.value\\" b"', 'userName', 'a "personalNumbers.value" b'],
    [`${URN}userName eq "${URN}personalNumbers"`, 'userName', `${URN}personalNumbers`],
  ])('looks at attribute paths, not compared values: %s', (input, attribute, value) => {
    expect(parseUserFilter(input)).toEqual({ kind: 'eq', attribute, value });
  });

  it(`accepts ${MAX_FILTER_LENGTH} characters and rejects more`, () => {
    const base = 'userName eq ""';
    const exact = `userName eq "${'a'.repeat(MAX_FILTER_LENGTH - base.length)}"`;
    expect(exact).toHaveLength(MAX_FILTER_LENGTH);
    expect(parseUserFilter(exact)).toMatchObject({ kind: 'eq', attribute: 'userName' });
    expect(errorOf(`${exact} `).message).toMatch(/longer than 1000/);
  });

  it('is a FilterError with a stable name', () => {
    const err = errorOf('userName co "a"');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('FilterError');
  });
});

describe('parseUserFilter: messages never contain the compared value', () => {
  it.each([
    `userName eq "${SECRET}`,
    `userName eq "${SECRET}\\q"`,
    `userName eq "${SECRET}\u0002"`,
    `userName eq ${SECRET}`,
    `userName co "${SECRET}"`,
    `userName ne "${SECRET}"`,
    `userName gt "${SECRET}"`,
    `userName eq "${SECRET}" or userName eq "${SECRET}"`,
    `userName eq "${SECRET}" and externalId eq "${SECRET}"`,
    `userName eq "${SECRET}" "${SECRET}"`,
    `userName eq "${SECRET}")`,
    `(userName eq "${SECRET}"`,
    `"${SECRET}" eq userName`,
    `displayName eq "${SECRET}"`,
    `emails[value eq "${SECRET}"]`,
    `meta.lastModified gt "${SECRET}"`,
    `meta.lastModified gt ${SECRET}`,
    `userName eq "${SECRET}" and personalNumbers eq "${SECRET}"`,
    `userName eq "${SECRET.repeat(100)}"`,
  ])('%s', (input) => {
    const err = errorOf(input);
    expect(err.message).not.toContain(SECRET);
    expect(err.message.toLowerCase()).not.toContain('secret');
  });
});
