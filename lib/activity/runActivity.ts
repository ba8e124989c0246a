/**
 * A custom source's activity: the outcomes of its import and association runs (lib/imports/runHistory.ts),
 * newest first. COMPLETED runs succeeded, REJECTED ones were refused (nothing written), FAILED and
 * ABANDONED ones failed; a run still going has no outcome yet and is left out.
 */
import type { RunHistory, RunView, ReportedRunStatus } from '../imports/runHistory';
import { entryKey, keyTime, type ActivityEntry, type ActivityOutcome, type ActivityStream } from './entries';

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The stored statuses of each outcome; `running` is read for runs reported abandoned. */
const STATUSES: Record<ActivityOutcome, readonly ReportedRunStatus[]> = {
  succeeded: ['completed'],
  refused: ['rejected'],
  failed: ['failed', 'abandoned', 'running'],
};
/** Runs still going read beyond a page, so a page is full although they are left out. */
const RUNNING_SLACK = 4;

const OUTCOME: Partial<Record<ReportedRunStatus, ActivityOutcome>> = {
  completed: 'succeeded',
  rejected: 'refused',
  failed: 'failed',
  abandoned: 'failed',
};

/** The first 48 bits of a UUIDv7 made at `ms`, as its text begins (`xxxxxxxx-xxxx`). */
function uuid7Prefix(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

const uuid7Time = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

/** The run ids below a key: below its run, or (a key of another stream) below its millisecond. */
function runIdBelow(key: string): string {
  const tail = key.slice(25);
  return `run-${UUID7.test(tail) ? tail : uuid7Prefix(keyTime(key))}`;
}

function countsText(r: RunView): string | null {
  if (r.importCounts) {
    const c = r.importCounts;
    return `created ${c.created}, updated ${c.updated}, deleted ${c.deleted}, unchanged ${c.unchanged}`;
  }
  if (r.associationCounts) {
    const c = r.associationCounts;
    return `associated ${c.associated}, unchanged ${c.unchanged}, unknown externalIds ${c.unknownExternalIds}, unknown UPNs ${c.unknownUserPrincipalNames}, conflicting ${c.conflictingUserPrincipalNames}`;
  }
  return null;
}

/** A run's entry; undefined while it is still going. */
export function runEntry(r: RunView): ActivityEntry | undefined {
  const outcome = OUTCOME[r.status];
  if (!outcome) return undefined;
  return {
    key: entryKey(uuid7Time(r.id), r.id),
    at: r.startedAt,
    operation: r.dryRun ? `${r.operation} (dry run)` : r.operation,
    outcome,
    httpStatus: null,
    scimType: null,
    code: r.failure?.code ?? null,
    detail: r.failure?.message ?? countsText(r),
    externalId: null,
    identityId: null,
    changedAttributes: null,
    correlationId: r.correlationId,
  };
}

/** The runs of a custom source's partition as entries, newest first (of one outcome when named). */
export function runStream(runs: RunHistory, pk: string, outcome?: ActivityOutcome): ActivityStream {
  return async (query) => {
    // A run concerns a whole set, never one externalId.
    if (query.externalId !== undefined) return [];
    const views = await runs.page(pk, {
      ...(query.before !== undefined ? { beforeId: runIdBelow(query.before) } : {}),
      ...(query.since !== undefined ? { sinceId: `run-${uuid7Prefix(Date.parse(query.since))}` } : {}),
      ...(outcome ? { statuses: STATUSES[outcome] } : {}),
      limit: query.limit + RUNNING_SLACK,
    });
    return views
      .map(runEntry)
      .filter((e): e is ActivityEntry => e !== undefined && (!outcome || e.outcome === outcome))
      .slice(0, query.limit);
  };
}
