/*
 * A set larger than one request, sent as a staged import: startImport, the parts (addImportPart, a few at
 * once, each within the service's maxIdentitiesPerPart and the body limit), then completeImport, whose
 * answer names the run that applies the set in the background. A part is idempotent by its sequence, so a
 * part whose request failed in a way that may pass is sent again; an interrupted upload is resumed from
 * the parts the service holds (resumeState.ts).
 */
import { ServiceError } from '../runFollower';
import { Interrupted } from './interrupted';
import { jsonSizes, planParts, type Part } from './parts';
import type { Meter, Progress } from './progress';
import {
  decideResume,
  readResume,
  removeResume,
  sameKey,
  writeResume,
  type ResumeDecision,
  type StagedImportView,
  type UploadKey,
} from './resumeState';
import type { ServiceCalls } from './serviceCalls';

const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId maxIdentitiesPerPart expiresAt } }';
const ADD_PART =
  'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { importId sequence identities partsReceived identitiesReceived } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { importId runId status } }';
const STAGED =
  'query($id: ID!) { stagedImport(importId: $id) { importId source sequences identitiesReceived expiresAt runId } }';

/** Parts in flight at once. */
export const PARTS_AT_ONCE = 3;
/** Rounds of completeImport answered IMPORT_PARTS_MISSING (the missing parts are sent again between them). */
const COMPLETE_ROUNDS = 3;

export interface StagedUploadOptions {
  calls: ServiceCalls;
  source: string;
  identities: readonly unknown[];
  /** Identities per part the client sends at most (the service's maxIdentitiesPerPart may lower it). */
  partSize: number;
  maxBodyBytes: number;
  dryRun: boolean;
  maxDeletedRatio: number | null;
  /** Where the upload is remembered for a resume, and what identifies the file and the target. */
  resume?: { file: string; service: string; tenant: string; fileHash: string };
  meter: Meter;
  progress: Progress;
  /** Aborted: no further part is started; the parts in flight finish, and the upload can be resumed. */
  signal?: AbortSignal;
  partsAtOnce?: number;
}

export interface StagedUpload {
  importId: string;
  runId: string;
  /** The run's status as completeImport answered it (QUEUED, usually). */
  status: string;
  parts: number;
  /** Parts this run sent (a resumed upload sends only the ones the service did not hold). */
  partsSent: number;
  /** Parts the service held already when the upload was resumed. */
  partsResumed: number;
}

/** The upload stopped at the client's request (Ctrl+C) before the set was complete; run again to resume it. */
export class UploadInterrupted extends Interrupted {
  constructor(
    readonly partsHeld: number,
    readonly parts: number,
  ) {
    super(
      `interrupted after ${partsHeld} of ${parts} parts were uploaded; run the same command again to resume the upload`,
    );
    this.name = 'UploadInterrupted';
  }
}

/** The problems of a part's BAD_USER_INPUT, by their index in the whole set (as the client's own check reports them). */
export function problemsInSet(
  problems: ReadonlyArray<{ field: string; problem: string; index?: unknown }>,
  offset: number,
): Array<{ field: string; problem: string }> {
  const shift = (text: string) =>
    text.replace(/identities\[(\d+)\]/g, (_all, i: string) => `identities[${offset + Number(i)}]`);
  return problems.map((p) => {
    if (/identities\[\d+\]/.test(p.field)) return { field: shift(p.field), problem: shift(p.problem) };
    const index = typeof p.index === 'number' ? p.index : undefined;
    return {
      field: index === undefined ? p.field : `identities[${offset + index}].${p.field}`,
      problem: shift(p.problem),
    };
  });
}

function codeOf(err: unknown): string | undefined {
  return err instanceof ServiceError ? err.code : undefined;
}

async function stagedImport(calls: ServiceCalls, importId: string): Promise<StagedImportView | null> {
  let view: StagedImportView | null | undefined;
  try {
    view = (await calls.call(STAGED, { id: importId }, 'the look at the upload')).stagedImport as typeof view;
  } catch (err) {
    if (codeOf(err) === 'IMPORT_NOT_FOUND') return null;
    throw err;
  }
  return view && Array.isArray(view.sequences) ? view : null;
}

export async function uploadStaged(o: StagedUploadOptions): Promise<StagedUpload> {
  const sizes = jsonSizes(o.identities);
  const key: UploadKey | undefined = o.resume && {
    service: o.resume.service,
    tenant: o.resume.tenant,
    source: o.source,
    fileHash: o.resume.fileHash,
    partSize: o.partSize,
    maxBodyBytes: o.maxBodyBytes,
    dryRun: o.dryRun,
    maxDeletedRatio: o.maxDeletedRatio,
  };
  const saved = o.resume ? readResume(o.resume.file) : undefined;
  let decision: ResumeDecision = { resume: false };
  if (saved && key) {
    const staged = sameKey(saved, key) ? await stagedImport(o.calls, saved.importId) : undefined;
    decision = decideResume(saved, { ...key, identities: o.identities.length }, staged);
  }
  for (let attempt = 1; ; attempt++) {
    let importId: string;
    let parts: Part[];
    let toSend: number[];
    let resumed = 0;
    if (decision.resume && saved) {
      importId = decision.importId;
      parts = planParts(sizes, { maxItems: saved.partIdentities, maxBytes: o.maxBodyBytes });
      toSend = decision.missing;
      resumed = decision.received;
      o.progress(`resuming the upload: the service holds ${resumed} of ${parts.length} parts`);
    } else {
      const reason = decision.resume ? undefined : decision.reason;
      if (reason) o.progress(`starting the upload over: ${reason}`);
      const started = (
        await o.calls.call(
          START,
          {
            i: {
              source: o.source,
              ...(o.dryRun ? { dryRun: true } : {}),
              ...(o.maxDeletedRatio !== null ? { maxDeletedRatio: o.maxDeletedRatio } : {}),
            },
          },
          'the start of the import',
        )
      ).startImport as { importId: string; maxIdentitiesPerPart: number; expiresAt: string };
      importId = started.importId;
      const partIdentities = Math.max(1, Math.min(o.partSize, started.maxIdentitiesPerPart || o.partSize));
      parts = planParts(sizes, { maxItems: partIdentities, maxBytes: o.maxBodyBytes });
      toSend = parts.map((p) => p.sequence);
      if (o.resume && key)
        writeResume(o.resume.file, {
          ...key,
          importId,
          partIdentities,
          parts: parts.length,
          identities: o.identities.length,
          expiresAt: started.expiresAt,
        });
    }
    o.progress(
      `uploading ${o.identities.length} identities in ${parts.length} parts to source ${o.source}${o.dryRun ? ' (dry run)' : ''}`,
    );
    try {
      const sent = await sendParts(o, importId, parts, toSend);
      const completed = await complete(o, importId, parts);
      if (o.resume) removeResume(o.resume.file);
      return {
        importId,
        runId: completed.runId,
        status: completed.status,
        parts: parts.length,
        partsSent: sent + completed.partsSentAgain,
        partsResumed: resumed,
      };
    } catch (err) {
      // The import expired meanwhile, or a resumed import holds other identities under a sequence: once, anew.
      const code = codeOf(err);
      const anew = code === 'IMPORT_NOT_FOUND' || (code === 'IMPORT_PART_CONFLICT' && resumed > 0);
      if (!anew || attempt > 1) throw err;
      decision = {
        resume: false,
        reason:
          code === 'IMPORT_NOT_FOUND' ? 'the service no longer holds the import' : 'the service holds other parts',
      };
    }
  }
}

/** Sends the parts (a few at once); the number sent. */
async function sendParts(
  o: StagedUploadOptions,
  importId: string,
  parts: Part[],
  sequences: number[],
): Promise<number> {
  const total = o.identities.length;
  const pending = new Set(sequences);
  let uploaded = parts.filter((p) => !pending.has(p.sequence)).reduce((n, p) => n + p.end - p.start, 0);
  let next = 0;
  let sent = 0;
  let failure: { err: unknown } | undefined;
  o.meter.update('uploaded', uploaded, total);
  const worker = async () => {
    while (next < sequences.length && !failure && !o.signal?.aborted) {
      const part = parts[(sequences[next++] ?? 0) - 1];
      if (!part) continue;
      try {
        await sendPart(o, importId, part);
      } catch (err) {
        failure ??= { err };
        return;
      }
      sent++;
      uploaded += part.end - part.start;
      o.meter.update('uploaded', uploaded, total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.partsAtOnce ?? PARTS_AT_ONCE, sequences.length) }, worker));
  if (failure) throw failure.err;
  if (o.signal?.aborted) {
    o.meter.end();
    throw new UploadInterrupted(parts.length - sequences.length + sent, parts.length);
  }
  return sent;
}

async function sendPart(o: StagedUploadOptions, importId: string, part: Part): Promise<void> {
  const identities = o.identities.slice(part.start, part.end);
  try {
    await o.calls.call(ADD_PART, { i: { importId, sequence: part.sequence, identities } }, `part ${part.sequence}`);
  } catch (err) {
    if (err instanceof ServiceError && err.problems.length > 0) {
      const problems = problemsInSet(err.problems, part.start);
      throw new ServiceError(
        [err.message.split('\n', 1)[0] ?? '', ...problems.map((p) => `  ${p.field}: ${p.problem}`)].join('\n'),
        err.code,
        undefined,
        undefined,
        problems,
      );
    }
    if (err instanceof ServiceError && (err.code === 'USE_STAGED_IMPORT' || err.code === 'IMPORT_PART_TOO_LARGE'))
      throw new Error(
        `${err.code}: the service refused part ${part.sequence} (${part.end - part.start} identities) as too large; run again with a smaller --part-size or --max-body-bytes`,
      );
    throw err;
  }
}

/** completeImport; parts the service says it misses are sent again first. */
async function complete(
  o: StagedUploadOptions,
  importId: string,
  parts: Part[],
): Promise<{ runId: string; status: string; partsSentAgain: number }> {
  let partsSentAgain = 0;
  for (let round = 1; ; round++) {
    try {
      const done = (await o.calls.call(COMPLETE, { i: { importId } }, 'the completion')).completeImport as {
        runId: string;
        status: string;
      };
      return { runId: done.runId, status: done.status, partsSentAgain };
    } catch (err) {
      const code = codeOf(err);
      if (code === 'IMPORT_PARTS_MISSING' && round < COMPLETE_ROUNDS && err instanceof ServiceError) {
        const listed = Array.isArray(err.extensions.missing) ? err.extensions.missing : [];
        const missing = listed.filter((s): s is number => typeof s === 'number' && s >= 1 && s <= parts.length);
        if (missing.length === 0) throw err;
        o.progress(`the service misses ${missing.length} of ${parts.length} parts; sending them again`);
        partsSentAgain += await sendParts(o, importId, parts, missing);
        continue;
      }
      // A completion sent again after a failure that passed may find its first send accepted.
      if (code === 'IMPORT_NOT_FOUND') {
        const staged = await stagedImport(o.calls, importId);
        if (staged?.runId) return { runId: staged.runId, status: 'QUEUED', partsSentAgain };
      }
      throw err;
    }
  }
}
