/** Administrator links (source manual) and unlinks, for identities of any source. Audited. */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import { writeStamped } from '../store/stampedWrite';
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import { IdentityRepository } from '../identities/repository';
import type { DirectoryClient } from '../directory/directoryClient';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError, badInput } from '../util/domainError';
import { isGuid } from '../util/guid';
import type { LinkClaims } from './claims';

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
    let userId: string | undefined;
    if (typeof target.directoryUserId === 'string' && target.directoryUserId) {
      if (!isGuid(target.directoryUserId))
        throw badInput([{ field: 'input.directoryUserId', problem: 'must be an object id (GUID)' }]);
      userId = (await this.directory.getById(tenantId, target.directoryUserId))?.id;
    } else if (typeof target.userPrincipalName === 'string' && target.userPrincipalName) {
      userId = (await this.directory.findByUpn(tenantId, target.userPrincipalName))?.id;
    } else {
      throw badInput([{ field: 'input', problem: 'give directoryUserId or userPrincipalName' }]);
    }
    if (!userId)
      throw new DomainError('DIRECTORY_USER_NOT_FOUND', 'No directory user matches; it may not be synchronized yet');
    if (identity.link.status === 'linked' && identity.link.userId === userId && identity.link.source === 'manual')
      return identity;
    if ((await this.claims.claim(tenantId, userId, identity)) !== 'claimed') {
      throw new DomainError(
        'LINK_CONFLICT',
        'The directory user is already linked to another business identity; unlink it first',
      );
    }
    const link: DirectoryLink = { status: 'linked', source: 'manual', userId };
    const saved = await this.write(identity, link, () => this.claims.release(tenantId, userId, identity));
    const previous = identity.link.status === 'linked' ? identity.link.userId : undefined;
    if (previous && previous !== userId) await this.claims.release(tenantId, previous, identity);
    await this.audit.write(tenantId, {
      actor,
      action: 'link.manualLinked',
      target: { type: 'businessIdentity', id },
      before: facts(identity.link),
      after: facts(link),
    });
    return saved;
  }

  async unlink(tenantId: string, pk: string, id: string, actor: Actor): Promise<IdentityDoc> {
    const identity = await this.find(pk, id);
    if (identity.link.status !== 'linked') return identity;
    const link: DirectoryLink = { status: 'notAsserted' };
    const saved = await this.write(identity, link, async () => undefined);
    if (identity.link.userId) await this.claims.release(tenantId, identity.link.userId, identity);
    await this.audit.write(tenantId, {
      actor,
      action: 'link.unlinked',
      target: { type: 'businessIdentity', id },
      before: facts(identity.link),
      after: facts(link),
    });
    return saved;
  }

  private async find(pk: string, id: string) {
    const identity = await this.repo.get(pk, id);
    if (!identity)
      throw new DomainError('NOT_FOUND', 'No business identity with this id in the source', [
        { field: 'input.id', problem: 'matches no identity' },
      ]);
    return identity;
  }

  private async write(
    identity: IdentityDoc & { _etag: string },
    link: DirectoryLink,
    onFailure: () => Promise<void>,
  ): Promise<IdentityDoc> {
    const { _etag, ...rest } = identity;
    try {
      // lastModified: the time of this write, taken again on each try when the store throttles.
      return await writeStamped((now) =>
        this.repo.replace({ ...rest, link, lastModified: now, version: identity.version + 1 }, _etag, {
          retryThrottled: false,
        }),
      );
    } catch (err) {
      await onFailure();
      if (isStoreError(err, 'preconditionFailed'))
        throw new DomainError('CONCURRENT_CHANGE', 'The identity changed during the operation; retry');
      throw err;
    }
  }
}
