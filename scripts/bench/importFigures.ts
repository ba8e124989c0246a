/*
 * Figures bench:import works out from its steps' measurements (kept apart from the benchmark's run so they
 * can be unit-tested).
 */

/** The request units the store charged a step's job, the identities the step sent, and how many it changed. */
export interface StepCharge {
  jobRu: number;
  identities: number;
  updated: number;
}

/**
 * What one changed identity costs in request units: the 1%-changed job's charges, less what the unchanged
 * job spent per identity (reading and comparing every identity of the set, which the changed job does too)
 * times the identities sent, over the identities changed. Undefined when a step is missing or changed nothing.
 */
export function changedIdentityCost(
  unchanged: StepCharge | undefined,
  changed: StepCharge | undefined,
): { perChanged: number; how: string } | undefined {
  if (!unchanged || !changed || changed.updated === 0 || unchanged.identities === 0) return undefined;
  const baselinePerIdentity = unchanged.jobRu / unchanged.identities;
  const baseline = baselinePerIdentity * changed.identities;
  const perChanged = (changed.jobRu - baseline) / changed.updated;
  return {
    perChanged,
    how:
      `(the 1%-changed job charged ${changed.jobRu.toFixed(0)} RU; less the unchanged job's ` +
      `${baselinePerIdentity.toFixed(3)} RU per identity × ${changed.identities} identities = ${baseline.toFixed(0)} RU ` +
      `of reading the set; over ${changed.updated} changed identities)`,
  };
}
