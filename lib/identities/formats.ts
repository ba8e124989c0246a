import { ISO_3166_ALPHA2_CODES } from './countries';

/** Reasons are fixed strings: identity data (CPR numbers, phone numbers) must never reach logs or responses. */
export type FormatResult<T = string> = { ok: true; value: T } | { ok: false; reason: string };

const CPR_REASON = 'must be a valid CPR number (10 digits, DDMMYY-SSSS with or without the dash)';
const E164_REASON = "must be an E.164 phone number ('+' followed by 1 to 15 digits, the first 1-9)";
const COUNTRY_REASON = 'must be an ISO 3166-1 alpha-2 country code';

const CPR_SHAPE = /^(\d{2})(\d{2})(\d{2})-?(\d)(\d{3})$/;
const LOCAL_DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const E164_SHAPE = /^\+[1-9]\d{0,14}$/;
const ASCII_ALPHA2 = /^[A-Za-z]{2}$/;
// Domain labels exclude dots, so there is no ambiguous backtracking on long input.
const EMAIL_SHAPE = /^[^\s@\p{Cc}]+@[^\s@.\p{Cc}]+(?:\.[^\s@.\p{Cc}]+)+$/u;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const max = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= max;
}

/**
 * Century of a CPR birth date, from the 7th digit (first serial digit) and YY:
 *
 *   7th digit | YY 00-36  | YY 37-57  | YY 58-99
 *   ----------+-----------+-----------+----------
 *   0-3       | 1900-1999 (always)
 *   4, 9      | 2000-2036 | 1937-1999 | 1937-1999
 *   5-8       | 2000-2036 | 2037-2057 | 1858-1899
 */
function cprCentury(seventhDigit: number, yy: number): number {
  if (seventhDigit <= 3) return 1900;
  if (seventhDigit === 4 || seventhDigit === 9) return yy <= 36 ? 2000 : 1900;
  return yy <= 57 ? 2000 : 1800;
}

type ParsedCpr = { digits: string; birthDate: string };

function parseCpr(input: string): ParsedCpr | undefined {
  const m = CPR_SHAPE.exec(input);
  if (!m) return undefined;
  const [, dd = '', mm = '', yy = '', seventh = '', rest = ''] = m;
  const year = cprCentury(Number(seventh), Number(yy)) + Number(yy);
  if (!isRealDate(year, Number(mm), Number(dd))) return undefined;
  return { digits: `${dd}${mm}${yy}${seventh}${rest}`, birthDate: `${year}-${mm}-${dd}` };
}

/** Danish CPR number; returns the 10 digits without dash. No modulus-11 check: many numbers since 2007 fail it. */
export function normalizeCpr(input: string): FormatResult {
  const parsed = parseCpr(input);
  return parsed ? { ok: true, value: parsed.digits } : { ok: false, reason: CPR_REASON };
}

/** Birth date (YYYY-MM-DD) encoded in a CPR number, with the century from the table above. */
export function cprBirthDate(input: string): FormatResult {
  const parsed = parseCpr(input);
  return parsed ? { ok: true, value: parsed.birthDate } : { ok: false, reason: CPR_REASON };
}

/** YYYY-MM-DD, a real calendar date in years 0001-9999. */
export function isValidLocalDate(input: string): boolean {
  const m = LOCAL_DATE_SHAPE.exec(input);
  if (!m) return false;
  const year = Number(m[1]);
  return year >= 1 && isRealDate(year, Number(m[2]), Number(m[3]));
}

/** Accepts only the canonical form, so the normalised value equals the input. */
export function normalizeE164(input: string): FormatResult {
  return E164_SHAPE.test(input) ? { ok: true, value: input } : { ok: false, reason: E164_REASON };
}

/** Exact upper-case code; use normalizeCountryCode for user input. */
export function isIso3166Alpha2(code: string): boolean {
  return ISO_3166_ALPHA2_CODES.has(code);
}

export function normalizeCountryCode(input: string): FormatResult {
  // ASCII check first: 'ß'.toUpperCase() is 'SS', a valid code.
  if (!ASCII_ALPHA2.test(input)) return { ok: false, reason: COUNTRY_REASON };
  const upper = input.toUpperCase();
  return isIso3166Alpha2(upper) ? { ok: true, value: upper } : { ok: false, reason: COUNTRY_REASON };
}

/** Shape check only (local@domain.tld); the caller enforces the length limit. */
export function isPlausibleEmail(input: string): boolean {
  return EMAIL_SHAPE.test(input);
}
