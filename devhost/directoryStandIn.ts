/**
 * Directory stand-in: the Microsoft Graph v1.0 users subset the service uses. Requests need
 * an RS256 app token from the identity-provider stand-in with aud https://graph.microsoft.com;
 * the token's tenant selects the directory (tenants are isolated). Counts requests so
 * benchmarks can report them, and can simulate throttling. `GET /users/delta` follows Graph's delta
 * query: a first round pages every user (`@odata.nextLink`) and ends with an `@odata.deltaLink`; that
 * link then returns only what changed since (created, renamed, deleted as `@removed`), with the `$select`
 * of the first request; a token the stand-in did not issue (or has expired) answers 410 syncStateNotFound.
 */
import http from 'node:http';
import { createPublicKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { closeServer, listen } from './idpStandIn';

export interface DirectoryUserRecord {
  id: string;
  userPrincipalName: string;
  displayName: string;
  accountEnabled: boolean;
}

export interface DirectoryStats {
  /** Every HTTP request received (a $batch counts once). */
  requests: number;
  batchRequests: number;
  /** `$filter` queries answered, including those inside a $batch. */
  filterQueries: number;
  /** `/users/delta` requests answered (every page counts). */
  deltaRequests: number;
  /** Every HTTP request with a valid token, per tenant (lower-case tenant id). */
  requestsByTenant: Record<string, number>;
}

export interface DirectoryStandIn {
  url: string;
  /** The next `count` HTTP requests answer 429 TooManyRequests with `Retry-After: retryAfterSeconds`. */
  throttleNext(count: number, retryAfterSeconds: number): void;
  /** Every request made with a token of the tenant answers 429 with `Retry-After` until called with undefined. */
  throttleTenant(tenantId: string, retryAfterSeconds: number | undefined): void;
  /** The next `count` requests inside a `$batch` answer 429 with `Retry-After` (the batch itself is 200, as Graph does). */
  throttleNextInBatch(count: number, retryAfterSeconds: number): void;
  /** Every request inside a `$batch` that looks this UPN up answers 429 (`Retry-After: 0`) until called with undefined. */
  throttleUpnInBatch(upn: string | undefined): void;
  stats(): DirectoryStats;
  resetStats(): void;
  /** Users per page of `/users/delta` (default 100). */
  setDeltaPageSize(size: number): void;
  /** Forgets every delta token of the tenant: the next request with one answers 410 syncStateNotFound. */
  expireDeltaTokens(tenantId: string): void;
  /** Throws when the UPN exists in the tenant. */
  createUser(tenantId: string, upn: string, displayName?: string): DirectoryUserRecord;
  /** Throws when the user does not exist or the new UPN belongs to another user. */
  renameUser(tenantId: string, id: string, newUpn: string): void;
  deleteUser(tenantId: string, id: string): void;
  /** Case-insensitive. */
  findByUpn(tenantId: string, upn: string): DirectoryUserRecord | undefined;
  close(): Promise<void>;
}

/** Where the signing key of a token comes from; the default fetches (and caches) the IdP's JWKS per tenant. */
export type TokenKeyProvider = (tenantId: string, kid: string) => Promise<KeyObject | undefined>;

export interface DirectoryStandInOptions {
  port: number;
  host?: string;
  idpUrl: string;
  tokenKeyProvider?: TokenKeyProvider;
  seedUsers?: Array<{ tenantId: string; userPrincipalName: string; displayName?: string; id?: string }>;
}

export const GRAPH_AUDIENCE = 'https://graph.microsoft.com';
export const MAX_IN_VALUES = 15;
export const MAX_BATCH_REQUESTS = 20;
/** The longest UPN Entra ID holds; a filter naming a longer one is refused with 400. */
export const MAX_UPN_LENGTH = 113;
const DEFAULT_DELTA_PAGE_SIZE = 100;
const MAX_BODY_BYTES = 1024 * 1024;
const JWKS_REFETCH_COOLDOWN_MS = 5_000;
const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9.-]{0,127}$/;
const USER_PROPERTIES = ['id', 'userPrincipalName', 'displayName', 'accountEnabled'] as const;
type UserProperty = (typeof USER_PROPERTIES)[number];
const USERS_CONTEXT = `${GRAPH_AUDIENCE}/v1.0/$metadata#users`;

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

class BodyTooLargeError extends Error {}

class DirectoryConflictError extends Error {
  constructor() {
    super('Another object with the same value for property userPrincipalName already exists.');
  }
}

const graphError = (status: number, code: string, message: string): Answer => ({
  status,
  body: { error: { code, message } },
});
const badRequest = (message: string) => graphError(400, 'BadRequest', message);
const notFound = () =>
  graphError(
    404,
    'Request_ResourceNotFound',
    'Resource does not exist or one of its queried reference-property objects are not present.',
  );

// ---------------------------------------------------------------------------------------------
// OData `$filter` on userPrincipalName

/** Reads the OData string literal starting at `s[i]` (a quote inside is doubled). */
function readLiteral(s: string, start: number): { value: string; next: number } | undefined {
  if (s[start] !== "'") return undefined;
  let value = '';
  let i = start + 1;
  while (i < s.length) {
    if (s[i] !== "'") {
      value += s[i];
      i++;
    } else if (s[i + 1] === "'") {
      value += "'";
      i += 2;
    } else {
      return { value, next: i + 1 };
    }
  }
  return undefined;
}

/** Parses `'a', 'b'` (the inside of an `in (...)` list, or a single literal). */
function parseLiteralList(s: string): string[] | undefined {
  const values: string[] = [];
  let i = 0;
  for (;;) {
    const literal = readLiteral(s, i);
    if (!literal) return undefined;
    values.push(literal.value);
    i = literal.next;
    while (s[i] === ' ') i++;
    if (i >= s.length) return values;
    if (s[i] !== ',') return undefined;
    i++;
    while (s[i] === ' ') i++;
  }
}

/** Parses `userPrincipalName eq '…'` and `userPrincipalName in ('…','…')`; anything else is unsupported. */
export function parseUpnFilter(filter: string): string[] | undefined {
  const m = /^\s*userPrincipalName\s+(eq|in)\s+(.+?)\s*$/i.exec(filter);
  if (!m) return undefined;
  const op = (m[1] ?? '').toLowerCase();
  const operand = m[2] ?? '';
  if (op === 'eq') {
    const values = parseLiteralList(operand);
    return values?.length === 1 ? values : undefined;
  }
  const list = /^\(\s*(.*?)\s*\)$/.exec(operand);
  return list ? parseLiteralList(list[1] ?? '') : undefined;
}

// ---------------------------------------------------------------------------------------------
// Query strings

/**
 * Query options by lower-cased name. Values are decoded with decodeURIComponent, so `%2B` is a
 * plus and a raw `+` stays a plus too (the service always sends `%2B`).
 */
function parseQuery(query: string): Map<string, string> | Answer {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    let name: string;
    let value: string;
    try {
      // Like Graph, a raw '+' in the query is a space: a client must send '%2B' for a plus in a UPN.
      const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
      name = decode(eq < 0 ? part : part.slice(0, eq)).toLowerCase();
      value = eq < 0 ? '' : decode(part.slice(eq + 1));
    } catch {
      return badRequest('Malformed query string');
    }
    if (params.has(name)) return badRequest(`Query option '${name}' was specified more than once`);
    params.set(name, value);
  }
  return params;
}

function parseSelect(raw: string | undefined): UserProperty[] | Answer | undefined {
  if (raw === undefined) return undefined;
  const selected: UserProperty[] = [];
  for (const name of raw.split(',').map((s) => s.trim())) {
    const property = USER_PROPERTIES.find((p) => p.toLowerCase() === name.toLowerCase());
    if (!property) return badRequest(`Could not find a property named '${name}' on type 'microsoft.graph.user'`);
    if (!selected.includes(property)) selected.push(property);
  }
  return selected;
}

function parseTop(raw: string | undefined): number | Answer | undefined {
  if (raw === undefined) return undefined;
  const top = Number(raw);
  return /^\d+$/.test(raw) && top >= 1 && top <= 999
    ? top
    : badRequest('Invalid page size specified: $top must be between 1 and 999');
}

const isAnswer = (v: unknown): v is Answer => typeof v === 'object' && v !== null && 'status' in v;

function project(user: DirectoryUserRecord, select: UserProperty[] | undefined): Record<string, unknown> {
  const properties = select ?? USER_PROPERTIES;
  return Object.fromEntries(properties.map((p) => [p, user[p]]));
}

// ---------------------------------------------------------------------------------------------
// Users, per tenant

/** Where a delta round stands: changes with since < sequence <= upTo, after this id (ids in order). */
interface DeltaCursor {
  tenantId: string;
  since: number;
  upTo: number;
  afterId: string;
  select: UserProperty[] | undefined;
}

/** A user as a delta round reports it: its state, or its removal. */
type DeltaEntry = { id: string; user: DirectoryUserRecord } | { id: string; removed: true };

class TenantDirectory {
  private readonly tenants = new Map<string, Map<string, DirectoryUserRecord>>();
  /** tenant -> change counter; every create, update and delete takes the next value. */
  private readonly sequence = new Map<string, number>();
  /** tenant -> user id -> sequence of its last change. */
  private readonly changedAt = new Map<string, Map<string, number>>();
  /** tenant -> deleted user id -> sequence of its deletion. */
  private readonly deletedAt = new Map<string, Map<string, number>>();

  private perTenant<V>(maps: Map<string, Map<string, V>>, tenantId: string): Map<string, V> {
    const key = tenantId.toLowerCase();
    let m = maps.get(key);
    if (!m) {
      m = new Map();
      maps.set(key, m);
    }
    return m;
  }

  private touch(tenantId: string, id: string, deleted = false): void {
    const key = tenantId.toLowerCase();
    const next = (this.sequence.get(key) ?? 0) + 1;
    this.sequence.set(key, next);
    const lower = id.toLowerCase();
    if (deleted) {
      this.perTenant(this.changedAt, tenantId).delete(lower);
      this.perTenant(this.deletedAt, tenantId).set(lower, next);
    } else {
      this.perTenant(this.deletedAt, tenantId).delete(lower);
      this.perTenant(this.changedAt, tenantId).set(lower, next);
    }
  }

  currentSequence(tenantId: string): number {
    return this.sequence.get(tenantId.toLowerCase()) ?? 0;
  }

  /**
   * The next page of a delta round: users changed in (since, upTo] and, after a first round, users
   * deleted then, in id order after `afterId`. A user changed again after upTo is left to the next round.
   */
  deltaPage(c: DeltaCursor, size: number): { entries: DeltaEntry[]; more: boolean } {
    const inRound = (seq: number) => seq > c.since && seq <= c.upTo;
    const entries: DeltaEntry[] = [];
    const users = this.users(c.tenantId);
    for (const [id, seq] of this.perTenant(this.changedAt, c.tenantId)) {
      const user = users.get(id);
      if (user && inRound(seq) && id > c.afterId) entries.push({ id, user });
    }
    if (c.since > 0)
      for (const [id, seq] of this.perTenant(this.deletedAt, c.tenantId))
        if (inRound(seq) && id > c.afterId) entries.push({ id, removed: true });
    entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { entries: entries.slice(0, size), more: entries.length > size };
  }
  /** tenant -> lower-case UPN -> user, so look-ups stay O(1) with 100,000 users. */
  private readonly upnIndex = new Map<string, Map<string, DirectoryUserRecord>>();

  private index(tenantId: string): Map<string, DirectoryUserRecord> {
    const key = tenantId.toLowerCase();
    let index = this.upnIndex.get(key);
    if (!index) {
      index = new Map();
      this.upnIndex.set(key, index);
    }
    return index;
  }

  private users(tenantId: string): Map<string, DirectoryUserRecord> {
    const key = tenantId.toLowerCase();
    let users = this.tenants.get(key);
    if (!users) {
      users = new Map();
      this.tenants.set(key, users);
    }
    return users;
  }

  list(tenantId: string): DirectoryUserRecord[] {
    return [...this.users(tenantId).values()];
  }

  byUpn(tenantId: string, upn: string): DirectoryUserRecord | undefined {
    return this.index(tenantId).get(upn.toLowerCase());
  }

  byIdOrUpn(tenantId: string, key: string): DirectoryUserRecord | undefined {
    return this.users(tenantId).get(key.toLowerCase()) ?? this.byUpn(tenantId, key);
  }

  create(
    tenantId: string,
    u: { userPrincipalName: string; displayName?: string; accountEnabled?: boolean; id?: string },
  ): DirectoryUserRecord {
    if (this.byUpn(tenantId, u.userPrincipalName)) throw new DirectoryConflictError();
    const user: DirectoryUserRecord = {
      id: u.id ?? randomUUID(),
      userPrincipalName: u.userPrincipalName,
      displayName: u.displayName ?? u.userPrincipalName.split('@')[0] ?? u.userPrincipalName,
      accountEnabled: u.accountEnabled ?? true,
    };
    this.users(tenantId).set(user.id.toLowerCase(), user);
    this.index(tenantId).set(user.userPrincipalName.toLowerCase(), user);
    this.touch(tenantId, user.id);
    return user;
  }

  update(tenantId: string, user: DirectoryUserRecord, patch: Partial<Omit<DirectoryUserRecord, 'id'>>): void {
    if (patch.userPrincipalName !== undefined) {
      const holder = this.byUpn(tenantId, patch.userPrincipalName);
      if (holder && holder.id !== user.id) throw new DirectoryConflictError();
      this.index(tenantId).delete(user.userPrincipalName.toLowerCase());
      this.index(tenantId).set(patch.userPrincipalName.toLowerCase(), user);
    }
    Object.assign(user, patch);
    this.touch(tenantId, user.id);
  }

  delete(tenantId: string, id: string): boolean {
    const user = this.users(tenantId).get(id.toLowerCase());
    if (!user) return false;
    this.index(tenantId).delete(user.userPrincipalName.toLowerCase());
    this.users(tenantId).delete(id.toLowerCase());
    this.touch(tenantId, user.id, true);
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Authentication

async function fetchJwks(idpUrl: string, tenantId: string): Promise<Map<string, KeyObject>> {
  const res = await fetch(`${idpUrl}/${encodeURIComponent(tenantId)}/discovery/v2.0/keys`, {
    signal: AbortSignal.timeout(5_000),
  });
  if (!res.ok) throw new Error(`JWKS request failed with HTTP ${res.status}`);
  const body: unknown = await res.json();
  const keys =
    typeof body === 'object' && body !== null && 'keys' in body && Array.isArray(body.keys)
      ? (body.keys as unknown[])
      : [];
  const byKid = new Map<string, KeyObject>();
  for (const k of keys) {
    if (
      typeof k !== 'object' ||
      k === null ||
      !('kid' in k) ||
      typeof k.kid !== 'string' ||
      !('kty' in k) ||
      k.kty !== 'RSA'
    )
      continue;
    try {
      byKid.set(k.kid, createPublicKey({ key: k as JsonWebKey, format: 'jwk' }));
    } catch {
      // A malformed key is skipped, as a JWKS client would.
    }
  }
  return byKid;
}

/** JWKS per tenant, cached; an unknown kid refetches at most once per cooldown. A failed fetch is not cached. */
function jwksKeyProvider(idpUrl: string): TokenKeyProvider {
  const cache = new Map<string, { keys: Promise<Map<string, KeyObject>>; fetchedAt: number }>();
  const refresh = (tenantId: string) => {
    const entry = { keys: fetchJwks(idpUrl, tenantId), fetchedAt: Date.now() };
    cache.set(tenantId, entry);
    return entry;
  };
  return async (tenantId, kid) => {
    let entry = cache.get(tenantId) ?? refresh(tenantId);
    try {
      if (!(await entry.keys).has(kid) && Date.now() - entry.fetchedAt > JWKS_REFETCH_COOLDOWN_MS)
        entry = refresh(tenantId);
      return (await entry.keys).get(kid);
    } catch {
      if (cache.get(tenantId) === entry) cache.delete(tenantId);
      return undefined;
    }
  };
}

/** The verified token's tenant, or why the token is refused. */
async function verifyBearer(
  header: string | undefined,
  idpUrl: string,
  keyFor: TokenKeyProvider,
): Promise<{ tenantId: string } | { refused: string }> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (!token) return { refused: 'Access token is empty.' };
  const invalid = { refused: 'Access token validation failure. Invalid audience, issuer, signature or lifetime.' };
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string') return invalid;
  const kid: unknown = decoded.header.kid;
  const tid: unknown = decoded.payload.tid;
  if (typeof kid !== 'string' || typeof tid !== 'string' || !TENANT_ID.test(tid)) return invalid;
  const key = await keyFor(tid, kid);
  if (!key) return invalid;
  try {
    jwt.verify(token, key, { algorithms: ['RS256'], audience: GRAPH_AUDIENCE, issuer: `${idpUrl}/${tid}/v2.0` });
    return { tenantId: tid };
  } catch {
    return invalid;
  }
}

// ---------------------------------------------------------------------------------------------
// Routes

function asObject(body: unknown): Record<string, unknown> | undefined {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** Graph's user payload: only the writable properties this stand-in knows, with their types checked. */
function userPatch(body: unknown): Partial<Omit<DirectoryUserRecord, 'id'>> | Answer {
  const b = asObject(body);
  if (!b) return badRequest('The request body must be a JSON object');
  const patch: Partial<Omit<DirectoryUserRecord, 'id'>> = {};
  if (b.userPrincipalName !== undefined) {
    if (typeof b.userPrincipalName !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(b.userPrincipalName))
      return graphError(400, 'Request_BadRequest', 'Property userPrincipalName is invalid.');
    patch.userPrincipalName = b.userPrincipalName;
  }
  if (b.displayName !== undefined) {
    if (typeof b.displayName !== 'string')
      return graphError(400, 'Request_BadRequest', 'Property displayName is invalid.');
    patch.displayName = b.displayName;
  }
  if (b.accountEnabled !== undefined) {
    if (typeof b.accountEnabled !== 'boolean')
      return graphError(400, 'Request_BadRequest', 'Property accountEnabled is invalid.');
    patch.accountEnabled = b.accountEnabled;
  }
  return patch;
}

function conflictOr(fn: () => Answer): Answer {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DirectoryConflictError) return graphError(400, 'Request_BadRequest', err.message);
    throw err;
  }
}

interface RouteContext {
  directory: TenantDirectory;
  counters: DirectoryStats;
  tenantId: string;
  batchThrottle: { remaining: number; retryAfterSeconds: number; upn?: string };
  delta: DeltaTokens;
  /** The stand-in's own URL, for the links it hands out. */
  baseUrl: string;
}

/** Delta tokens the stand-in issued; any other token (or one expired) is answered with 410. */
class DeltaTokens {
  private readonly issued = new Map<string, DeltaCursor>();
  pageSize = DEFAULT_DELTA_PAGE_SIZE;

  issue(cursor: DeltaCursor): string {
    const token = randomUUID().replace(/-/g, '');
    this.issued.set(token, cursor);
    return token;
  }

  get(token: string, tenantId: string): DeltaCursor | undefined {
    const cursor = this.issued.get(token);
    return cursor && cursor.tenantId.toLowerCase() === tenantId.toLowerCase() ? cursor : undefined;
  }

  expire(tenantId: string): void {
    for (const [token, cursor] of this.issued)
      if (cursor.tenantId.toLowerCase() === tenantId.toLowerCase()) this.issued.delete(token);
  }
}

const syncStateNotFound = () =>
  graphError(410, 'syncStateNotFound', 'The delta token is not valid any more; start a new round without a token.');

/** `GET /users/delta`: a new round, the next page of one ($skiptoken) or the changes since one ($deltatoken). */
function usersDelta(ctx: RouteContext, params: Map<string, string>): Answer {
  ctx.counters.deltaRequests++;
  const token = params.get('$skiptoken') ?? params.get('$deltatoken');
  let cursor: DeltaCursor;
  if (token !== undefined) {
    const known = ctx.delta.get(token, ctx.tenantId);
    if (!known) return syncStateNotFound();
    cursor = known;
  } else {
    const select = parseSelect(params.get('$select'));
    if (isAnswer(select)) return select;
    cursor = {
      tenantId: ctx.tenantId,
      since: 0,
      upTo: ctx.directory.currentSequence(ctx.tenantId),
      afterId: '',
      select,
    };
  }
  if (params.has('$deltatoken'))
    // The changes since the last round: a new round up to now.
    cursor = { ...cursor, since: cursor.upTo, upTo: ctx.directory.currentSequence(ctx.tenantId), afterId: '' };
  const { entries, more } = ctx.directory.deltaPage(cursor, ctx.delta.pageSize);
  const value = entries.map((e) =>
    'removed' in e
      ? { '@odata.type': '#microsoft.graph.user', id: e.id, '@removed': { reason: 'changed' } }
      : { '@odata.type': '#microsoft.graph.user', ...project(e.user, withId(cursor.select)) },
  );
  const link = `${ctx.baseUrl}/v1.0/users/delta?`;
  const last = entries.at(-1)?.id ?? cursor.afterId;
  const context = cursor.select ? `${USERS_CONTEXT}(${cursor.select.join(',')})` : USERS_CONTEXT;
  return {
    status: 200,
    body: more
      ? {
          '@odata.context': context,
          '@odata.nextLink': `${link}$skiptoken=${ctx.delta.issue({ ...cursor, afterId: last })}`,
          value,
        }
      : {
          '@odata.context': context,
          '@odata.deltaLink': `${link}$deltatoken=${ctx.delta.issue({ ...cursor, afterId: '' })}`,
          value,
        },
  };
}

/** Delta answers always carry the id, whatever `$select` names. */
function withId(select: UserProperty[] | undefined): UserProperty[] | undefined {
  return select && !select.includes('id') ? ['id', ...select] : select;
}

/** The URL of a `$batch` request as text (left as it is when it is not valid percent-encoding). */
function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

function listUsers(ctx: RouteContext, params: Map<string, string>): Answer {
  const select = parseSelect(params.get('$select'));
  const top = parseTop(params.get('$top'));
  if (isAnswer(select)) return select;
  if (isAnswer(top)) return top;
  const filter = params.get('$filter');
  let users: DirectoryUserRecord[];
  if (filter !== undefined) {
    const upns = parseUpnFilter(filter);
    if (!upns)
      return badRequest('Unsupported or invalid filter clause; supported: userPrincipalName eq, userPrincipalName in');
    if (upns.length > MAX_IN_VALUES)
      return badRequest(`Too many values in the 'in' operator: at most ${MAX_IN_VALUES}`);
    if (upns.some((upn) => upn.length > MAX_UPN_LENGTH))
      return graphError(400, 'Request_UnsupportedQuery', 'A value in the filter is longer than the property can hold');
    ctx.counters.filterQueries++;
    // Through the UPN index: a scan of every user per query made large benchmarks measure the stand-in.
    const found = new Set<DirectoryUserRecord>();
    for (const upn of upns) {
      const user = ctx.directory.byUpn(ctx.tenantId, upn);
      if (user) found.add(user);
    }
    users = [...found];
  } else users = ctx.directory.list(ctx.tenantId);
  const context = select ? `${USERS_CONTEXT}(${select.join(',')})` : USERS_CONTEXT;
  return {
    status: 200,
    body: { '@odata.context': context, value: users.slice(0, top).map((u) => project(u, select)) },
  };
}

function createUser(ctx: RouteContext, body: unknown): Answer {
  const patch = userPatch(body);
  if (isAnswer(patch)) return patch;
  const { userPrincipalName } = patch;
  if (userPrincipalName === undefined)
    return graphError(400, 'Request_BadRequest', 'Property userPrincipalName is required.');
  return conflictOr(() => ({
    status: 201,
    body: {
      '@odata.context': `${USERS_CONTEXT}/$entity`,
      ...project(ctx.directory.create(ctx.tenantId, { ...patch, userPrincipalName }), undefined),
    },
  }));
}

function userRoute(
  ctx: RouteContext,
  method: string,
  rawKey: string,
  params: Map<string, string>,
  body: unknown,
): Answer {
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    return badRequest('Malformed user id');
  }
  const user = ctx.directory.byIdOrUpn(ctx.tenantId, key);
  if (!['GET', 'PATCH', 'DELETE'].includes(method))
    return graphError(405, 'Request_BadRequest', `${method} is not supported on a user`);
  if (!user) return notFound();
  if (method === 'GET') {
    const select = parseSelect(params.get('$select'));
    if (isAnswer(select)) return select;
    return { status: 200, body: { '@odata.context': `${USERS_CONTEXT}/$entity`, ...project(user, select) } };
  }
  if (method === 'DELETE') {
    ctx.directory.delete(ctx.tenantId, user.id);
    return { status: 204 };
  }
  const patch = userPatch(body);
  if (isAnswer(patch)) return patch;
  return conflictOr(() => {
    ctx.directory.update(ctx.tenantId, user, patch);
    return { status: 204 };
  });
}

/** One request relative to the version root (`/users…`), at the top level or inside a $batch. */
function route(ctx: RouteContext, method: string, relativeUrl: string, body: unknown): Answer {
  const q = relativeUrl.indexOf('?');
  const path = q < 0 ? relativeUrl : relativeUrl.slice(0, q);
  const params = parseQuery(q < 0 ? '' : relativeUrl.slice(q + 1));
  if (isAnswer(params)) return params;
  if (path === '/users/delta' || path === '/users/microsoft.graph.delta') {
    if (method === 'GET') return usersDelta(ctx, params);
    return graphError(405, 'Request_BadRequest', `${method} is not supported on /users/delta`);
  }
  if (path === '/users') {
    if (method === 'GET') return listUsers(ctx, params);
    if (method === 'POST') return createUser(ctx, body);
    return graphError(405, 'Request_BadRequest', `${method} is not supported on /users`);
  }
  const one = /^\/users\/([^/]+)$/.exec(path);
  if (one) return userRoute(ctx, method, one[1] ?? '', params, body);
  return graphError(404, 'NotFound', `Resource not found for the segment '${path}'`);
}

interface BatchItem {
  id: string;
  method: string;
  url: string;
  body?: unknown;
}

function parseBatch(body: unknown): BatchItem[] | Answer {
  const requests = asObject(body)?.requests;
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BATCH_REQUESTS) {
    return badRequest(`A batch holds 1 to ${MAX_BATCH_REQUESTS} requests`);
  }
  const items: BatchItem[] = [];
  for (const r of requests) {
    const o = asObject(r);
    if (!o || typeof o.id !== 'string' || !o.id || typeof o.method !== 'string' || typeof o.url !== 'string') {
      return badRequest('Every batch request needs a string id, method and url');
    }
    if (items.some((i) => i.id === o.id)) return badRequest(`Batch request id '${o.id}' is used more than once`);
    items.push({
      id: o.id,
      method: o.method.toUpperCase(),
      url: o.url.startsWith('/') ? o.url : `/${o.url}`,
      body: o.body,
    });
  }
  return items;
}

function runBatch(ctx: RouteContext, body: unknown): Answer {
  ctx.counters.batchRequests++;
  const items = parseBatch(body);
  if (isAnswer(items)) return items;
  const responses = items.map((item) => {
    const upn = ctx.batchThrottle.upn;
    const namesUpn = upn !== undefined && safeDecode(item.url).toLowerCase().includes(`'${upn}'`);
    if (ctx.batchThrottle.remaining > 0 || namesUpn) {
      if (!namesUpn) ctx.batchThrottle.remaining--;
      const a = graphError(429, 'TooManyRequests', 'Too many requests; retry after the Retry-After interval.');
      return {
        id: item.id,
        status: a.status,
        headers: {
          'Content-Type': 'application/json',
          'Retry-After': String(namesUpn ? 0 : ctx.batchThrottle.retryAfterSeconds),
        },
        body: a.body,
      };
    }
    const a = route(ctx, item.method, item.url, item.body);
    return {
      id: item.id,
      status: a.status,
      headers: { 'Content-Type': 'application/json' },
      ...(a.body === undefined ? {} : { body: a.body }),
    };
  });
  return { status: 200, body: { responses } };
}

// ---------------------------------------------------------------------------------------------
// HTTP

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () =>
      size > MAX_BODY_BYTES ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function reply(res: http.ServerResponse, a: Answer): void {
  const text = a.body === undefined ? '' : JSON.stringify(a.body);
  const contentHeaders = text ? { 'content-type': 'application/json; charset=utf-8' } : {};
  res.writeHead(a.status, { ...contentHeaders, 'content-length': String(Buffer.byteLength(text)), ...a.headers });
  res.end(text);
}

export async function startDirectoryStandIn(opts: DirectoryStandInOptions): Promise<DirectoryStandIn> {
  const directory = new TenantDirectory();
  const counters: DirectoryStats = {
    requests: 0,
    batchRequests: 0,
    filterQueries: 0,
    deltaRequests: 0,
    requestsByTenant: {},
  };
  const deltaTokens = new DeltaTokens();
  let baseUrl = '';
  const keyFor = opts.tokenKeyProvider ?? jwksKeyProvider(opts.idpUrl);
  const throttle = { remaining: 0, retryAfterSeconds: 1 };
  const throttledTenants = new Map<string, number>();
  const batchThrottle: RouteContext['batchThrottle'] = { remaining: 0, retryAfterSeconds: 1 };
  for (const u of opts.seedUsers ?? []) directory.create(u.tenantId, u);

  const serve = async (req: http.IncomingMessage): Promise<Answer> => {
    counters.requests++;
    const raw = await readBody(req);
    if (throttle.remaining > 0) {
      throttle.remaining--;
      return {
        ...graphError(429, 'TooManyRequests', 'Too many requests; retry after the Retry-After interval.'),
        headers: { 'Retry-After': String(throttle.retryAfterSeconds) },
      };
    }
    const auth = await verifyBearer(req.headers.authorization, opts.idpUrl, keyFor);
    if ('refused' in auth) return graphError(401, 'InvalidAuthenticationToken', auth.refused);
    const tenantKey = auth.tenantId.toLowerCase();
    counters.requestsByTenant[tenantKey] = (counters.requestsByTenant[tenantKey] ?? 0) + 1;
    const tenantRetryAfter = throttledTenants.get(auth.tenantId.toLowerCase());
    if (tenantRetryAfter !== undefined) {
      return {
        ...graphError(429, 'TooManyRequests', 'Too many requests; retry after the Retry-After interval.'),
        headers: { 'Retry-After': String(tenantRetryAfter) },
      };
    }
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return badRequest('The request body is not valid JSON');
    }
    const url = req.url ?? '/';
    if (!url.startsWith('/v1.0/')) return graphError(404, 'NotFound', 'Only the v1.0 endpoint is available');
    const relative = url.slice('/v1.0'.length);
    const ctx: RouteContext = {
      directory,
      counters,
      tenantId: auth.tenantId,
      batchThrottle,
      delta: deltaTokens,
      baseUrl,
    };
    const method = (req.method ?? 'GET').toUpperCase();
    if (/^\/(\$|%24)batch(\?|$)/i.test(relative))
      return method === 'POST'
        ? runBatch(ctx, body)
        : graphError(405, 'Request_BadRequest', '$batch accepts POST only');
    return route(ctx, method, relative, body);
  };

  const server = http.createServer((req, res) => {
    serve(req)
      .then((a) => reply(res, a))
      .catch((err: unknown) =>
        reply(
          res,
          err instanceof BodyTooLargeError
            ? graphError(413, 'RequestEntityTooLarge', 'The request body is too large')
            : graphError(500, 'InternalServerError', 'Internal error'),
        ),
      );
  });
  const url = await listen(server, opts.port, opts.host ?? '127.0.0.1');
  baseUrl = url;

  const existing = (tenantId: string, id: string) => {
    const user = directory.byIdOrUpn(tenantId, id);
    if (!user) throw new Error(`No user ${id} in tenant ${tenantId}`);
    return user;
  };

  return {
    url,
    throttleNext: (count, retryAfterSeconds) => Object.assign(throttle, { remaining: count, retryAfterSeconds }),
    throttleNextInBatch: (count, retryAfterSeconds) =>
      Object.assign(batchThrottle, { remaining: count, retryAfterSeconds }),
    throttleUpnInBatch: (upn) => {
      batchThrottle.upn = upn?.toLowerCase();
    },
    throttleTenant: (tenantId, retryAfterSeconds) => {
      if (retryAfterSeconds === undefined) throttledTenants.delete(tenantId.toLowerCase());
      else throttledTenants.set(tenantId.toLowerCase(), retryAfterSeconds);
    },
    stats: () => ({ ...counters, requestsByTenant: { ...counters.requestsByTenant } }),
    resetStats: () =>
      Object.assign(counters, {
        requests: 0,
        batchRequests: 0,
        filterQueries: 0,
        deltaRequests: 0,
        requestsByTenant: {},
      }),
    setDeltaPageSize: (size) => {
      deltaTokens.pageSize = Math.max(1, Math.floor(size));
    },
    expireDeltaTokens: (tenantId) => deltaTokens.expire(tenantId),
    createUser: (tenantId, upn, displayName) => ({
      ...directory.create(tenantId, { userPrincipalName: upn, displayName }),
    }),
    renameUser: (tenantId, id, newUpn) =>
      directory.update(tenantId, existing(tenantId, id), { userPrincipalName: newUpn }),
    deleteUser: (tenantId, id) => void directory.delete(tenantId, id),
    findByUpn: (tenantId, upn) => {
      const user = directory.byUpn(tenantId, upn);
      return user && { ...user };
    },
    close: () => closeServer(server),
  };
}
