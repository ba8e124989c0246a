/**
 * The one interpreter of the link state machine's effects (lib/links/linkStateMachine.ts): each effect, in
 * order, is handed to what its caller does for that kind. A link change by SCIM, by an administrator or by an
 * association goes through here, so a new kind of effect is handled in this one place (the compiler asks
 * every caller for its handler).
 */
import type { LinkEffect } from './linkStateMachine';

export type LinkAuditAction = Extract<LinkEffect, { kind: 'audit' }>['action'];

export interface LinkEffectHandlers {
  /** Gives up the claim on a directory user the identity no longer holds. */
  releaseClaim: (userId: string) => Promise<void>;
  /** Records the change: an audit entry, written at once or gathered for a batch. */
  audit: (action: LinkAuditAction) => Promise<void> | void;
}

/** Applies the effects of a stored transition, one after the other, in the order the transition gives. */
export async function applyLinkEffects(effects: readonly LinkEffect[], handlers: LinkEffectHandlers): Promise<void> {
  for (const effect of effects) {
    switch (effect.kind) {
      case 'releaseClaim':
        await handlers.releaseClaim(effect.userId);
        break;
      case 'audit':
        await handlers.audit(effect.action);
        break;
      default:
        effect satisfies never;
    }
  }
}
