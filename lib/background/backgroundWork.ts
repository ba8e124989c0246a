/**
 * A unit of background work, as a message on the `background-work` queue: one tenant's pending
 * links or retention, optionally continuing after an identity id, or one step of a staged import's job.
 * Messages are validated like any input: a malformed one is refused (and ends in the poison queue)
 * without echoing its content.
 */
import { isGuid, normalizeGuid } from '../util/guid';

export const BACKGROUND_QUEUE_NAME = 'background-work';
export const BACKGROUND_POISON_QUEUE_NAME = `${BACKGROUND_QUEUE_NAME}-poison`;

export type BackgroundWorkKind = 'pendingLinks' | 'retention' | 'import';

export interface BackgroundWork {
  kind: BackgroundWorkKind;
  tenantId: string;
  /**
   * Retention: the identities partition (`<tenantId>|<sourceKey>`) the unit works in. A retention
   * unit without one finds the tenant's due partitions and enqueues a unit for each.
   * Import: the source's partition, where the job's documents are.
   */
  partition?: string;
  /** Import: the staged import whose job this is. */
  importId?: string;
  /** Import: the step of the job this message does (a message delivered again after its step is ignored). */
  step?: number;
  /** Continue after this identity id ('' or absent = from the start). */
  after?: string;
  /** How often this unit was put back because the tenant's directory throttled or was unavailable. */
  deferrals?: number;
}

export class InvalidBackgroundWork extends Error {
  constructor(problem: string) {
    super(`Background work message refused: ${problem}`);
    this.name = 'InvalidBackgroundWork';
  }
}

const MAX_ID_LENGTH = 255;
const MAX_PARTITION_LENGTH = 600;
/** A unit is put back at most this often; after that the planner's next run plans the tenant again. */
export const MAX_DEFERRALS = 5;

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Far above the steps of any job (a step applies thousands of identities). */
export const MAX_IMPORT_STEP = 1_000_000;

export function parseBackgroundWork(message: unknown): BackgroundWork {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    throw new InvalidBackgroundWork('not a JSON object');
  const { kind, tenantId, partition, after, deferrals, importId, step, ...rest } = message as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new InvalidBackgroundWork('unknown members');
  if (kind !== 'pendingLinks' && kind !== 'retention' && kind !== 'import')
    throw new InvalidBackgroundWork('unknown kind');
  if (typeof tenantId !== 'string' || !isGuid(tenantId)) throw new InvalidBackgroundWork('tenantId is not a GUID');
  // Retention works in any of the tenant's identity partitions, an import job in one of its custom sources'.
  const prefix = `${normalizeGuid(tenantId)}|${kind === 'import' ? 'src:' : ''}`;
  const partitionOk =
    typeof partition === 'string' && partition.length <= MAX_PARTITION_LENGTH && partition.startsWith(prefix);
  if ((partition !== undefined || kind === 'import') && (kind === 'pendingLinks' || !partitionOk))
    throw new InvalidBackgroundWork("partition is not one of the tenant's identity partitions");
  if (kind === 'import') {
    if (typeof importId !== 'string' || !UUID7.test(importId))
      throw new InvalidBackgroundWork('importId is not an import id');
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step > MAX_IMPORT_STEP)
      throw new InvalidBackgroundWork('step is out of range');
    if (after !== undefined || deferrals !== undefined) throw new InvalidBackgroundWork('unknown members');
    return { kind, tenantId: normalizeGuid(tenantId), partition: partition as string, importId, step };
  }
  if (importId !== undefined || step !== undefined) throw new InvalidBackgroundWork('unknown members');
  if (after !== undefined && (typeof after !== 'string' || after.length > MAX_ID_LENGTH))
    throw new InvalidBackgroundWork('after is not an identity id');
  if (
    deferrals !== undefined &&
    (typeof deferrals !== 'number' || !Number.isInteger(deferrals) || deferrals < 0 || deferrals > MAX_DEFERRALS)
  ) {
    throw new InvalidBackgroundWork('deferrals is out of range');
  }
  return {
    kind,
    tenantId: normalizeGuid(tenantId),
    ...(typeof partition === 'string' ? { partition } : {}),
    ...(after ? { after } : {}),
    ...(deferrals ? { deferrals } : {}),
  };
}
