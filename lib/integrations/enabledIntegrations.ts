/**
 * The cap on SCIM integrations per tenant, enabled or disabled (SCIM_MAX_INTEGRATIONS_PER_TENANT): a disabled
 * integration still has a client id whose requests the service must answer (and count against its tenant's
 * budget), so it keeps its place; disabling one does not make room for another. Counting the
 * records and then writing would let calls at the same moment (on one instance or several) pass the cap
 * together, so every tenant has one document listing its enabled integrations, and a place in it is taken
 * with an entity-tag-checked write before an integration is created or enabled: of two calls racing for
 * the last place, one write fails and that call reads the list again. (The list keeps its first name,
 * `enabled-scim-integrations`, from when only enabled integrations counted.)
 *
 * The list is a claim on places, not the truth about integrations: a place is taken before the record is
 * written, so a crash in between leaves a place taken by an integration that does not exist. When the list is
 * full, such places are checked against the records and freed, once they are older than a minute (younger
 * ones may belong to a write under way). An integration disabled before disabled ones counted has no place:
 * enabling it takes one, and a tenant whose integrations predate the list gets it built from its records on
 * first use.
 */
import type { Store, StoredDoc } from '../store/store';
import { RETRY, readModifyWrite } from '../store/retryPolicy';
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';

/** The list's id in the tenant's partition of the integrations container (never a client id or an integration id). */
export const ENABLED_LIST_ID = 'enabled-scim-integrations';
/** A place younger than this is never freed: its integration may be being written. */
export const PLACE_GRACE_MS = 60_000;

interface Place {
  id: string;
  /** When the place was taken (ISO 8601). */
  since: string;
}

export interface EnabledListDoc extends StoredDoc {
  tenantId: string;
  /** The container's unique key: a value no client id (a GUID) has. */
  clientIdKey: string;
  places: Place[];
}

/** What the list needs of the integration records. */
export interface IntegrationRecords {
  /** Whether the integration exists (enabled or not). */
  exists(tenantId: string, id: string): Promise<boolean>;
  /** Ids of the tenant's integrations, enabled or not, read from the records. */
  ids(tenantId: string): Promise<string[]>;
}

export function integrationLimitReached(max: number): DomainError {
  return new DomainError(
    CODE.INTEGRATION_LIMIT_REACHED,
    `The organization has the most SCIM integrations allowed (${max}), disabled ones included`,
    [],
    { limit: max },
  );
}

export class EnabledIntegrations {
  constructor(
    private readonly store: Store,
    private readonly records: IntegrationRecords,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  private get collection() {
    return this.store.collection<EnabledListDoc>('integrations');
  }

  /**
   * Takes a place for the integration `id`; throws INTEGRATION_LIMIT_REACHED when the tenant has none left.
   * True when a place was taken now, false when `id` had one already.
   */
  async take(tenantId: string, id: string): Promise<boolean> {
    let taken = false;
    await this.change(tenantId, async (places) => {
      taken = false;
      if (places.some((p) => p.id === id)) return undefined;
      taken = true;
      const kept = places.length < this.max ? places : await this.withoutStale(tenantId, places);
      if (kept.length >= this.max) throw integrationLimitReached(this.max);
      return [...kept, { id, since: new Date(this.now()).toISOString() }];
    });
    return taken;
  }

  /** Gives the place of `id` back (after a create or enable that failed). */
  async giveBack(tenantId: string, id: string): Promise<void> {
    await this.change(tenantId, async (places) =>
      places.some((p) => p.id === id) ? places.filter((p) => p.id !== id) : undefined,
    );
  }

  /** Places whose integration does not exist, older than the grace time, left out. */
  private async withoutStale(tenantId: string, places: Place[]): Promise<Place[]> {
    const oldEnough = (p: Place) => this.now() - Date.parse(p.since) >= PLACE_GRACE_MS;
    const stale = await Promise.all(
      places.map(async (p) => oldEnough(p) && !(await this.records.exists(tenantId, p.id))),
    );
    return places.filter((_, i) => !stale[i]);
  }

  /** Applies `next` to the list with an entity-tag check, reading again when another write came first. */
  private async change(tenantId: string, next: (places: Place[]) => Promise<Place[] | undefined>): Promise<void> {
    // A tenant's administrator calls race now and then (GraphQL allows 32 at once): many tries, spread out.
    await readModifyWrite(
      this.collection,
      tenantId,
      ENABLED_LIST_ID,
      async (current) => {
        const changed = await next(current?.places ?? (await this.initialPlaces(tenantId)));
        if (changed === undefined) return undefined;
        return current
          ? { ...withoutEtag(current), places: changed }
          : { id: ENABLED_LIST_ID, pk: tenantId, tenantId, clientIdKey: ENABLED_LIST_ID, places: changed };
      },
      RETRY.contention,
      {
        exhausted: () =>
          new DomainError(CODE.CONCURRENT_CHANGE, 'The SCIM integrations changed during the operation; retry'),
      },
    );
  }

  /** The list of a tenant that has none yet: its integrations, each old enough to be checked. */
  private async initialPlaces(tenantId: string): Promise<Place[]> {
    const since = new Date(0).toISOString();
    return (await this.records.ids(tenantId)).map((id) => ({ id, since }));
  }
}

function withoutEtag(doc: EnabledListDoc & { _etag?: string }): EnabledListDoc {
  const { _etag: _omit, ...rest } = doc;
  return rest;
}
