/*
 * Association of the rows that name a user, in bounded requests: each associateBusinessIdentities call
 * carries at most `chunk` pairs (within the service's ASSOCIATION_MAX_PAIRS) and a body within the body
 * limit. The counts of every part are added up; pairs answered ASSOCIATION_INCOMPLETE are sent again by
 * the run follower; after a part fails, the later parts are not sent and count as not done.
 */
import { addAssociationCounts, ServiceError, type AssociationCounts, type RunFollower } from '../runFollower';
import { Interrupted } from './interrupted';
import { jsonSizes, planParts } from './parts';
import type { Progress } from './progress';

export interface AssociationRow {
  externalId: string;
  userPrincipalName: string;
  /** The CSV line of the row, for the report. */
  line: number | undefined;
}

export type NotAssociatedReason = 'unknown userPrincipalName' | 'conflict' | 'unknown externalId' | 'not done';

/** A row the association did not link, for --report. */
export interface NotAssociatedRow {
  line: number | undefined;
  externalId: string;
  userPrincipalName: string;
  reason: NotAssociatedReason;
}

export function noAssociationCounts(): AssociationCounts {
  return {
    associated: 0,
    unchanged: 0,
    unknownExternalIds: 0,
    unknownUserPrincipalNames: 0,
    conflictingUserPrincipalNames: 0,
  };
}

export async function associateRows(o: {
  runs: RunFollower;
  rows: AssociationRow[];
  /** Pairs per request at most. */
  chunk: number;
  maxBodyBytes: number;
  progress: Progress;
  /** Aborted: no further part is sent (those left count as not done). */
  signal?: AbortSignal;
}): Promise<{ totals: AssociationCounts; notAssociated: NotAssociatedRow[]; failure?: unknown }> {
  const pairs = o.rows.map(({ externalId, userPrincipalName }) => ({ externalId, userPrincipalName }));
  const parts = planParts(jsonSizes(pairs), { maxItems: o.chunk, maxBytes: o.maxBodyBytes });
  const totals = noAssociationCounts();
  const notDone = new Set<string>();
  let failure: unknown;
  for (const part of parts) {
    const sent = pairs.slice(part.start, part.end);
    if (failure === undefined && o.signal?.aborted)
      failure = new Interrupted(
        `interrupted after ${part.sequence - 1} of ${parts.length} association parts; run the same command again to associate the others`,
      );
    if (failure !== undefined) {
      for (const p of sent) notDone.add(p.externalId);
      continue;
    }
    o.progress(`associating part ${part.sequence} of ${parts.length} (${sent.length} pairs)`);
    try {
      addAssociationCounts(totals, await o.runs.associate(sent));
    } catch (err) {
      failure = err;
      const left = err instanceof ServiceError && err.partial ? err.partial.externalIds : sent.map((p) => p.externalId);
      for (const id of left) notDone.add(id);
    }
  }
  const named = o.runs.notAssociated;
  const notAssociated = o.rows.flatMap((a): NotAssociatedRow[] => {
    const upn = a.userPrincipalName.toLowerCase();
    const reason: NotAssociatedReason | undefined = notDone.has(a.externalId)
      ? 'not done'
      : named.unknownExternalIds.has(a.externalId)
        ? 'unknown externalId'
        : named.conflictingUserPrincipalNames.has(upn)
          ? 'conflict'
          : named.unknownUserPrincipalNames.has(upn)
            ? 'unknown userPrincipalName'
            : undefined;
    return reason ? [{ line: a.line, externalId: a.externalId, userPrincipalName: a.userPrincipalName, reason }] : [];
  });
  return { totals, notAssociated, ...(failure !== undefined ? { failure } : {}) };
}
