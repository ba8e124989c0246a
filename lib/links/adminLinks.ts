/** Administrator links (source manual) and unlinks, for identities of any source. Audited. */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import { writeStamped } from '../store/stampedWrite';
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import { IdentityRepository } from '../identities/repository';
import { nextIdentityVersion } from '../identities/rules';
import { byAdministrator, withChange, type ChangeRecord } from '../identities/history';
import type { DirectoryClient } from '../directory/directoryClient';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError, badInput } from '../util/domainError';
import { isGuid } from '../util/guid';
import { isUpnShaped } from '../identities/upn';
import type { LinkClaims } from './claims';
import { afterManualClaim, manualLinkAction, unlinked, type LinkTransition } from './linkStateMachine';
import { applyLinkEffects } from './linkEffects';
import { CODE } from '../util/errorCodes';

const facts = (l: DirectoryLink) => ({ status: l.status, source: l.source ?? null, userId: l.userId ?? null });

export class AdminLinks {
  private readonly repo: IdentityRepository;

  constructor(
    store: Store,
    private readonly directory: DirectoryClient,
    private readonly claims: LinkClaims,
    private readonly audit: AuditLog,
  ) {
    this.repo = new IdentityRepository(store);
  }

  async link(
    tenantId: string,
    pk: string,
    id: string,
    target: { directoryUserId?: unknown; userPrincipalName?: unknown },
    actor: Actor,
  ): Promise<IdentityDoc> {
    const identity = await this.find(pk, id);
    let user: { id: string; userPrincipalName: string } | undefined;
    if (typeof target.directoryUserId === 'string' && target.directoryUserId) {
      if (!isGuid(target.directoryUserId))
        throw badInput([{ field: 'input.directoryUserId', problem: 'must be an object id (GUID)' }]);
      user = await this.directory.getById(tenantId, target.directoryUserId);
    } else if (typeof target.userPrincipalName === 'string' && target.userPrincipalName) {
      if (!isUpnShaped(target.userPrincipalName))
        throw badInput([
          {
            field: 'input.userPrincipalName',
            problem:
              "must be a user principal name (name@domain) of the characters Entra allows: A-Z a-z 0-9 ' . - _ ! # ^ ~",
          },
        ]);
      user = await this.directory.findByUpn(tenantId, target.userPrincipalName);
    } else {
      throw badInput([{ field: 'input', problem: 'give directoryUserId or userPrincipalName' }]);
    }
    const userId = user?.id;
    if (!userId)
      throw new DomainError(CODE.DIRECTORY_USER_NOT_FOUND, 'No directory user matches; it may not be synchronized yet');
    if (manualLinkAction(identity.link, userId) === 'keep') return identity;
    const transition = afterManualClaim(identity.link, userId, await this.claims.claim(tenantId, userId, identity));
    if (transition === 'heldByOther') {
      throw new DomainError(
        CODE.LINK_CONFLICT,
        'The directory user is already linked to another business identity; unlink it first',
      );
    }
    // The linked user's UPN is kept beside its object id, for the administrators' screens.
    const link: DirectoryLink = { ...transition.link, userPrincipalName: user?.userPrincipalName };
    if (!link.userPrincipalName) delete link.userPrincipalName;
    const saved = await this.write(identity, link, { actor: byAdministrator(actor), operation: 'LINK' }, () =>
      this.claims.release(tenantId, userId, identity),
    );
    await this.apply(tenantId, identity, { ...transition, link }, actor);
    return saved;
  }

  async unlink(tenantId: string, pk: string, id: string, actor: Actor): Promise<IdentityDoc> {
    const identity = await this.find(pk, id);
    const transition = unlinked(identity.link);
    if (!transition) return identity;
    const saved = await this.write(
      identity,
      transition.link,
      { actor: byAdministrator(actor), operation: 'UNLINK' },
      async () => undefined,
    );
    await this.apply(tenantId, identity, transition, actor);
    return saved;
  }

  /** The effects of a stored transition, in order: claims given up, then the audit entry. */
  private async apply(tenantId: string, before: IdentityDoc, transition: LinkTransition, actor: Actor): Promise<void> {
    await applyLinkEffects(transition.effects, {
      releaseClaim: (userId) => this.claims.release(tenantId, userId, before),
      audit: (action) =>
        this.audit.write(tenantId, {
          actor,
          action,
          target: { type: 'businessIdentity', id: before.id },
          before: facts(before.link),
          after: facts(transition.link),
        }),
    });
  }

  private async find(pk: string, id: string) {
    const identity = await this.repo.get(pk, id);
    if (!identity)
      throw new DomainError(CODE.NOT_FOUND, 'No business identity with this id in the source', [
        { field: 'input.id', problem: 'matches no identity' },
      ]);
    return identity;
  }

  private async write(
    identity: IdentityDoc & { _etag: string },
    link: DirectoryLink,
    record: ChangeRecord,
    onFailure: () => Promise<void>,
  ): Promise<IdentityDoc> {
    const { _etag, ...rest } = identity;
    try {
      // lastModified: the time of this write, taken again on each try when the store throttles.
      return await writeStamped((now) =>
        this.repo.replace(withChange(rest, nextIdentityVersion(rest, { link }, now), record), _etag, {
          retryThrottled: false,
        }),
      );
    } catch (err) {
      await onFailure();
      if (isStoreError(err, 'preconditionFailed'))
        throw new DomainError(CODE.CONCURRENT_CHANGE, 'The identity changed during the operation; retry');
      throw err;
    }
  }
}
