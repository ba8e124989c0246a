import { SENSITIVE_ATTRIBUTES } from '../identities/attributes';
import { isValidLocalDate } from '../identities/formats';

/**
 * SCIM filter parser (RFC 7644 §3.4.2.2), limited to the filters the user store can serve:
 * a single eq on id/userName/externalId, or a meta.lastModified range.
 * Error messages name attributes, operators and positions but never a compared value,
 * since values may be personal data that would otherwise end up in responses and logs.
 */

export type UserFilter =
  | { kind: 'eq'; attribute: 'id' | 'userName' | 'externalId'; value: string }
  | {
      kind: 'lastModified';
      lower?: { inclusive: boolean; value: string };
      upper?: { inclusive: boolean; value: string };
    };

export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}

export const MAX_FILTER_LENGTH = 1000;

type EqAttribute = 'id' | 'userName' | 'externalId';
type Attribute = EqAttribute | 'meta.lastModified';
type Bound = { inclusive: boolean; value: string };

type Token =
  | { type: '(' | ')'; pos: number }
  | { type: 'word'; pos: number; text: string }
  | { type: 'string'; pos: number; value: string };

type Condition =
  { kind: 'eq'; attribute: EqAttribute; value: string } | { kind: 'bound'; side: 'lower' | 'upper'; bound: Bound };

const CORE_USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:user:';
/** The sensitive attributes of the attribute table: never in a filter. */
const PROTECTED_ATTRIBUTES = SENSITIVE_ATTRIBUTES.map((name) => name.toLowerCase());
const ATTRIBUTES: ReadonlyMap<string, Attribute> = new Map<string, Attribute>([
  ['id', 'id'],
  ['username', 'userName'],
  ['externalid', 'externalId'],
  ['meta.lastmodified', 'meta.lastModified'],
]);
const KNOWN_OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'pr', 'gt', 'ge', 'lt', 'le']);
const BOUND_OPERATORS: ReadonlyMap<string, { side: 'lower' | 'upper'; inclusive: boolean }> = new Map([
  ['gt', { side: 'lower', inclusive: false }],
  ['ge', { side: 'lower', inclusive: true }],
  ['lt', { side: 'upper', inclusive: false }],
  ['le', { side: 'upper', inclusive: true }],
] as const);

// Optional schema URN, then ATTRNAME with an optional sub-attribute.
const ATTR_PATH = /^(?:urn:[a-z0-9._:-]+:)?[a-z][\w$-]*(?:\.[a-z][\w$-]*)?$/i;
const HEX4 = /^[0-9a-f]{4}$/i;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/i;
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
const SUPPORTED = 'supported filters: eq on id, userName or externalId; gt, ge, lt, le on meta.lastModified';

/** Positions in messages are 1-based character offsets. */
function at(pos: number): string {
  return `at character ${pos + 1}`;
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isWordDelimiter(ch: string): boolean {
  return isSpace(ch) || ch === '(' || ch === ')' || ch === '[' || ch === ']' || ch === '"';
}

function readString(input: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (ch === '"') return { value, end: i + 1 };
    if (ch.charCodeAt(0) < 0x20) throw new FilterError(`control character in string ${at(i)}`);
    if (ch !== '\\') {
      value += ch;
      i += 1;
      continue;
    }
    const esc = input.charAt(i + 1);
    const simple = SIMPLE_ESCAPES.get(esc);
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (esc === 'u' && HEX4.test(input.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(input.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      throw new FilterError(`invalid escape sequence in string ${at(i)}`);
    }
  }
  throw new FilterError(`unterminated string starting ${at(start)}`);
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (isSpace(ch)) {
      i += 1;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ type: ch, pos: i });
      i += 1;
    } else if (ch === '[' || ch === ']') {
      throw new FilterError(`value path filters ('[...]') are not supported (${at(i)})`);
    } else if (ch === '"') {
      const { value, end } = readString(input, i);
      tokens.push({ type: 'string', pos: i, value });
      i = end;
    } else {
      const start = i;
      while (i < input.length && !isWordDelimiter(input.charAt(i))) i += 1;
      tokens.push({ type: 'word', pos: start, text: input.slice(start, i) });
    }
  }
  return tokens;
}

function resolveAttribute(path: string): Attribute | undefined {
  const lower = path.toLowerCase();
  const name = lower.startsWith(CORE_USER_URN) ? lower.slice(CORE_USER_URN.length) : lower;
  return ATTRIBUTES.get(name);
}

function isInRange(n: number, max: number): boolean {
  return n >= 0 && n <= max;
}

/** ISO 8601 / RFC 3339 timestamp with a zone, normalised to UTC `toISOString()` form. */
function normalizeTimestamp(raw: string): string | undefined {
  const m = TIMESTAMP.exec(raw);
  if (!m || !isValidLocalDate(m[1] ?? '')) return undefined;
  if (!isInRange(Number(m[2]), 23) || !isInRange(Number(m[3]), 59) || !isInRange(Number(m[4]), 59)) {
    return undefined;
  }
  if (m[5] !== undefined && (!isInRange(Number(m[5]), 23) || !isInRange(Number(m[6]), 59))) return undefined;
  const date = new Date(raw.toUpperCase());
  const year = date.getUTCFullYear();
  // An offset can push the instant outside years 0001-9999, where toISOString() output stops sorting as text.
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) return undefined;
  return date.toISOString();
}

/** Attribute names of the User schema may be named in a message; any other text is input and is not repeated. */
const KNOWN_ATTRIBUTES = new Set(
  [
    'id',
    'externalId',
    'userName',
    'name',
    'name.givenName',
    'name.familyName',
    'active',
    'meta',
    'meta.created',
    'meta.lastModified',
    'meta.version',
    'meta.location',
    'meta.resourceType',
    'emails',
    'displayName',
    'title',
    'phoneNumbers',
    'addresses',
    'groups',
    'roles',
  ].map((a) => a.toLowerCase()),
);

function describeAttribute(text: string): string {
  const bare = text.toLowerCase().startsWith(CORE_USER_URN) ? text.slice(CORE_USER_URN.length) : text;
  return KNOWN_ATTRIBUTES.has(bare.toLowerCase()) ? `attribute '${bare}'` : 'this attribute';
}

function isKeyword(token: Token | undefined, keyword: string): boolean {
  return token?.type === 'word' && token.text.toLowerCase() === keyword;
}

class Parser {
  private index = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly inputLength: number,
  ) {}

  parse(): Condition[] {
    const conditions = this.parseExpression();
    const extra = this.peek();
    if (extra === undefined) return conditions;
    if (extra.type === ')') throw new FilterError(`unbalanced ')' ${at(extra.pos)}`);
    throw new FilterError(`expected 'and' or end of filter ${at(extra.pos)}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private next(): Token | undefined {
    const token = this.tokens[this.index];
    if (token !== undefined) this.index += 1;
    return token;
  }

  private parseExpression(): Condition[] {
    const conditions = this.parseTerm();
    for (;;) {
      const token = this.peek();
      if (isKeyword(token, 'or')) {
        throw new FilterError(`the 'or' operator is not supported (${at(token?.pos ?? 0)}); ${SUPPORTED}`);
      }
      if (!isKeyword(token, 'and')) return conditions;
      this.next();
      conditions.push(...this.parseTerm());
    }
  }

  private parseTerm(): Condition[] {
    const token = this.peek();
    if (token === undefined) {
      throw new FilterError(`filter ended unexpectedly ${at(this.inputLength)}; expected an attribute`);
    }
    if (token.type === '(') {
      this.next();
      const conditions = this.parseExpression();
      const close = this.next();
      if (close?.type !== ')') throw new FilterError(`missing ')' for '(' ${at(token.pos)}`);
      return conditions;
    }
    if (isKeyword(token, 'not')) {
      throw new FilterError(`the 'not' operator is not supported (${at(token.pos)}); ${SUPPORTED}`);
    }
    return [this.parseComparison()];
  }

  private parseComparison(): Condition {
    const attrToken = this.next();
    if (
      attrToken?.type !== 'word' ||
      !ATTR_PATH.test(attrToken.text) ||
      isKeyword(attrToken, 'and') ||
      isKeyword(attrToken, 'or')
    ) {
      throw new FilterError(`expected an attribute name ${at(attrToken?.pos ?? this.inputLength)}`);
    }
    const attribute = resolveAttribute(attrToken.text);
    if (attribute === undefined) {
      throw new FilterError(`${describeAttribute(attrToken.text)} cannot be filtered; ${SUPPORTED}`);
    }

    const opToken = this.next();
    if (opToken?.type !== 'word' || !KNOWN_OPERATORS.has(opToken.text.toLowerCase())) {
      throw new FilterError(
        `expected a comparison operator after ${attribute} ${at(opToken?.pos ?? this.inputLength)}`,
      );
    }
    const op = opToken.text.toLowerCase();
    const bound = BOUND_OPERATORS.get(op);
    const allowed = attribute === 'meta.lastModified' ? bound !== undefined : op === 'eq';
    if (!allowed) throw new FilterError(`operator '${op}' is not supported on ${attribute}; ${SUPPORTED}`);

    const valueToken = this.next();
    if (valueToken === undefined) {
      throw new FilterError(`missing value for ${attribute} ${at(this.inputLength)}`);
    }
    if (valueToken.type !== 'string') {
      throw new FilterError(`value for ${attribute} must be a double-quoted string ${at(valueToken.pos)}`);
    }

    if (attribute !== 'meta.lastModified') return { kind: 'eq', attribute, value: valueToken.value };
    const timestamp = normalizeTimestamp(valueToken.value);
    if (timestamp === undefined || bound === undefined) {
      throw new FilterError(
        `value for meta.lastModified must be an ISO 8601 timestamp with a time zone ${at(valueToken.pos)}`,
      );
    }
    return { kind: 'bound', side: bound.side, bound: { inclusive: bound.inclusive, value: timestamp } };
  }
}

function combine(conditions: readonly Condition[]): UserFilter {
  const [first, ...rest] = conditions;
  if (first?.kind === 'eq' && rest.length === 0) return first;
  if (conditions.some((c) => c.kind === 'eq')) {
    throw new FilterError(`an eq comparison cannot be combined with other conditions; ${SUPPORTED}`);
  }
  const filter: Extract<UserFilter, { kind: 'lastModified' }> = { kind: 'lastModified' };
  for (const c of conditions) {
    if (c.kind !== 'bound') continue;
    if (filter[c.side] !== undefined) {
      const ops = c.side === 'lower' ? 'gt/ge' : 'lt/le';
      throw new FilterError(`at most one ${c.side} bound (${ops}) on meta.lastModified is supported`);
    }
    filter[c.side] = c.bound;
  }
  return filter;
}

/** Whether an attribute path names a protected attribute: with or without a schema URN, any sub-attribute, any case. */
function isProtectedPath(path: string): boolean {
  const withoutUrn = path.slice(path.lastIndexOf(':') + 1);
  const attribute = (withoutUrn.split('.')[0] ?? '').toLowerCase();
  return PROTECTED_ATTRIBUTES.some((name) => name === attribute);
}

/**
 * Whether any attribute path of the filter (every word outside a quoted value, also inside a value-path
 * filter's brackets) names a protected attribute. Checked before anything else, so a filter on them is refused
 * with the same message whatever else is wrong with it; a compared value that merely contains such a name
 * (`userName eq "personalNumbers-fan"`) is a value, not a path.
 */
function mentionsProtectedAttribute(input: string): boolean {
  let i = 0;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (ch === '"') {
      i = endOfString(input, i);
    } else if (isWordDelimiter(ch)) {
      i += 1;
    } else {
      const start = i;
      while (i < input.length && !isWordDelimiter(input.charAt(i))) i += 1;
      if (isProtectedPath(input.slice(start, i))) return true;
    }
  }
  return false;
}

/** The index after the quoted string starting at `start` (escapes skipped), or the input's end when it is unterminated. */
function endOfString(input: string, start: number): number {
  let i = start + 1;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (ch === '"') return i + 1;
    i += ch === '\\' ? 2 : 1;
  }
  return input.length;
}

/** Parses a SCIM `filter` query parameter for /Users; throws FilterError when it cannot be served. */
export function parseUserFilter(input: string): UserFilter {
  if (input.length > MAX_FILTER_LENGTH) {
    throw new FilterError(`filter is longer than ${MAX_FILTER_LENGTH} characters`);
  }
  if (mentionsProtectedAttribute(input)) {
    throw new FilterError(
      `${SENSITIVE_ATTRIBUTES.join(' and ')} cannot be filtered: they hold protected identity data`,
    );
  }
  const tokens = tokenize(input);
  if (tokens.length === 0) throw new FilterError('filter is empty');
  return combine(new Parser(tokens, input.length).parse());
}
