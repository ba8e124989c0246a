/**
 * Microsoft Graph look-ups of directory users in a customer tenant: by UPN, by object id,
 * and many UPNs at once (`$filter=userPrincipalName in (...)`, 15 values per request,
 * up to 20 requests per `$batch`). Deleted users are not returned by /users, so they are never used.
 * A UPN Graph refuses to look up (a 4xx answer for its query) is reported as refused, alone: the other
 * UPNs of its `$filter` chunk are asked again one by one, and nothing else waits for it. A UPN outside
 * Entra's character set is never sent: no user can hold it (lib/identities/upn.ts). UPNs are compared
 * by their key (A–Z folded, nothing else), never with `toLowerCase`.
 */
import {
  Client,
  GraphError,
  HTTPMessageHandler,
  RetryHandler,
  RetryHandlerOptions,
  type Context,
  type Middleware,
} from '@microsoft/microsoft-graph-client';
import type { GraphTokenProvider } from './graphTokens';
import {
  DirectoryAccessError,
  DirectoryQueryRefusedError,
  DirectoryUnavailableError,
  isRefusal,
  tokenFailure,
} from './directoryTrouble';
import { isUpnShaped, sameUpn, upnKey } from '../identities/upn';

export { DirectoryAccessError, DirectoryQueryRefusedError, DirectoryUnavailableError } from './directoryTrouble';

export interface DirectoryUser {
  id: string;
  userPrincipalName: string;
}

export const UPNS_PER_FILTER = 15;
export const REQUESTS_PER_BATCH = 20;
/** Sends of a `$batch` sub-request that keeps failing inside a batch before the look-up gives up. */
export const SUB_REQUEST_ATTEMPTS = 4;
const SUB_REQUEST_DEFAULT_WAIT_MS = 1000;
/** A longer Retry-After is not waited for inside one call: the caller gets DirectoryUnavailableError with it. */
const SUB_REQUEST_MAX_WAIT_MS = 10_000;

/** OData string literal: single quotes, a quote inside doubled. */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function usersQuery(filter: string): string {
  // Encode the whole filter ourselves: '#', '+', '&' and quotes in UPNs must reach Graph intact.
  return `/users?$filter=${encodeURIComponent(filter)}&$select=id,userPrincipalName`;
}

interface BatchResponse {
  responses?: Array<{
    id: string;
    status: number;
    headers?: Record<string, string>;
    body?: { value?: DirectoryUser[] };
  }>;
}

/**
 * Adds the app-only token to every request. (The SDK's own handler attaches tokens only to
 * https Graph hosts, which rules out the local directory stand-in; this client only ever
 * talks to the one configured Graph base URL.)
 */
class BearerMiddleware implements Middleware {
  private next?: Middleware;

  constructor(private readonly token: () => Promise<string>) {}

  async execute(context: Context): Promise<void> {
    const value = `Bearer ${await this.token()}`;
    context.options ??= {};
    const headers = context.options.headers;
    if (headers instanceof Headers) headers.set('Authorization', value);
    else context.options.headers = { ...(headers as Record<string, string> | undefined), Authorization: value };
    await this.next?.execute(context);
  }

  setNext(next: Middleware): void {
    this.next = next;
  }
}

export class DirectoryClient {
  private readonly clients = new Map<string, Client>();
  /** Requests sent to Graph by this client (benchmarks count them). */
  requestCount = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly tokens: GraphTokenProvider,
  ) {}

  private client(tenantId: string): Client {
    let c = this.clients.get(tenantId);
    if (!c) {
      const auth = new BearerMiddleware(() => this.tokens.getToken(tenantId));
      const retry = new RetryHandler(new RetryHandlerOptions(1, 3));
      auth.setNext(retry);
      retry.setNext(new HTTPMessageHandler());
      c = Client.initWithMiddleware({
        baseUrl: this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`,
        defaultVersion: 'v1.0',
        middleware: auth,
      });
      this.clients.set(tenantId, c);
    }
    return c;
  }

  /**
   * Sends one Graph request. The tenant's token is fetched first, so a refused token request (the
   * service app is not consented in the tenant) is told apart from Graph's own answers.
   */
  private async send<T>(tenantId: string, fn: () => Promise<T>): Promise<T> {
    this.requestCount++;
    try {
      await this.tokens.getToken(tenantId); // cached; the request below reuses it
    } catch (err) {
      throw tokenFailure(err);
    }
    try {
      return await fn();
    } catch (err) {
      if (err instanceof GraphError) {
        if (err.statusCode === 404) throw err;
        const retryAfter = Number(err.headers?.get?.('retry-after') ?? '');
        const hinted = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined;
        if (err.statusCode === 401 || err.statusCode === 403) throw new DirectoryAccessError(err.statusCode); // permission not granted
        if (err.statusCode === 429 || err.statusCode >= 500 || err.statusCode === 0 || err.statusCode === -1) {
          throw new DirectoryUnavailableError(err.statusCode, hinted ?? 5000);
        }
        if (isRefusal(err.statusCode)) throw new DirectoryQueryRefusedError(err.statusCode);
      }
      throw err;
    }
  }

  /** The user with this UPN; none when there is none, or when Graph refuses the UPN (no user can hold it). */
  async findByUpn(tenantId: string, upn: string): Promise<DirectoryUser | undefined> {
    if (!isUpnShaped(upn)) return undefined;
    let res: { value?: DirectoryUser[] };
    try {
      res = await this.send(
        tenantId,
        () =>
          this.client(tenantId)
            .api(usersQuery(`userPrincipalName eq ${odataString(upn)}`))
            .get() as Promise<{ value?: DirectoryUser[] }>,
      );
    } catch (err) {
      if (err instanceof DirectoryQueryRefusedError) return undefined;
      throw err;
    }
    return (res.value ?? []).find((u) => sameUpn(u.userPrincipalName, upn));
  }

  /**
   * One GET of a Graph link (an `@odata.nextLink` or `@odata.deltaLink`, or a path under the version
   * root). Graph's errors come back as for every request (a 410 as GraphError with its status).
   */
  async getLink<T>(tenantId: string, link: string): Promise<T> {
    const version = link.indexOf('/v1.0/');
    const path = version >= 0 ? link.slice(version + '/v1.0'.length) : link;
    return this.send(tenantId, () => this.client(tenantId).api(path).get() as Promise<T>);
  }

  async getById(tenantId: string, id: string): Promise<DirectoryUser | undefined> {
    try {
      return await this.send(
        tenantId,
        () =>
          this.client(tenantId)
            .api(`/users/${encodeURIComponent(id)}?$select=id,userPrincipalName`)
            .get() as Promise<DirectoryUser>,
      );
    } catch (err) {
      if (err instanceof GraphError && err.statusCode === 404) return undefined;
      throw err;
    }
  }

  /**
   * Looks up many UPNs with ceil(n / 15) filter queries sent in batches of 20.
   * Returns the users found, keyed by UPN key (upnKey).
   */
  async findByUpns(tenantId: string, upns: string[]): Promise<Map<string, DirectoryUser>> {
    return (await this.lookUpUpns(tenantId, upns)).found;
  }

  /**
   * As findByUpns, and which UPNs Graph refused or no user can hold (by UPN key): those are neither found
   * nor missing, and the caller deals with them alone.
   */
  async lookUpUpns(
    tenantId: string,
    upns: string[],
  ): Promise<{ found: Map<string, DirectoryUser>; refused: Set<string> }> {
    const unique = [...new Set(upns.map(upnKey))];
    const found = new Map<string, DirectoryUser>();
    const refused = new Set(unique.filter((upn) => !isUpnShaped(upn)));
    const asked = unique.filter((upn) => !refused.has(upn));
    const chunks: string[][] = [];
    for (let i = 0; i < asked.length; i += UPNS_PER_FILTER) chunks.push(asked.slice(i, i + UPNS_PER_FILTER));
    for (let i = 0; i < chunks.length; i += REQUESTS_PER_BATCH)
      await this.batchLookUp(tenantId, chunks.slice(i, i + REQUESTS_PER_BATCH), found, refused);
    return { found, refused };
  }

  /**
   * `$batch`es of filter queries. A sub-request that fails (Graph throttles or fails inside a batch
   * that itself answers 200) is sent again after its Retry-After, up to SUB_REQUEST_ATTEMPTS times; what
   * still fails throws, so its UPNs are never reported as users that do not exist. A sub-request Graph
   * refuses (4xx) is an answer: a chunk of several UPNs is asked again one UPN per query, and a single
   * refused UPN goes to `refused`.
   */
  private async batchLookUp(
    tenantId: string,
    group: string[][],
    found: Map<string, DirectoryUser>,
    refused: Set<string>,
  ): Promise<void> {
    let open = group;
    for (let failures = 0; open.length > 0;) {
      const sent = open.slice(0, REQUESTS_PER_BATCH);
      const requests = sent.map((chunk, j) => ({
        id: String(j + 1),
        method: 'GET',
        url: usersQuery(`userPrincipalName in (${chunk.map(odataString).join(',')})`),
      }));
      const res = await this.send(
        tenantId,
        () => this.client(tenantId).api('/$batch').post({ requests }) as Promise<BatchResponse>,
      );
      const settled = new Set<string[]>();
      const split: string[][] = [];
      let failure: { status: number; retryAfterMs: number } | undefined;
      for (const r of res.responses ?? []) {
        const chunk = sent[Number(r.id) - 1];
        if (!chunk) continue;
        if (r.status === 200) {
          settled.add(chunk);
          for (const u of r.body?.value ?? [])
            found.set(upnKey(u.userPrincipalName), { id: u.id, userPrincipalName: u.userPrincipalName });
          continue;
        }
        if (r.status === 401 || r.status === 403) throw new DirectoryAccessError(r.status);
        if (isRefusal(r.status)) {
          settled.add(chunk);
          if (chunk.length > 1) split.push(...chunk.map((upn) => [upn]));
          else if (chunk[0] !== undefined) refused.add(chunk[0]);
          continue;
        }
        const retryAfter = Number(r.headers?.['Retry-After'] ?? r.headers?.['retry-after'] ?? '');
        const retryAfterMs =
          Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : SUB_REQUEST_DEFAULT_WAIT_MS;
        if (!failure || retryAfterMs > failure.retryAfterMs) failure = { status: r.status, retryAfterMs };
      }
      const unanswered = sent.filter((chunk) => !settled.has(chunk));
      open = [...unanswered, ...split, ...open.slice(REQUESTS_PER_BATCH)];
      if (unanswered.length === 0) continue;
      failures++;
      const { status, retryAfterMs } = failure ?? { status: 0, retryAfterMs: SUB_REQUEST_DEFAULT_WAIT_MS };
      if (failures >= SUB_REQUEST_ATTEMPTS || retryAfterMs > SUB_REQUEST_MAX_WAIT_MS)
        throw new DirectoryUnavailableError(status, Math.max(retryAfterMs, 1000));
      await new Promise((r) => setTimeout(r, retryAfterMs));
    }
  }
}
