/**
 * A custom source's activity: its import and association runs (lib/imports/runHistory.ts), newest first,
 * each one entry with its counts, duration and outcome (the run as the unit: its changes are its drill-in,
 * historyActivity.ts `runChanges`). COMPLETED runs succeeded, REJECTED ones were refused (nothing written), FAILED and
 * ABANDONED ones failed; a run still going has no outcome yet and is left out.
 */
import type { RunHistory, RunView, ReportedRunStatus } from '../imports/runHistory';
import {
  entryKey,
  keyTime,
  type ActivityEntry,
  type ActivityOutcome,
  type ActivityStream,
  type RunCount,
} from './entries';

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

/** A run's counts by name, in the order its summary reads them. */
export function runCounts(r: RunView): RunCount[] | null {
  if (r.importCounts) {
    const c = r.importCounts;
    return [
      { name: 'created', value: c.created },
      { name: 'updated', value: c.updated },
      { name: 'deleted', value: c.deleted },
      { name: 'unchanged', value: c.unchanged },
    ];
  }
  if (r.associationCounts) {
    const c = r.associationCounts;
    return [
      { name: 'associated', value: c.associated },
      { name: 'unchanged', value: c.unchanged },
      { name: 'unknownExternalIds', value: c.unknownExternalIds },
      { name: 'unknownUserPrincipalNames', value: c.unknownUserPrincipalNames },
      { name: 'conflicts', value: c.conflictingUserPrincipalNames },
      { name: 'notDone', value: c.notDone },
    ];
  }
  return null;
}

function countsText(counts: RunCount[] | null): string | null {
  return counts ? counts.map((c) => `${c.name} ${c.value}`).join(', ') : null;
}

/** A run's entry; undefined while it is still going. */
export function runEntry(r: RunView): ActivityEntry | undefined {
  const outcome = OUTCOME[r.status];
  if (!outcome) return undefined;
  const counts = runCounts(r);
  const ended = r.endedAt === null ? NaN : Date.parse(r.endedAt) - Date.parse(r.startedAt);
  return {
    key: entryKey(uuid7Time(r.id), r.id),
    at: r.startedAt,
    operation: r.dryRun ? `${r.operation} (dry run)` : r.operation,
    outcome,
    httpStatus: null,
    scimType: null,
    code: r.failure?.code ?? null,
    detail: r.failure?.message ?? countsText(counts),
    externalId: null,
    identityId: null,
    changedAttributes: null,
    correlationId: r.correlationId,
    action: 'other',
    runId: r.id,
    counts,
    durationMs: Number.isFinite(ended) && ended >= 0 ? ended : null,
    actor: null,
  };
}

/** The runs of a custom source's partition as entries, newest first (of one outcome when named). */
export function runStream(runs: RunHistory, pk: string, outcome?: ActivityOutcome): ActivityStream {
  return async (query) => {
    // A run concerns a whole set, never one externalId; its action is `other` (its changes' actions are in its drill-in).
    if (query.externalId !== undefined || (query.action !== undefined && query.action !== 'other')) return [];
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
