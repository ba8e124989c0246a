/**
 * Microsoft Graph look-ups of directory users in a customer tenant: by UPN, by object id,
 * and many UPNs at once (`$filter=userPrincipalName in (...)`, 15 values per request,
 * up to 20 requests per `$batch`). Deleted users are not returned by /users, so they are never used.
 */
import { Client, GraphError, HTTPMessageHandler, RetryHandler, RetryHandlerOptions, type Context, type Middleware } from '@microsoft/microsoft-graph-client';
import type { GraphTokenProvider } from './graphTokens';
import { DirectoryAccessError, DirectoryUnavailableError, tokenFailure } from './directoryTrouble';

export { DirectoryAccessError, DirectoryUnavailableError } from './directoryTrouble';

export interface DirectoryUser {
  id: string;
  userPrincipalName: string;
}

export const UPNS_PER_FILTER = 15;
export const REQUESTS_PER_BATCH = 20;

/** OData string literal: single quotes, a quote inside doubled. */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function usersQuery(filter: string): string {
  // Encode the whole filter ourselves: '#', '+', '&' and quotes in UPNs must reach Graph intact.
  return `/users?$filter=${encodeURIComponent(filter)}&$select=id,userPrincipalName`;
}

interface BatchResponse {
  responses?: Array<{ id: string; status: number; headers?: Record<string, string>; body?: { value?: DirectoryUser[] } }>;
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
      c = Client.initWithMiddleware({ baseUrl: this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`, defaultVersion: 'v1.0', middleware: auth });
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
      }
      throw err;
    }
  }

  async findByUpn(tenantId: string, upn: string): Promise<DirectoryUser | undefined> {
    const res = await this.send(tenantId, () => this.client(tenantId).api(usersQuery(`userPrincipalName eq ${odataString(upn)}`)).get() as Promise<{ value?: DirectoryUser[] }>);
    return (res.value ?? []).find((u) => u.userPrincipalName.toLowerCase() === upn.toLowerCase());
  }

  async getById(tenantId: string, id: string): Promise<DirectoryUser | undefined> {
    try {
      return await this.send(tenantId, () => this.client(tenantId).api(`/users/${encodeURIComponent(id)}?$select=id,userPrincipalName`).get() as Promise<DirectoryUser>);
    } catch (err) {
      if (err instanceof GraphError && err.statusCode === 404) return undefined;
      throw err;
    }
  }

  /**
   * Looks up many UPNs with ceil(n / 15) filter queries sent in batches of 20.
   * Returns the users found, keyed by lower-case UPN.
   */
  async findByUpns(tenantId: string, upns: string[]): Promise<Map<string, DirectoryUser>> {
    const unique = [...new Set(upns.map((u) => u.toLowerCase()))];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += UPNS_PER_FILTER) chunks.push(unique.slice(i, i + UPNS_PER_FILTER));
    const found = new Map<string, DirectoryUser>();
    for (let i = 0; i < chunks.length; i += REQUESTS_PER_BATCH) {
      const group = chunks.slice(i, i + REQUESTS_PER_BATCH);
      const requests = group.map((chunk, j) => ({
        id: String(j + 1),
        method: 'GET',
        url: usersQuery(`userPrincipalName in (${chunk.map(odataString).join(',')})`),
      }));
      const res = await this.send(tenantId, () => this.client(tenantId).api('/$batch').post({ requests }) as Promise<BatchResponse>);
      for (const r of res.responses ?? []) {
        if (r.status === 429 || r.status >= 500) {
          throw new DirectoryUnavailableError(r.status, Number(r.headers?.['Retry-After'] ?? r.headers?.['retry-after'] ?? 5) * 1000);
        }
        if (r.status !== 200) continue;
        for (const u of r.body?.value ?? []) found.set(u.userPrincipalName.toLowerCase(), { id: u.id, userPrincipalName: u.userPrincipalName });
      }
    }
    return found;
  }
}
