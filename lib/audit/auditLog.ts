import { randomUUID } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { auditEntries } from '../store/queries/audit';

/** Who did something: an application (client id) or a user (object id) of a tenant. */
export interface Actor {
  tenantId: string;
  kind: 'app' | 'user' | 'system';
  id: string;
  /** A console user's display name from the token, at the time of the action. */
  name?: string;
}

/** An audit entry. `before`/`after` hold link and status facts only, never sensitive values. */
export interface AuditEntry extends StoredDoc {
  tenantId: string;
  at: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string };
  before?: Record<string, string | boolean | null>;
  after?: Record<string, string | boolean | null>;
}

export type AuditInput = Omit<AuditEntry, 'id' | 'pk' | 'at' | 'tenantId'>;

export class AuditLog {
  constructor(private readonly store: Store) {}

  async write(tenantId: string, entry: AuditInput): Promise<void> {
    await this.store.collection<AuditEntry>('audit').create({
      id: randomUUID(),
      pk: tenantId,
      tenantId,
      at: new Date().toISOString(),
      ...entry,
    });
  }

  /** Writes entries of one tenant in transactional batches (one request per 100); returns the entries not written. */
  async writeMany(tenantId: string, entries: AuditInput[]): Promise<AuditInput[]> {
    const at = new Date().toISOString();
    const docs: AuditEntry[] = entries.map((entry) => ({ id: randomUUID(), pk: tenantId, tenantId, at, ...entry }));
    const outcomes = await this.store.collection<AuditEntry>('audit').batchCreate(tenantId, docs);
    return entries.filter((_, i) => outcomes[i] !== 'created');
  }

  async list(tenantId: string, targetId?: string): Promise<AuditEntry[]> {
    const page = await this.store
      .collection<AuditEntry>('audit')
      .page(auditEntries(tenantId, targetId || undefined), { maxItemCount: 1000 });
    return page.items;
  }
}
