/**
 * A customer's directory (Microsoft Graph users) for unit tests, in the place of the service's Graph client:
 * users per tenant, look-ups by UPN (compared by the service's UPN key, as Graph compares case-insensitively),
 * and the user delta query (a first round pages every user, then a delta link returns what changed since;
 * 410 once the tenant's tokens are expired). Faults: the next look-ups or delta pages answer as a throttled or
 * unavailable directory. Each call counts as one Graph request.
 */
import { randomUUID } from 'node:crypto';
import { GraphError } from '@microsoft/microsoft-graph-client';
import { DirectoryClient, DirectoryUnavailableError, type DirectoryUser } from '../../lib/directory/directoryClient';
import { USERS_DELTA_START } from '../../lib/directory/userDelta';
import { isUpnShaped, upnKey } from '../../lib/identities/upn';

interface UserRecord extends DirectoryUser {
  accountEnabled: boolean;
}

interface Change {
  seq: number;
  userId: string;
}

interface TenantDirectory {
  users: Map<string, UserRecord>;
  changes: Change[];
  /** Delta tokens issued before this sequence number answer 410 (expired). */
  validFrom: number;
}

const DELTA_ROOT = 'https://graph.memory/v1.0/users/delta';

export class MemoryDirectory extends DirectoryClient {
  private readonly tenants = new Map<string, TenantDirectory>();
  private seq = 0;
  private unavailable: { kinds: Set<'lookUp' | 'delta'>; count: number; status: number; retryAfterMs: number }[] = [];
  /** Users per page of the delta query. */
  deltaPageSize = 100;

  constructor() {
    super('https://graph.memory', {
      getToken: () => Promise.reject(new Error('the memory directory sends no HTTP request')),
    });
  }

  addUser(tenantId: string, userPrincipalName: string, id: string = randomUUID()): DirectoryUser {
    const t = this.tenant(tenantId);
    if (this.find(tenantId, userPrincipalName)) throw new Error('the UPN is taken');
    t.users.set(id, { id, userPrincipalName, accountEnabled: true });
    this.changed(t, id);
    return { id, userPrincipalName };
  }

  renameUser(tenantId: string, id: string, userPrincipalName: string): void {
    const user = this.tenant(tenantId).users.get(id);
    if (!user) throw new Error('no such user');
    user.userPrincipalName = userPrincipalName;
    this.changed(this.tenant(tenantId), id);
  }

  deleteUser(tenantId: string, id: string): void {
    const t = this.tenant(tenantId);
    t.users.delete(id);
    this.changed(t, id);
  }

  /** Delta tokens handed out so far are no longer known (Graph answers 410: a new full round). */
  expireDeltaTokens(tenantId: string): void {
    this.tenant(tenantId).validFrom = ++this.seq;
  }

  /** The next `count` calls of these kinds fail as Graph answering `status` (429: throttled, with its Retry-After). */
  failNext(kinds: Array<'lookUp' | 'delta'>, count: number, status = 429, retryAfterMs = 5_000): void {
    this.unavailable.push({ kinds: new Set(kinds), count, status, retryAfterMs });
  }

  override findByUpn(tenantId: string, upn: string): Promise<DirectoryUser | undefined> {
    return this.answer('lookUp', () => (isUpnShaped(upn) ? this.find(tenantId, upn) : undefined));
  }

  override getById(tenantId: string, id: string): Promise<DirectoryUser | undefined> {
    return this.answer('lookUp', () => {
      const user = this.tenant(tenantId).users.get(id);
      return user ? { id: user.id, userPrincipalName: user.userPrincipalName } : undefined;
    });
  }

  override findByUpns(tenantId: string, upns: string[]): Promise<Map<string, DirectoryUser>> {
    return this.lookUpUpns(tenantId, upns).then((r) => r.found);
  }

  override lookUpUpns(
    tenantId: string,
    upns: string[],
  ): Promise<{ found: Map<string, DirectoryUser>; refused: Set<string> }> {
    return this.answer('lookUp', () => {
      const found = new Map<string, DirectoryUser>();
      const refused = new Set<string>();
      for (const upn of new Set(upns.map(upnKey))) {
        if (!isUpnShaped(upn)) {
          refused.add(upn);
          continue;
        }
        const user = this.find(tenantId, upn);
        if (user) found.set(upn, user);
      }
      return { found, refused };
    });
  }

  /** The user delta query: `link` is USERS_DELTA_START, or a next or delta link this directory handed out. */
  override getLink<T>(tenantId: string, link: string): Promise<T> {
    return this.answer('delta', () => {
      const t = this.tenant(tenantId);
      const url = new URL(link === USERS_DELTA_START ? DELTA_ROOT : link, DELTA_ROOT);
      const token = url.searchParams.get('$deltatoken');
      const skip = url.searchParams.get('$skiptoken');
      if (token !== null) {
        const since = Number(token);
        if (since < t.validFrom) throw new GraphError(410, 'syncStateNotFound');
        const ids = new Set(t.changes.filter((c) => c.seq > since).map((c) => c.userId));
        const value = [...ids].map((id) => this.deltaEntry(t, id));
        return { value, '@odata.deltaLink': `${DELTA_ROOT}?$deltatoken=${this.seq}` } as T;
      }
      // A first round: every user, page by page; the last page hands out the delta link.
      const [round, offset] = skip === null ? [this.seq, 0] : skip.split('.').map(Number);
      if ((round ?? 0) < t.validFrom) throw new GraphError(410, 'syncStateNotFound');
      const all = [...t.users.values()];
      const start = offset ?? 0;
      const value = all.slice(start, start + this.deltaPageSize).map((u) => this.deltaEntry(t, u.id));
      const next = start + this.deltaPageSize;
      return (
        next < all.length
          ? { value, '@odata.nextLink': `${DELTA_ROOT}?$skiptoken=${round}.${next}` }
          : { value, '@odata.deltaLink': `${DELTA_ROOT}?$deltatoken=${round}` }
      ) as T;
    });
  }

  private deltaEntry(t: TenantDirectory, id: string): Record<string, unknown> {
    const user = t.users.get(id);
    return user
      ? { id, userPrincipalName: user.userPrincipalName, accountEnabled: user.accountEnabled }
      : { id, '@removed': { reason: 'deleted' } };
  }

  private find(tenantId: string, upn: string): DirectoryUser | undefined {
    const key = upnKey(upn);
    for (const u of this.tenant(tenantId).users.values())
      if (upnKey(u.userPrincipalName) === key) return { id: u.id, userPrincipalName: u.userPrincipalName };
    return undefined;
  }

  private tenant(tenantId: string): TenantDirectory {
    let t = this.tenants.get(tenantId);
    if (!t) this.tenants.set(tenantId, (t = { users: new Map(), changes: [], validFrom: 0 }));
    return t;
  }

  private changed(t: TenantDirectory, userId: string): void {
    t.changes.push({ seq: ++this.seq, userId });
  }

  private async answer<R>(kind: 'lookUp' | 'delta', fn: () => R): Promise<R> {
    this.requestCount++;
    await new Promise((r) => setImmediate(r));
    const fault = this.unavailable.find((f) => f.kinds.has(kind) && f.count > 0);
    if (fault) {
      fault.count--;
      throw new DirectoryUnavailableError(fault.status, fault.retryAfterMs);
    }
    return fn();
  }
}
