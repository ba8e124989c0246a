/**
 * What an import of a source's complete set changes (spec §4.2), worked out before anything is written:
 * the set compared with the source's manifest of content hashes. Pure: the caller reads the manifest
 * and gives the ids for new identities.
 */
import type { ManifestEntry } from './manifest';
import type { ValidImportIdentity } from './importInput';

/** An identity of the set to be written, with the id it has (known to the manifest) or will have. */
export interface PlannedWrite {
  identity: ValidImportIdentity;
  id: string;
  /** Its manifest entry when planned (absent for a create). */
  entry?: ManifestEntry;
}

export interface ImportPlan {
  /** Not in the manifest: new to the source. */
  creates: PlannedWrite[];
  /** In the manifest with another content hash, or none (a write of an earlier run may not have finished). */
  updates: PlannedWrite[];
  /** In the manifest with the same content hash: not written. */
  unchanged: number;
  /** Delete by absence: identities of the source the set no longer holds. */
  deletions: Array<{ externalId: string; entry: ManifestEntry }>;
}

/** Identities of the source that the incoming set does not hold: the set is complete, so they leave the source. */
export function deletionsByAbsence(
  manifest: ReadonlyMap<string, ManifestEntry>,
  incoming: readonly ValidImportIdentity[],
): Array<{ externalId: string; entry: ManifestEntry }> {
  const present = new Set(incoming.map((v) => v.attributes.externalId));
  return [...manifest]
    .filter(([externalId]) => !present.has(externalId))
    .map(([externalId, entry]) => ({ externalId, entry }));
}

/** The writes a list of identities needs (a whole set, or one part of a staged import): by the manifest's hashes. */
export function planWrites(
  manifest: ReadonlyMap<string, ManifestEntry>,
  incoming: Iterable<ValidImportIdentity>,
  newId: () => string,
): Omit<ImportPlan, 'deletions'> {
  const plan: Omit<ImportPlan, 'deletions'> = { creates: [], updates: [], unchanged: 0 };
  for (const identity of incoming) {
    const entry = manifest.get(identity.attributes.externalId);
    if (!entry) plan.creates.push({ identity, id: newId() });
    else if (entry.hash === identity.hash) plan.unchanged++;
    else plan.updates.push({ identity, id: entry.id, entry });
  }
  return plan;
}

export function planImport(
  manifest: ReadonlyMap<string, ManifestEntry>,
  incoming: readonly ValidImportIdentity[],
  newId: () => string,
): ImportPlan {
  return { ...planWrites(manifest, incoming, newId), deletions: deletionsByAbsence(manifest, incoming) };
}

/**
 * The manifest entry recorded before an identity is written (its intent): no hash, since the write may not
 * finish, and the hash it had before, so that a run repeating the write knows what the write changed.
 */
export function intentEntry(write: PlannedWrite): ManifestEntry {
  const before = write.entry;
  // An intent already (an earlier write stopped): what it had before stays what it had before; unknown stays unknown.
  const prev = before === undefined ? null : before.hash !== null ? before.hash : before.prev;
  return prev === undefined ? { id: write.id, hash: null } : { id: write.id, hash: null, prev };
}

/**
 * What a write that found the identity already as the set has it did, from the view of the source's last
 * recorded state: an intent left by a write that stopped (a crash) tells whether the identity was new or changed.
 */
export function repeatedWriteOutcome(write: PlannedWrite): 'created' | 'updated' | 'unchanged' {
  const before = write.entry;
  if (before?.hash !== null || before.prev === undefined) return 'unchanged';
  if (before.prev === null) return 'created';
  return before.prev === write.identity.hash ? 'unchanged' : 'updated';
}

/** True when the plan deletes a larger share of the source than `maxDeleteRatio` allows (IMPORT_MAX_DELETE_RATIO). */
export function exceedsDeleteLimit(
  plan: ImportPlan,
  manifestSize: number,
  maxDeleteRatio: number | undefined,
): boolean {
  return exceedsDeleteRatio(plan.deletions.length, manifestSize, maxDeleteRatio);
}

/** True when deleting `deletions` of the `held` identities of a source is a larger share than `maxDeleteRatio`. */
export function exceedsDeleteRatio(deletions: number, held: number, maxDeleteRatio: number | undefined): boolean {
  return maxDeleteRatio !== undefined && held > 0 && deletions / held > maxDeleteRatio;
}
