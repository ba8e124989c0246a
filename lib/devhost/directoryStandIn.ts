/**
 * Directory stand-in: the Microsoft Graph v1.0 users subset the service uses. Requests need
 * an RS256 app token from the identity-provider stand-in with aud https://graph.microsoft.com;
 * the token's tenant selects the directory. Counts requests so benchmarks can report them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, randomUUID, type KeyObject, type JsonWebKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface DirectoryUserRecord {
  id: string;
  userPrincipalName: string;
  displayName: string;
  accountEnabled: boolean;
}

export interface DirectoryStandIn {
  url: string;
  throttleNext(count: number, retryAfterSeconds: number): void;
  stats(): { requests: number; batchRequests: number; filterQueries: number };
  resetStats(): void;
  createUser(tenantId: string, upn: string, displayName?: string): DirectoryUserRecord;
  renameUser(tenantId: string, id: string, newUpn: string): void;
  deleteUser(tenantId: string, id: string): void;
  findByUpn(tenantId: string, upn: string): DirectoryUserRecord | undefined;
  close(): Promise<void>;
}

export const GRAPH_AUDIENCE = 'https://graph.microsoft.com';
const MAX_IN_VALUES = 15;
const MAX_BATCH = 20;

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const graphError = (status: number, code: string, message: string): Answer => ({ status, body: { error: { code, message } } });

/** Parses `userPrincipalName eq '…'` and `userPrincipalName in ('…','…')` (OData literals, '' escapes a quote). */
export function parseUpnFilter(filter: string): string[] | undefined {
  const m = /^\s*userPrincipalName\s+(eq|in)\s+(.+?)\s*$/i.exec(filter);
  if (!m) return undefined;
  const [, op = '', rest = ''] = m;
  const literals: string[] = [];
  let i = 0;
  const body = op.toLowerCase() === 'in' ? rest.replace(/^\(\s*/, '').replace(/\s*\)$/, '') : rest;
  if (op.toLowerCase() === 'in' && !(rest.startsWith('(') && rest.endsWith(')'))) return undefined;
  while (i < body.length) {
    if (body[i] !== "'") return undefined;
    let value = '';
    i++;
    for (;;) {
      if (i >= body.length) return undefined;
      if (body[i] === "'") {
        if (body[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        i++;
        break;
      }
      value += body[i];
      i++;
    }
    literals.push(value);
    while (body[i] === ' ') i++;
    if (i < body.length) {
      if (body[i] !== ',') return undefined;
      i++;
      while (body[i] === ' ') i++;
    }
  }
  if (literals.length === 0 || (op.toLowerCase() === 'eq' && literals.length !== 1)) return undefined;
  return literals;
}

export async function startDirectoryStandIn(opts: {
  port: number;
  host?: string;
  idpUrl: string;
  seedUsers?: Array<{ tenantId: string; userPrincipalName: string; displayName?: string; id?: string }>;
}): Promise<DirectoryStandIn> {
  const tenants = new Map<string, Map<string, DirectoryUserRecord>>();
  const keyCache = new Map<string, Map<string, KeyObject>>();
  const counters = { requests: 0, batchRequests: 0, filterQueries: 0 };
  let throttle = { remaining: 0, retryAfter: 1 };

  const usersOf = (tenantId: string) => {
    const key = tenantId.toLowerCase();
    let m = tenants.get(key);
    if (!m) {
      m = new Map();
      tenants.set(key, m);
    }
    return m;
  };
  const findByUpn = (tenantId: string, upn: string) => [...usersOf(tenantId).values()].find((u) => u.userPrincipalName.toLowerCase() === upn.toLowerCase());
  const createUser = (tenantId: string, upn: string, displayName?: string, id?: string): DirectoryUserRecord => {
    if (findByUpn(tenantId, upn)) throw new Error('A user with this userPrincipalName exists');
    const user = { id: id ?? randomUUID(), userPrincipalName: upn, displayName: displayName ?? upn.split('@')[0] ?? upn, accountEnabled: true };
    usersOf(tenantId).set(user.id, user);
    return user;
  };
  for (const u of opts.seedUsers ?? []) createUser(u.tenantId, u.userPrincipalName, u.displayName, u.id);

  const keysFor = async (tid: string, kid: string): Promise<KeyObject | undefined> => {
    let keys = keyCache.get(tid);
    if (!keys || !keys.has(kid)) {
      const res = await fetch(`${opts.idpUrl}/${tid}/discovery/v2.0/keys`);
      const body = (await res.json()) as { keys?: Array<JsonWebKey & { kid?: string }> };
      keys = new Map((body.keys ?? []).filter((k) => typeof k.kid === 'string').map((k) => [k.kid as string, createPublicKey({ key: k, format: 'jwk' })]));
      keyCache.set(tid, keys);
    }
    return keys.get(kid);
  };

  const authenticate = async (header: string | undefined): Promise<string | undefined> => {
    const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (!token) return undefined;
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload !== 'object' || decoded.header.alg !== 'RS256' || !decoded.header.kid) return undefined;
    const tid = (decoded.payload as { tid?: unknown }).tid;
    if (typeof tid !== 'string') return undefined;
    const key = await keysFor(tid, decoded.header.kid);
    if (!key) return undefined;
    try {
      jwt.verify(token, key, { algorithms: ['RS256'], audience: GRAPH_AUDIENCE, issuer: `${opts.idpUrl}/${tid}/v2.0` });
      return tid;
    } catch {
      return undefined;
    }
  };

  const userView = (u: DirectoryUserRecord) => ({ id: u.id, userPrincipalName: u.userPrincipalName, displayName: u.displayName, accountEnabled: u.accountEnabled });

  /** Handles one request (also each request inside a $batch). `rawPath` keeps the query undecoded. */
  const route = (tenantId: string, method: string, rawPath: string, body: unknown): Answer => {
    const [pathPart = '', query = ''] = rawPath.split('?', 2);
    const path = pathPart.replace(/^\/v1\.0/, '');
    const users = usersOf(tenantId);
    if (path === '/users' && method === 'GET') {
      const rawFilter = query.split('&').find((p) => p.startsWith('$filter=') || p.startsWith('%24filter='));
      if (!rawFilter) return { status: 200, body: { value: [...users.values()].map(userView) } };
      let filter: string;
      try {
        filter = decodeURIComponent(rawFilter.slice(rawFilter.indexOf('=') + 1));
      } catch {
        return graphError(400, 'BadRequest', 'Invalid filter clause');
      }
      const upns = parseUpnFilter(filter);
      if (!upns) return graphError(400, 'BadRequest', 'Unsupported or invalid filter clause');
      if (upns.length > MAX_IN_VALUES) return graphError(400, 'BadRequest', `Too many values in the 'in' operator (max ${MAX_IN_VALUES})`);
      counters.filterQueries++;
      const found = upns.map((u) => findByUpn(tenantId, u)).filter((u): u is DirectoryUserRecord => u !== undefined);
      return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users', value: found.map(userView) } };
    }
    if (path === '/users' && method === 'POST') {
      const b = (body ?? {}) as { userPrincipalName?: unknown; displayName?: unknown };
      if (typeof b.userPrincipalName !== 'string') return graphError(400, 'Request_BadRequest', 'userPrincipalName is required');
      if (findByUpn(tenantId, b.userPrincipalName)) return graphError(400, 'Request_BadRequest', 'Another object with the same value for property userPrincipalName already exists');
      return { status: 201, body: userView(createUser(tenantId, b.userPrincipalName, typeof b.displayName === 'string' ? b.displayName : undefined)) };
    }
    const one = /^\/users\/([^/]+)$/.exec(path);
    if (one) {
      let key: string;
      try {
        key = decodeURIComponent(one[1] ?? '');
      } catch {
        return graphError(400, 'BadRequest', 'Invalid id');
      }
      const user = users.get(key) ?? findByUpn(tenantId, key);
      if (!user) return graphError(404, 'Request_ResourceNotFound', 'Resource does not exist or one of its queried reference-property objects are not present.');
      if (method === 'GET') return { status: 200, body: userView(user) };
      if (method === 'DELETE') {
        users.delete(user.id);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        const b = (body ?? {}) as { userPrincipalName?: unknown; displayName?: unknown; accountEnabled?: unknown };
        if (typeof b.userPrincipalName === 'string') user.userPrincipalName = b.userPrincipalName;
        if (typeof b.displayName === 'string') user.displayName = b.displayName;
        if (typeof b.accountEnabled === 'boolean') user.accountEnabled = b.accountEnabled;
        return { status: 204 };
      }
    }
    return graphError(404, 'NotFound', 'Unknown route');
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        counters.requests++;
        const reply = (a: Answer) => {
          const text = a.body === undefined ? '' : JSON.stringify(a.body);
          res.writeHead(a.status, { ...(text ? { 'content-type': 'application/json' } : {}), ...a.headers });
          res.end(text);
        };
        if (throttle.remaining > 0) {
          throttle.remaining--;
          return reply({ ...graphError(429, 'TooManyRequests', 'Too many requests'), headers: { 'retry-after': String(throttle.retryAfter) } });
        }
        const tenantId = await authenticate(req.headers.authorization);
        if (!tenantId) return reply(graphError(401, 'InvalidAuthenticationToken', 'Access token is missing or invalid.'));
        let body: unknown;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        } catch {
          return reply(graphError(400, 'BadRequest', 'Invalid JSON'));
        }
        const rawPath = req.url ?? '/';
        if (rawPath.split('?')[0] === '/v1.0/$batch' && req.method === 'POST') {
          counters.batchRequests++;
          const requests = (body as { requests?: unknown })?.requests;
          if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BATCH) {
            return reply(graphError(400, 'BadRequest', `A batch holds 1 to ${MAX_BATCH} requests`));
          }
          const responses = requests.map((r: { id?: unknown; method?: unknown; url?: unknown; body?: unknown }) => {
            const a = route(tenantId, String(r.method ?? 'GET').toUpperCase(), String(r.url ?? ''), r.body);
            return { id: String(r.id ?? ''), status: a.status, headers: { 'Content-Type': 'application/json' }, body: a.body };
          });
          return reply({ status: 200, body: { responses } });
        }
        reply(route(tenantId, (req.method ?? 'GET').toUpperCase(), rawPath, body));
      })().catch(() => {
        res.writeHead(500);
        res.end();
      });
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, resolve);
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    throttleNext: (count, retryAfterSeconds) => (throttle = { remaining: count, retryAfter: retryAfterSeconds }),
    stats: () => ({ ...counters }),
    resetStats: () => Object.assign(counters, { requests: 0, batchRequests: 0, filterQueries: 0 }),
    createUser: (tenantId, upn, displayName) => createUser(tenantId, upn, displayName),
    renameUser: (tenantId, id, newUpn) => {
      const u = usersOf(tenantId).get(id);
      if (!u) throw new Error('No such user');
      u.userPrincipalName = newUpn;
    },
    deleteUser: (tenantId, id) => void usersOf(tenantId).delete(id),
    findByUpn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
