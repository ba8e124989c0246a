/**
 * Applies the link state machine to identity writes: directory look-up when the asserted
 * UPN changes, claim before the identity write, release and audit after it.
 */
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import type { DirectoryClient, DirectoryUser } from '../directory/directoryClient';
import { DirectoryUnavailableError, directoryAdvice } from '../directory/directoryTrouble';
import type { Logger } from '../log/logger';
import type { AuditLog } from '../audit/auditLog';
import type { Actor } from '../audit/auditLog';
import type { LinkClaims } from './claims';
import type { LinkCoordinator, PlannedLink } from './linkCoordinator';
import { afterLookup, saveAction, withoutAssertion, type LinkTransition } from './linkStateMachine';
import { applyLinkEffects } from './linkEffects';

function linkFacts(link: DirectoryLink | undefined): Record<string, string | null> {
  return { status: link?.status ?? null, source: link?.source ?? null, userId: link?.userId ?? null };
}

export class LinkService implements LinkCoordinator {
  constructor(
    private readonly claims: LinkClaims,
    private readonly directory: DirectoryClient,
    private readonly audit: AuditLog,
  ) {}

  async plan(
    tenantId: string,
    next: IdentityDoc,
    previous: IdentityDoc | undefined,
    actor: Actor,
    log?: Logger,
  ): Promise<PlannedLink> {
    const upn = next.directoryUserPrincipalName;
    const action = saveAction(previous?.link, upn);
    if (action === 'keep')
      return this.planned(
        tenantId,
        next,
        previous,
        { link: previous?.link ?? { status: 'notAsserted' }, effects: [] },
        undefined,
        actor,
      );
    if (action === 'noAssertion' || upn === undefined)
      return this.planned(tenantId, next, previous, withoutAssertion(previous?.link), undefined, actor);

    let user: DirectoryUser | undefined;
    try {
      user = await this.directory.findByUpn(tenantId, upn);
    } catch (err) {
      if (!(err instanceof DirectoryUnavailableError)) throw err;
      // A directory outage or a missing consent never blocks the save: the link waits as pending,
      // owing the look-up, which the next background cycle makes (the user may exist already).
      log?.warn(directoryAdvice(err.reason), {
        directoryProblem: err.reason,
        directoryStatus: err.status,
        linkStatus: 'pending',
      });
      const waiting = afterLookup(previous?.link, upn, { kind: 'notFound' }, undefined);
      return this.planned(
        tenantId,
        next,
        previous,
        { ...waiting, link: { ...waiting.link, lookUpOwed: true } },
        undefined,
        actor,
      );
    }
    if (!user)
      return this.planned(
        tenantId,
        next,
        previous,
        afterLookup(previous?.link, upn, { kind: 'notFound' }, undefined),
        undefined,
        actor,
      );
    const claim = await this.claims.claim(tenantId, user.id, next);
    // A claim that the identity already held before this write is not new: keep it if the write fails.
    const newlyClaimed = claim === 'claimed' && previous?.link.userId !== user.id ? user.id : undefined;
    return this.planned(
      tenantId,
      next,
      previous,
      afterLookup(previous?.link, upn, { kind: 'found', userId: user.id }, claim),
      newlyClaimed,
      actor,
    );
  }

  async released(tenantId: string, deleted: IdentityDoc, actor: Actor): Promise<void> {
    if (deleted.link.status !== 'linked' || !deleted.link.userId) return;
    await this.claims.release(tenantId, deleted.link.userId, deleted);
    await this.audit.write(tenantId, {
      actor,
      action: 'link.removedWithIdentity',
      target: { type: 'businessIdentity', id: deleted.id },
      before: linkFacts(deleted.link),
      after: linkFacts(undefined),
    });
  }

  private planned(
    tenantId: string,
    next: IdentityDoc,
    previous: IdentityDoc | undefined,
    t: LinkTransition,
    newlyClaimed: string | undefined,
    actor: Actor,
  ): PlannedLink {
    return {
      link: t.link,
      committed: async (saved) => {
        await applyLinkEffects(t.effects, {
          releaseClaim: (userId) => this.claims.release(tenantId, userId, saved),
          audit: (action) =>
            this.audit.write(tenantId, {
              actor,
              action,
              target: { type: 'businessIdentity', id: saved.id },
              before: linkFacts(previous?.link),
              after: linkFacts(saved.link),
            }),
        });
      },
      abandoned: async () => {
        if (newlyClaimed) await this.claims.release(tenantId, newlyClaimed, next);
      },
    };
  }
}
