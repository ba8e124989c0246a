/**
 * An identity's history: each change kept on the identity document itself (no extra write), newest first,
 * at most MAX_HISTORY of them; older ones are dropped and counted. An entry says when, who (an integration,
 * an import or association run, an administrator, the background work), what was done and which attributes
 * changed, by their SCIM names (`name.givenName`, `personalNumbers`); never a value.
 */
import type { Actor } from '../audit/auditLog';
import type { ChangeActorKind, DirectoryLink, IdentityAttributes, IdentityDoc, IdentityHistoryEntry } from './model';
import { attributesOf } from './rules';
import { changedAttributes } from './attributes';

export const MAX_HISTORY = 50;

/** What was done (the GraphQL IdentityChange.operation). SCIM DELETE and import deletes remove the identity: nothing is kept. */
export type ChangeOperation =
  | 'CREATE'
  | 'REPLACE'
  | 'PATCH'
  | 'IMPORT_CREATE'
  | 'IMPORT_UPDATE'
  | 'IMPORT_DEACTIVATE'
  | 'ADMIN_UPDATE'
  | 'DEACTIVATE'
  | 'LINK'
  | 'UNLINK'
  | 'LINK_CHECK'
  | 'RETENTION';

export interface ChangeActor {
  kind: ChangeActorKind;
  id: string;
}

/** Who made a change and what it was. */
export interface ChangeRecord {
  actor: ChangeActor;
  operation: ChangeOperation;
}

/** The name a change of the directory link is recorded under. */
export const LINK_ATTRIBUTE = 'directoryLink';

export const byIntegration = (integrationId: string): ChangeActor => ({ kind: 'integration', id: integrationId });
export const byRun = (runId: string): ChangeActor => ({ kind: 'importRun', id: runId });
export const byAdministrator = (actor: Pick<Actor, 'id'>): ChangeActor => ({ kind: 'administrator', id: actor.id });
/** The background work by its name: `directory-links` or `retention`. */
export const byBackground = (name: 'directory-links' | 'retention'): ChangeActor => ({ kind: 'background', id: name });

/**
 * The names of the attributes that differ between two versions; for a new identity (`before` undefined), the
 * names of those it has. The attribute table names them (their SCIM path) and decides what counts as a change.
 */
export const changedAttributeNames: (before: IdentityAttributes | undefined, after: IdentityAttributes) => string[] =
  changedAttributes;

/** Whether the link changed in what an administrator sees: status, source, the linked user, the conflicting user. */
export function linkChanged(before: DirectoryLink | undefined, after: DirectoryLink): boolean {
  if (before === undefined) return after.status !== 'notAsserted';
  return (
    before.status !== after.status ||
    before.source !== after.source ||
    before.userId !== after.userId ||
    before.conflictUserId !== after.conflictUserId
  );
}

/** The history with `entry` as its newest change, bounded to MAX_HISTORY; the dropped ones are counted. */
export function appendEntry(
  doc: Pick<IdentityDoc, 'history' | 'historyOmitted'>,
  entry: IdentityHistoryEntry,
): { history: IdentityHistoryEntry[]; historyOmitted: number } {
  const all = [entry, ...(doc.history ?? [])];
  const history = all.slice(0, MAX_HISTORY);
  return { history, historyOmitted: (doc.historyOmitted ?? 0) + (all.length - history.length) };
}

/**
 * `after` (the version about to be written) with its change recorded, at its lastModified: the attributes
 * that differ from `before` (undefined for a new identity) and `directoryLink` when the link changed.
 */
export function withChange<T extends IdentityDoc>(before: IdentityDoc | undefined, after: T, record: ChangeRecord): T {
  const changedAttributes = changedAttributeNames(before && attributesOf(before), attributesOf(after));
  if (linkChanged(before?.link, after.link)) changedAttributes.push(LINK_ATTRIBUTE);
  const entry: IdentityHistoryEntry = {
    at: after.lastModified,
    actor: { kind: record.actor.kind, id: record.actor.id },
    operation: record.operation,
    changedAttributes,
  };
  return { ...after, ...appendEntry(after, entry) };
}

/** The operation of an update: a deactivation when it turns an active identity inactive. */
export function updateOperation(
  before: Pick<IdentityAttributes, 'active'>,
  after: Pick<IdentityAttributes, 'active'>,
  update: ChangeOperation,
  deactivate: ChangeOperation,
): ChangeOperation {
  return before.active && !after.active ? deactivate : update;
}
