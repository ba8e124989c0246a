/**
 * Which import runs of a source stand out by what they deleted (spec §4.2: "a large deleted count can
 * indicate an error in the source data"). A run's deleted share is the share the import guard measures
 * (IMPORT_MAX_DELETE_RATIO, lib/imports/importPlan.ts): deleted of the identities the source held before the
 * run, i.e. deleted / (updated + unchanged + deleted). A run stands out when its share is more than three
 * times the median share of the source's runs in the window, or when the delete guard refused it.
 */
import type { ImportRun } from './api';

export type RunInput = Pick<
  ImportRun,
  'id' | 'operation' | 'status' | 'startedAt' | 'dryRun' | 'importCounts' | 'failure'
>;

export interface TrendRun {
  id: string;
  startedAt: string;
  status: ImportRun['status'];
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** deleted / held before the run; null when the run has no counts or the source held nothing. */
  deletedShare: number | null;
  /** Why the run stands out, in words; null when it does not. */
  standsOut: string | null;
}

export interface RunTrend {
  runs: TrendRun[];
  /** The median deleted share of the runs with counts; null when there are fewer than MIN_RUNS_FOR_MEDIAN. */
  medianShare: number | null;
}

export const TREND_DAYS = 90;
export const OUTLIER_FACTOR = 3;
/** Below this many runs with counts a median says little, so only the delete guard marks a run. */
export const MIN_RUNS_FOR_MEDIAN = 3;
export const DELETE_GUARD_CODE = 'IMPORT_DELETE_LIMIT_EXCEEDED';

export function deletedShare(c: { updated: number; deleted: number; unchanged: number }): number | null {
  const held = c.updated + c.unchanged + c.deleted;
  return held > 0 ? c.deleted / held : null;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const percent = (share: number) =>
  `${(share * 100).toLocaleString('en-US', { maximumFractionDigits: share < 0.01 ? 2 : 1 })} %`;

/**
 * The import runs (not dry runs, not associations) that started in the TREND_DAYS before `now`, oldest first,
 * each with its deleted share and why it stands out.
 */
export function runTrend(runs: readonly RunInput[], now: Date): RunTrend {
  const from = now.getTime() - TREND_DAYS * 86_400_000;
  const inWindow = runs
    .filter((r) => r.operation === 'IMPORT' && !r.dryRun && Date.parse(r.startedAt) >= from)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const shares = inWindow.flatMap((r) => {
    const s = r.importCounts ? deletedShare(r.importCounts) : null;
    return s === null ? [] : [s];
  });
  const medianShare = shares.length >= MIN_RUNS_FOR_MEDIAN ? median(shares) : null;
  return {
    medianShare,
    runs: inWindow.map((r) => {
      const c = r.importCounts ?? { created: 0, updated: 0, deleted: 0, unchanged: 0 };
      const share = r.importCounts ? deletedShare(r.importCounts) : null;
      return {
        id: r.id,
        startedAt: r.startedAt,
        status: r.status,
        ...c,
        deletedShare: share,
        standsOut: why(r, share, medianShare),
      };
    }),
  };
}

function why(r: RunInput, share: number | null, medianShare: number | null): string | null {
  if (r.failure?.code === DELETE_GUARD_CODE)
    return `Refused by the delete guard (${DELETE_GUARD_CODE}): ${r.failure.message}`;
  if (share === null || medianShare === null || r.importCounts === null || r.importCounts.deleted === 0) return null;
  if (share <= OUTLIER_FACTOR * medianShare) return null;
  const held = r.importCounts.updated + r.importCounts.unchanged + r.importCounts.deleted;
  return `Deleted ${percent(share)} of the source (${r.importCounts.deleted} of ${held}), more than ${OUTLIER_FACTOR} times the median of ${percent(medianShare)} over the last ${TREND_DAYS} days.`;
}
