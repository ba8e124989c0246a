/*
 * Following a staged import's run while the service applies it in the background (QUEUED → RUNNING →
 * COMPLETED | REJECTED | FAILED): importRun is polled, its progress (identities applied of the set) shown,
 * and the run's counts taken once it ends. The client may also stop after the run id (--no-wait): the run
 * goes on without it.
 */
import type { ImportCounts, ServiceRun } from '../runFollower';
import { Interrupted } from './interrupted';
import type { Meter } from './progress';
import type { ServiceCalls } from './serviceCalls';

const RUN =
  'query($id: ID!) { importRun(id: $id) { id operation status clientId correlationId progress { applied total } importCounts { created updated deleted unchanged } associationCounts { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } failure { code message } } }';

const UNDER_WAY = new Set(['QUEUED', 'RUNNING']);

export type WatchedRun = ServiceRun & { progress?: { applied: number; total: number } | null };

export async function watchRun(o: {
  calls: ServiceCalls;
  runId: string;
  meter: Meter;
  /** Between two looks at the run. */
  pollMs: number;
  /** Aborted: the client stops following; the run goes on. */
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}): Promise<WatchedRun> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let lastStatus: string | undefined;
  for (;;) {
    const run = (await o.calls.call(RUN, { id: o.runId }, 'the look at the run')).importRun as WatchedRun | null;
    if (!run) throw new Error(`run ${o.runId} is not in the run history`);
    if (run.status !== lastStatus && run.status === 'QUEUED') o.meter.line(`run ${o.runId} is queued`);
    lastStatus = run.status;
    if (run.progress && run.progress.total > 0) o.meter.update('applied', run.progress.applied, run.progress.total);
    if (!UNDER_WAY.has(run.status)) {
      o.meter.end();
      return run;
    }
    if (o.signal?.aborted) {
      o.meter.end();
      throw new Interrupted(
        `stopped following run ${o.runId}; the service goes on applying it (importRun, or npm run ops -- runs)`,
      );
    }
    await sleep(o.pollMs);
  }
}

/** The counts of a run that completed (a completed import always has them). */
export function importCountsOf(run: WatchedRun): ImportCounts {
  if (!run.importCounts) throw new Error(`run ${run.id} completed without counts`);
  return run.importCounts;
}
