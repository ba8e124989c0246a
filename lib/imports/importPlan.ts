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

export function planImport(
  manifest: ReadonlyMap<string, ManifestEntry>,
  incoming: readonly ValidImportIdentity[],
  newId: () => string,
): ImportPlan {
  const plan: ImportPlan = {
    creates: [],
    updates: [],
    unchanged: 0,
    deletions: deletionsByAbsence(manifest, incoming),
  };
  for (const identity of incoming) {
    const entry = manifest.get(identity.attributes.externalId);
    if (!entry) plan.creates.push({ identity, id: newId() });
    else if (entry.hash === identity.hash) plan.unchanged++;
    else plan.updates.push({ identity, id: entry.id });
  }
  return plan;
}

/** True when the plan deletes a larger share of the source than `maxDeleteRatio` allows (IMPORT_MAX_DELETE_RATIO). */
export function exceedsDeleteLimit(
  plan: ImportPlan,
  manifestSize: number,
  maxDeleteRatio: number | undefined,
): boolean {
  return maxDeleteRatio !== undefined && manifestSize > 0 && plan.deletions.length / manifestSize > maxDeleteRatio;
}
