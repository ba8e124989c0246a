/**
 * SCIM User operations of one integration: create, read, replace, patch, delete.
 * Every read and write is inside the integration's partition, so another integration's
 * User is simply not found. Writes use the store's entity tag, so concurrent changes
 * never overwrite each other.
 */
import type { IdentityAttributes, IdentityDoc } from '../identities/model';
import { partitionKey } from '../identities/model';
import { canonicalAttributes } from '../identities/attributes';
import { attributesOf, newIdentityDoc, nextIdentityVersion, userNameKeyOf } from '../identities/rules';
import { byIntegration, withChange, type ChangeOperation } from '../identities/history';
import type { IdentityRepository } from '../identities/repository';
import { UniquenessError } from '../identities/repository';
import { isStoreError } from '../store/errors';
import type { WithEtag } from '../store/store';
import { writeStamped } from '../store/stampedWrite';
import { RETRY, retrying } from '../store/retryPolicy';
import { uuid7 } from '../util/uuid7';
import { ScimError, notFound } from './errors';
import { checkIfMatch } from './ifMatch';
import { applyPatch } from './patch';
import { toScimUser } from './userResource';
import { checkUserSchemas, identityToScimInput, parseScimUser, toIdentityAttributes } from './userInput';
import type { LinkCoordinator } from '../links/linkCoordinator';
import type { Actor } from '../audit/auditLog';
import type { Logger } from '../log/logger';
import type { UserScope } from './scope';

const uniqueness = () => ScimError.uniqueness('Another User of the integration has the same userName or externalId');

/** A replace or PATCH of one User: who asks, which version they hold, and the change to apply to the stored one. */
interface UserUpdate {
  scope: UserScope;
  id: string;
  ifMatch: string | null;
  actor: Actor;
  operation: ChangeOperation;
  change: (current: IdentityAttributes, doc: IdentityDoc) => IdentityAttributes;
  log?: Logger;
}

export class ScimUsers {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly links: LinkCoordinator,
  ) {}

  async create(scope: UserScope, body: unknown, actor: Actor, log?: Logger): Promise<IdentityDoc> {
    const attrs = parseScimUser(body);
    checkUserSchemas(body);
    const identity = {
      id: uuid7(),
      tenantId: scope.tenantId,
      sourceKind: 'scim',
      sourceKey: scope.integrationId,
    } as const;
    const base = newIdentityDoc({ ...identity, attributes: attrs, now: new Date().toISOString() });
    // One store write: the partition's unique keys on externalId and userName decide duplicates
    // (and races between identical POSTs); a query runs only to explain a 409.
    const planned = await this.links.plan(scope.tenantId, base, undefined, actor, log);
    try {
      // The times of the write are taken when it is made (after the directory look-up, and again on each try
      // when the store throttles): a client polling `meta.lastModified gt <its last poll>` must not miss it.
      const saved = await writeStamped((now) =>
        this.repo.create(
          withChange(undefined, newIdentityDoc({ ...identity, attributes: attrs, now, link: planned.link }), {
            actor: byIntegration(scope.integrationId),
            operation: 'CREATE',
          }),
          { retryThrottled: false },
        ),
      );
      await planned.committed(saved);
      return saved;
    } catch (err) {
      await planned.abandoned();
      if (err instanceof UniquenessError) throw await this.explainConflict(base.pk, attrs);
      throw err;
    }
  }

  async get(scope: UserScope, id: string): Promise<WithEtag<IdentityDoc>> {
    const doc = await this.repo.get(partitionKey(scope.tenantId, scope.integrationId), id);
    if (!doc) throw notFound();
    return doc;
  }

  async replace(
    scope: UserScope,
    id: string,
    body: unknown,
    ifMatch: string | null,
    actor: Actor,
    log?: Logger,
  ): Promise<IdentityDoc> {
    const attrs = parseScimUser(body);
    checkUserSchemas(body);
    return this.update({ scope, id, ifMatch, actor, operation: 'REPLACE', change: () => attrs, log });
  }

  async patch(
    scope: UserScope,
    id: string,
    body: unknown,
    ifMatch: string | null,
    actor: Actor,
    log?: Logger,
  ): Promise<IdentityDoc> {
    return this.update({
      scope,
      id,
      ifMatch,
      actor,
      operation: 'PATCH',
      change: (current, doc) =>
        toIdentityAttributes(applyPatch(identityToScimInput(current), body, toScimUser(doc, ''))),
      log,
    });
  }

  async delete(scope: UserScope, id: string, ifMatch: string | null, actor: Actor): Promise<void> {
    const pk = partitionKey(scope.tenantId, scope.integrationId);
    // Enough tries for dozens of concurrent writers to one User; each lost race reads again.
    const current = await retrying(
      RETRY.contention,
      async () => {
        const current = await this.get(scope, id);
        checkIfMatch(ifMatch, current.version);
        if (!(await this.repo.delete(pk, id, current._etag))) throw notFound();
        return current;
      },
      { exhausted: busy },
    );
    await this.links.released(scope.tenantId, current, actor);
  }

  /**
   * Read-modify-write with the store's entity tag. With If-Match the client's version must be
   * the current one; without it a concurrent change makes us re-read and re-apply, so no update is lost.
   */
  private async update(request: UserUpdate): Promise<IdentityDoc> {
    const pk = partitionKey(request.scope.tenantId, request.scope.integrationId);
    // Enough tries for dozens of concurrent writers to one User; each lost race re-reads and re-applies.
    return retrying(RETRY.contention, async () => this.updateOnce(pk, request), { exhausted: busy });
  }

  private async updateOnce(
    pk: string,
    { scope, id, ifMatch, actor, operation, change, log }: UserUpdate,
  ): Promise<IdentityDoc> {
    const current = await this.get(scope, id);
    checkIfMatch(ifMatch, current.version);
    const next = change(attributesOf(current), current);
    if (sameAttributes(current, next)) return current;
    if (next.externalId !== current.externalId || next.userName?.toLowerCase() !== current.userName?.toLowerCase()) {
      await this.assertUnique(pk, next, id);
    }
    const candidate = nextIdentityVersion(current, { attributes: next }, new Date().toISOString());
    const planned = await this.links.plan(scope.tenantId, candidate, current, actor, log);
    try {
      // Stamped again when written (see create).
      const saved = await writeStamped((now) =>
        this.repo.replace(
          withChange(current, nextIdentityVersion(current, { attributes: next, link: planned.link }, now), {
            actor: byIntegration(scope.integrationId),
            operation,
          }),
          current._etag,
          { retryThrottled: false },
        ),
      );
      await planned.committed(saved);
      return saved;
    } catch (err) {
      await planned.abandoned();
      if (err instanceof UniquenessError) throw uniqueness();
      if (isStoreError(err, 'preconditionFailed') && ifMatch)
        throw ScimError.preconditionFailed('The User changed after the version in If-Match');
      throw err;
    }
  }

  /** The 409 of a create the unique keys refused, naming the attribute another User holds. */
  private async explainConflict(pk: string, attrs: IdentityAttributes): Promise<ScimError> {
    if (await this.repo.findOne(pk, 'externalIdKey', attrs.externalId))
      return ScimError.uniqueness('Another User of the integration has the same externalId');
    if (await this.repo.findOne(pk, 'userNameKey', userNameKeyOf(attrs.userName, attrs.externalId)))
      return ScimError.uniqueness('Another User of the integration has the same userName');
    return uniqueness();
  }

  private async assertUnique(pk: string, attrs: IdentityAttributes, selfId: string | undefined): Promise<void> {
    const byExternal = await this.repo.findOne(pk, 'externalIdKey', attrs.externalId);
    if (byExternal && byExternal.id !== selfId) throw uniqueness();
    const byName = await this.repo.findOne(pk, 'userNameKey', userNameKeyOf(attrs.userName, attrs.externalId));
    if (byName && byName.id !== selfId) throw uniqueness();
  }
}

const busy = () => ScimError.unavailable('The User is being changed by other requests; retry', 1);

function sameAttributes(doc: IdentityDoc, next: IdentityAttributes): boolean {
  return canonicalAttributes(attributesOf(doc)) === canonicalAttributes(next);
}
