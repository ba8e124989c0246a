/**
 * Does one unit of background work: one tenant's link cycle (lib/links/tenantLinkCycle.ts),
 * retention, a bounded batch, or one step of a staged import's job (lib/imports/importJob.ts), in one of
 * the instance's units shared fairly among tenants (fairUnits.ts); a tenant with too many messages
 * waiting for a unit gets this one put back on the queue for a few seconds.
 * When more is due it enqueues its own continuation; when the tenant's directory throttles or is
 * unavailable it puts the unit back with a delay (at most MAX_DEFERRALS times), so that tenant
 * waits without holding up any other. Any other failure is thrown: the queue retries the message
 * and moves it to the poison queue after maxDequeueCount.
 */
import type { Store } from '../store/store';
import type { DirectoryClient } from '../directory/directoryClient';
import type { LinkClaims } from '../links/claims';
import type { BackoffPolicy } from '../links/linkBackoff';
import type { AuditLog } from '../audit/auditLog';
import { runTenantLinkCycle, type TenantCycleResult } from '../links/tenantLinkCycle';
import {
  partitionsWithExpiredSensitiveData,
  purgePartitionExpiredSensitiveData,
  type RetentionResult,
} from '../identities/retention';
import { MAX_DEFERRALS, type BackgroundWork } from './backgroundWork';
import { deferralFor, type Deferral } from './deferral';
import type { WorkQueue } from './workQueue';
import { atLowPriority } from '../store/priority';
import { runImportStep, type ImportJobDeps, type ImportStepResult } from '../imports/importJob';
import type { FairUnits } from './fairUnits';

export interface WorkDeps {
  store: Store;
  directory: DirectoryClient;
  claims: LinkClaims;
  queue: WorkQueue;
  /** Back-off of conflicts and of UPNs the directory refuses (pending identities wait for directory changes instead). */
  backoff: BackoffPolicy;
  retentionInactiveDays: number;
  audit?: AuditLog;
  /** What a staged import's job needs (absent: import units are refused). */
  imports?: ImportJobDeps;
  /** The instance's units, shared among tenants (absent: every message runs at once, as in unit tests). */
  units?: FairUnits;
}

/** A message put back without a unit (its tenant has enough waiting, or it waited its longest) comes back after this long. */
export const PUT_BACK_SECONDS = 3;

/** Identities one retention unit examines. */
export const RETENTION_UNIT_LIMIT = 500;

export type WorkOutcome =
  | { done: 'pendingLinks'; result: TenantCycleResult; continued: boolean }
  | { done: 'retention'; result: RetentionResult; continued: boolean }
  | { done: 'import'; result: ImportStepResult; continued: boolean }
  | { deferred: Deferral; putBack: boolean }
  | { waitingFull: true; delaySeconds: number };

/**
 * One unit of background work, in the tenant's turn for one of the instance's units, at low priority in the
 * store and paced by the tenant's request-unit budget (see lib/store/priority.ts).
 */
export async function runBackgroundWork(deps: WorkDeps, work: BackgroundWork, now?: Date): Promise<WorkOutcome> {
  const unit = () => atLowPriority(() => runUnit(deps, work, now ?? new Date()), work.tenantId);
  if (!deps.units) return unit();
  const run = await deps.units.run(work.tenantId, unit);
  if (run.ran) return run.value;
  await deps.queue.send(work, PUT_BACK_SECONDS);
  return { waitingFull: true, delaySeconds: PUT_BACK_SECONDS };
}

async function runUnit(deps: WorkDeps, work: BackgroundWork, now: Date): Promise<WorkOutcome> {
  if (work.kind === 'import') {
    const { partition, importId, step } = work;
    if (!deps.imports || partition === undefined || importId === undefined || step === undefined)
      throw new Error('An import unit needs the import services and its import and step');
    const { result, continued } = await runImportStep(deps.imports, {
      tenantId: work.tenantId,
      partition,
      importId,
      step,
    });
    return { done: 'import', result, continued };
  }
  if (work.kind === 'retention') {
    if (work.partition === undefined) {
      // A tenant-wide unit (planned before units named their partition): one unit per due partition.
      const due = await partitionsWithExpiredSensitiveData(deps.store, deps.retentionInactiveDays, now, work.tenantId);
      for (const d of due) await deps.queue.send({ kind: 'retention', tenantId: work.tenantId, partition: d.pk });
      return {
        done: 'retention',
        result: { examined: 0, purged: 0, skipped: 0, more: false },
        continued: due.length > 0,
      };
    }
    const result = await purgePartitionExpiredSensitiveData(
      deps.store,
      work.partition,
      deps.retentionInactiveDays,
      RETENTION_UNIT_LIMIT,
      now,
    );
    if (result.more) await deps.queue.send({ kind: 'retention', tenantId: work.tenantId, partition: work.partition });
    return { done: 'retention', result, continued: result.more };
  }
  let result: TenantCycleResult;
  try {
    result = await runTenantLinkCycle(deps, work.tenantId, now);
  } catch (err) {
    const deferral = deferralFor(err);
    if (!deferral) throw err;
    const deferrals = (work.deferrals ?? 0) + 1;
    const putBack = deferral.reason !== 'notConsented' && deferrals <= MAX_DEFERRALS;
    if (putBack) await deps.queue.send({ ...work, deferrals }, deferral.seconds);
    return { deferred: deferral, putBack };
  }
  // A delta round longer than one unit (a first round of a large directory) goes on in the next unit.
  if (result.more) await deps.queue.send({ kind: 'pendingLinks', tenantId: work.tenantId });
  return { done: 'pendingLinks', result, continued: result.more };
}
