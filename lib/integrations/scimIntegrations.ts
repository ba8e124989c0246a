import { randomUUID } from 'node:crypto';
import type { Store, StoredDoc } from '../store/store';
import { isStoreError } from '../store/errors';
import { RETRY, retrying } from '../store/retryPolicy';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError, badInput, type FieldProblem } from '../util/domainError';
import { isGuid, normalizeGuid } from '../util/guid';
import { TtlCache } from '../util/ttlCache';
import { ENABLED_LIST_ID, EnabledIntegrations } from './enabledIntegrations';
import { CODE } from '../util/errorCodes';
import { integrationByClientId, integrationsOf } from '../store/queries/integrations';

export interface ScimIntegrationRecord extends StoredDoc {
  tenantId: string;
  displayName: string;
  clientId: string;
  /** Lower-case client id; a unique key of the container, so one integration per client id per tenant. */
  clientIdKey: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export const MAX_DISPLAY_NAME = 256;

/**
 * SCIM integrations of a tenant. Lookups by client id are cached briefly per instance;
 * a change made on this instance invalidates the cache at once, other instances see it
 * within CLIENT_LOOKUP_TTL_MS. A tenant has at most `maxEnabledPerTenant` integrations, disabled ones
 * included (SCIM_MAX_INTEGRATIONS_PER_TENANT): creating one more is refused with INTEGRATION_LIMIT_REACHED
 * (see enabledIntegrations.ts).
 */
export const CLIENT_LOOKUP_TTL_MS = 5_000;

/** A record of the container that is an integration (the container also holds each tenant's list of enabled ones). */
const isIntegration = (doc: ScimIntegrationRecord | undefined): doc is ScimIntegrationRecord =>
  doc !== undefined && doc.id !== ENABLED_LIST_ID;

export class ScimIntegrations {
  private readonly byClient: TtlCache<string, ScimIntegrationRecord | null>;
  private readonly enabledList: EnabledIntegrations;

  constructor(
    private readonly store: Store,
    private readonly audit: AuditLog,
    now: () => number = Date.now,
    maxEnabledPerTenant = Number.POSITIVE_INFINITY,
  ) {
    this.byClient = new TtlCache<string, ScimIntegrationRecord | null>(CLIENT_LOOKUP_TTL_MS, 10_000, now);
    this.enabledList = new EnabledIntegrations(
      store,
      {
        exists: async (tenantId, id) => (await this.get(tenantId, id)) !== undefined,
        ids: async (tenantId) => (await this.list(tenantId)).map((r) => r.id),
      },
      maxEnabledPerTenant,
      now,
    );
  }

  private get collection() {
    return this.store.collection<ScimIntegrationRecord>('integrations');
  }

  async create(
    tenantId: string,
    input: { displayName: unknown; clientId: unknown },
    actor: Actor,
  ): Promise<ScimIntegrationRecord> {
    const problems: FieldProblem[] = [];
    const displayName = typeof input.displayName === 'string' ? input.displayName.trim() : '';
    if (!displayName) problems.push({ field: 'input.displayName', problem: 'must not be empty' });
    else if (displayName.length > MAX_DISPLAY_NAME)
      problems.push({ field: 'input.displayName', problem: `must be at most ${MAX_DISPLAY_NAME} characters` });
    if (!isGuid(input.clientId))
      problems.push({ field: 'input.clientId', problem: 'must be an application (client) ID in GUID form' });
    if (problems.length > 0 || !isGuid(input.clientId)) throw badInput(problems);

    const clientId = normalizeGuid(input.clientId);
    const now = new Date().toISOString();
    const record: ScimIntegrationRecord = {
      id: randomUUID(),
      pk: tenantId,
      tenantId,
      displayName,
      clientId,
      clientIdKey: clientId,
      enabled: true,
      createdAt: now,
      updatedAt: now,
    };
    await this.enabledList.take(tenantId, record.id);
    try {
      await this.collection.create(record);
    } catch (err) {
      await this.enabledList.giveBack(tenantId, record.id).catch(() => undefined);
      if (isStoreError(err, 'conflict')) {
        throw new DomainError(
          CODE.SCIM_INTEGRATION_CLIENT_ID_TAKEN,
          'Another SCIM integration of the organization already has this client ID',
          [{ field: 'input.clientId', problem: 'is already used by another SCIM integration' }],
        );
      }
      throw err;
    }
    this.byClient.delete(`${tenantId}|${clientId}`);
    await this.audit.write(tenantId, {
      actor,
      action: 'scimIntegration.create',
      target: { type: 'scimIntegration', id: record.id },
      after: { enabled: true, clientId },
    });
    return record;
  }

  async setEnabled(tenantId: string, id: unknown, enabled: boolean, actor: Actor): Promise<ScimIntegrationRecord> {
    if (typeof id !== 'string' || !id) throw badInput([{ field: 'input.id', problem: 'must be an integration id' }]);
    // Another administrator changed the record meanwhile: read it again and decide again.
    let taken = false;
    return retrying(RETRY.changed, async () => {
      const current = await this.collection.read(tenantId, id);
      if (!isIntegration(current))
        throw new DomainError(CODE.NOT_FOUND, 'No SCIM integration with this id', [
          { field: 'input.id', problem: 'matches no SCIM integration' },
        ]);
      if (current.enabled === enabled) return current;
      // An integration disabled before disabled ones counted has no place: enabling it takes one (a no-op when
      // it has one) before the record says enabled. Disabling keeps the place: disabled integrations count.
      if (enabled) taken = (await this.enabledList.take(tenantId, id)) || taken;
      const { _etag, ...rest } = current;
      const saved = await this.collection.replace({ ...rest, enabled, updatedAt: new Date().toISOString() }, _etag);
      this.byClient.delete(`${tenantId}|${current.clientIdKey}`);
      await this.audit.write(tenantId, {
        actor,
        action: enabled ? 'scimIntegration.enable' : 'scimIntegration.disable',
        target: { type: 'scimIntegration', id },
        before: { enabled: current.enabled },
        after: { enabled },
      });
      return saved;
    }).catch(async (err: unknown) => {
      if (taken) await this.enabledList.giveBack(tenantId, id).catch(() => undefined);
      throw err;
    });
  }

  async get(tenantId: string, id: string): Promise<ScimIntegrationRecord | undefined> {
    const doc = await this.collection.read(tenantId, id);
    return isIntegration(doc) ? doc : undefined;
  }

  async list(tenantId: string): Promise<ScimIntegrationRecord[]> {
    const page = await this.collection.page(integrationsOf(tenantId), { maxItemCount: 1000 });
    return page.items.filter(isIntegration);
  }

  /** The integration of a client id in a tenant, enabled or not; undefined when none. */
  async findByClientId(tenantId: string, clientId: string): Promise<ScimIntegrationRecord | undefined> {
    const key = `${tenantId}|${normalizeGuid(clientId)}`;
    const cached = this.byClient.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const page = await this.collection.page(integrationByClientId(tenantId, normalizeGuid(clientId)));
    const found = page.items.find(isIntegration);
    this.byClient.set(key, found ?? null);
    return found;
  }

  /** Forgets cached lookups (after an administrator change made on another instance, or in tests). */
  clearCache(): void {
    this.byClient.clear();
  }
}
