import type { DirectoryLink, IdentityDoc } from '../identities/model';
import type { Actor } from '../audit/auditLog';
import type { Logger } from '../log/logger';

/** The link to store with an identity that is about to be written, and what to do after the write. */
export interface PlannedLink {
  link: DirectoryLink;
  /** After the identity was written: release a claim the identity gave up, write audit entries. */
  committed(saved: IdentityDoc): Promise<void>;
  /** The write failed: release a claim taken for it. */
  abandoned(): Promise<void>;
}

/** Keeps directory links consistent with identity writes (see linkService.ts). */
export interface LinkCoordinator {
  /** `log` hears when the directory could not be asked and the link waits as pending. */
  plan(
    tenantId: string,
    next: IdentityDoc,
    previous: IdentityDoc | undefined,
    actor: Actor,
    log?: Logger,
  ): Promise<PlannedLink>;
  released(tenantId: string, deleted: IdentityDoc, actor: Actor): Promise<void>;
}
