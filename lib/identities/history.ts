/**
 * An identity's history: each change kept on the identity document itself (no extra write), newest first,
 * at most MAX_HISTORY of them; older ones are dropped and counted. An entry says when, who (an integration,
 * an import or association run, an administrator, the background work), what was done and which attributes
 * changed, by their SCIM names (`name.givenName`, `personalNumbers`); never a value.
 *
 * Every write and every read of the identity carries these bytes, so they are stored compactly (about 19
 * bytes a change instead of 170: a full history adds about 1 KB, not 9 KB); this module alone reads and
 * writes that form, the rest of the code sees `IdentityHistoryEntry` through `readHistory`.
 */
import type { Actor } from '../audit/auditLog';
import type {
  ChangeActorKind,
  DirectoryLink,
  IdentityAttributes,
  IdentityDoc,
  IdentityHistoryEntry,
  StoredHistory,
} from './model';
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
  /** An administrator's display name (the token's `name` claim) at the time of the change. */
  name?: string;
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
export const byAdministrator = (actor: Pick<Actor, 'id' | 'name'>): ChangeActor => ({
  kind: 'administrator',
  id: actor.id,
  ...(actor.name !== undefined ? { name: actor.name } : {}),
});
/** The background work by its name: `directory-links` or `retention`. */
export const byBackground = (name: 'directory-links' | 'retention'): ChangeActor => ({ kind: 'background', id: name });

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
): { history: StoredHistory; historyOmitted: number } {
  const all = [entry, ...readHistory(doc)];
  const kept = all.slice(0, MAX_HISTORY);
  return { history: compactHistory(kept), historyOmitted: (doc.historyOmitted ?? 0) + (all.length - kept.length) };
}

// ---- the stored form ----
// Compact: `{ a: actors, n: attribute names, e: changes }`. Each actor (`<kind letter>:<id>`; an administrator
// with a name `a:<id>|<name>`, ids hold no `|`) and name is kept once; a change is one string
// `<time> <actor> <operation> <names>`: the time in milliseconds since 1970 in base 36 (an `at` that is not an exact ISO 8601 UTC time is kept as it is), the actor's index in base 36, the
// operation's letter, the names' indexes in base 36 joined by `.`. The letters are stored: never change one.

const KIND_LETTER: Record<ChangeActorKind, string> = {
  integration: 'i',
  importRun: 'r',
  administrator: 'a',
  background: 'b',
};
const OPERATION_LETTER: Record<ChangeOperation, string> = {
  CREATE: 'C',
  REPLACE: 'R',
  PATCH: 'P',
  IMPORT_CREATE: 'c',
  IMPORT_UPDATE: 'u',
  IMPORT_DEACTIVATE: 'd',
  ADMIN_UPDATE: 'A',
  DEACTIVATE: 'D',
  LINK: 'L',
  UNLINK: 'U',
  LINK_CHECK: 'K',
  RETENTION: 'T',
};
const KIND_OF_LETTER = new Map(Object.entries(KIND_LETTER).map(([kind, letter]) => [letter, kind as ChangeActorKind]));
const OPERATION_OF_LETTER = new Map(Object.entries(OPERATION_LETTER).map(([op, letter]) => [letter, op]));
const BASE36 = /^[0-9a-z]+$/;

function timeText(at: string): string {
  const ms = Date.parse(at);
  return Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === at ? ms.toString(36) : at;
}

function timeOf(text: string): string {
  return BASE36.test(text) ? new Date(parseInt(text, 36)).toISOString() : text;
}

function indexIn(list: string[], value: string): string {
  let i = list.indexOf(value);
  if (i < 0) i = list.push(value) - 1;
  return i.toString(36);
}

/** The compact stored form of `entries` (newest first). */
function compactHistory(entries: readonly IdentityHistoryEntry[]): StoredHistory {
  const a: string[] = [];
  const n: string[] = [];
  const e = entries.map((entry) =>
    [
      timeText(entry.at),
      indexIn(a, actorText(entry.actor)),
      (OPERATION_LETTER as Record<string, string | undefined>)[entry.operation] ?? entry.operation,
      entry.changedAttributes.map((name) => indexIn(n, name)).join('.'),
    ].join(' '),
  );
  return { a, n, e };
}

/** `<kind letter>:<id>`, and `|<name>` for an administrator with a name. */
function actorText(actor: IdentityHistoryEntry['actor']): string {
  const name = actor.kind === 'administrator' && actor.name !== undefined ? `|${actor.name}` : '';
  return `${KIND_LETTER[actor.kind]}:${actor.id}${name}`;
}

function actorOf(kind: ChangeActorKind, text: string): IdentityHistoryEntry['actor'] {
  const bar = kind === 'administrator' ? text.indexOf('|') : -1;
  return bar < 0 ? { kind, id: text } : { kind, id: text.slice(0, bar), name: text.slice(bar + 1) };
}

function entryOf(text: string, actors: readonly string[], names: readonly string[]): IdentityHistoryEntry[] {
  const [time, actorIndex, operation, nameIndexes, ...rest] = text.split(' ');
  if (time === undefined || actorIndex === undefined || operation === undefined || nameIndexes === undefined) return [];
  if (rest.length > 0) return [];
  const actor = actors[parseInt(actorIndex, 36)];
  const kind = actor === undefined ? undefined : KIND_OF_LETTER.get(actor.slice(0, 1));
  if (actor === undefined || kind === undefined || actor[1] !== ':') return [];
  const changedAttributes: string[] = [];
  for (const index of nameIndexes === '' ? [] : nameIndexes.split('.')) {
    const name = names[parseInt(index, 36)];
    if (name === undefined) return [];
    changedAttributes.push(name);
  }
  return [
    {
      at: timeOf(time),
      actor: actorOf(kind, actor.slice(2)),
      operation: (operation.length === 1 ? OPERATION_OF_LETTER.get(operation) : undefined) ?? operation,
      changedAttributes,
    },
  ];
}

/**
 * The identity's changes, newest first, from either stored form: the compact one, or the readable entries
 * of an identity not changed since (written compactly with its next change). A change that cannot be read
 * is left out.
 */
export function readHistory(doc: Pick<IdentityDoc, 'history'>): IdentityHistoryEntry[] {
  const stored = doc.history;
  if (stored === undefined) return [];
  if (Array.isArray(stored))
    return stored.map((e) => ({
      at: e.at,
      actor: { ...e.actor },
      operation: e.operation,
      changedAttributes: [...e.changedAttributes],
    }));
  return stored.e.flatMap((text) => entryOf(text, stored.a, stored.n));
}

/**
 * `after` (the version about to be written) with its change recorded, at its lastModified: the attributes
 * that differ from `before` (undefined for a new identity) and `directoryLink` when the link changed.
 * A change by an import or association run sets `lastRunId` (the run's drill-in finds the identity by it);
 * any other change sets `activityAt` (the source's activity reads identities by it, newest first, so the
 * changes of a run of 300,000 identities are not read to list one SCIM change).
 */
export function withChange<T extends IdentityDoc>(before: IdentityDoc | undefined, after: T, record: ChangeRecord): T {
  const changed = changedAttributes(before && attributesOf(before), attributesOf(after));
  if (linkChanged(before?.link, after.link)) changed.push(LINK_ATTRIBUTE);
  const entry: IdentityHistoryEntry = {
    at: after.lastModified,
    actor: { ...record.actor },
    operation: record.operation,
    changedAttributes: changed,
  };
  // A run's changes are reached from the run (lastRunId); every other change orders the source's activity (activityAt).
  const marks = record.actor.kind === 'importRun' ? { lastRunId: record.actor.id } : { activityAt: after.lastModified };
  return { ...after, ...appendEntry(after, entry), ...marks };
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
