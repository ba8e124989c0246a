/**
 * importBusinessIdentities: the complete set of a custom source replaces what the service holds
 * for it (spec §3.2, §4.2). Only what changed is written: the set is compared with the source's
 * manifest of content hashes. The manifest is written before the identities (entries whose write
 * may be under way carry no hash) and after them, so a failure at any point leaves a state that
 * the next run of the same import converges from.
 */
import type { IdentityDoc } from '../identities/model';
import { partitionKey } from '../identities/model';
import { newIdentityDoc, nextIdentityVersion } from '../identities/rules';
import { IdentityRepository, UniquenessError } from '../identities/repository';
import { byRun, updateOperation, withChange, type ChangeActor } from '../identities/history';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { LinkClaims } from '../links/claims';
import { uuid7 } from '../util/uuid7';
import { DomainError } from '../util/domainError';
import { forEachBounded } from '../util/concurrency';
import { RETRY, retrying } from '../store/retryPolicy';
import {
  validateImportSet,
  validateSourceName,
  type ImportIdentityInput,
  type ValidImportIdentity,
} from './importInput';
import { ImportManifest } from './manifest';
import {
  exceedsDeleteLimit,
  intentEntry,
  planImport,
  repeatedWriteOutcome,
  type ImportPlan,
  type PlannedWrite,
} from './importPlan';
import { acquireImportLease } from './importLease';
import { CODE } from '../util/errorCodes';
import { withKeyedHashes } from '../crypto/contentHashes';

export interface ImportCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/**
 * How a run reports itself: its id (held with the lease) and the counts object it fills in as it writes;
 * and what the request asks: only the counts it would write (dryRun), and the share of the source's
 * identities it may delete at most (maxDeletedRatio, besides IMPORT_MAX_DELETE_RATIO; the stricter holds).
 */
export interface ImportRunContext {
  runId?: string;
  counts?: ImportCounts;
  dryRun?: boolean;
  maxDeletedRatio?: number;
}

export const WRITE_PARALLELISM = 32;
/** Identities new to the source are created in transactional batches of this size, this many at once. */
export const CREATE_BATCH = 100;
export const CREATE_BATCH_PARALLELISM = 8;

/** The partition key part of a custom source (kept apart from SCIM integration ids). */
export function customSourceKey(source: string): string {
  return `src:${source}`;
}

export class Importer {
  private readonly repo: IdentityRepository;

  constructor(
    private readonly store: Store,
    private readonly claims: LinkClaims,
    private readonly maxDeleteRatio: number | undefined,
    private readonly maxIdentities: number = Number.POSITIVE_INFINITY,
  ) {
    this.repo = new IdentityRepository(store);
  }

  async import(
    tenantId: string,
    sourceInput: unknown,
    identities: ImportIdentityInput[],
    run: ImportRunContext = {},
  ): Promise<ImportCounts> {
    const source = validateSourceName(sourceInput);
    if (identities.length > this.maxIdentities) {
      throw new DomainError(
        CODE.IMPORT_TOO_LARGE,
        `An import set holds at most ${this.maxIdentities} identities (IMPORT_MAX_IDENTITIES); split the source or raise the limit`,
      );
    }
    const valid = await withKeyedHashes(this.store, tenantId, validateImportSet(identities));
    const pk = partitionKey(tenantId, customSourceKey(source));
    const counts = run.counts ?? { created: 0, updated: 0, deleted: 0, unchanged: 0 };
    // A dry run writes nothing to the source, so it neither takes nor waits for the lease.
    if (run.dryRun) return this.apply(tenantId, source, pk, valid, counts, run);
    const lease = await acquireImportLease(this.store, pk, Date.now(), run.runId);
    try {
      return await this.apply(tenantId, source, pk, valid, counts, run);
    } finally {
      await lease.release();
    }
  }

  private async apply(
    tenantId: string,
    source: string,
    pk: string,
    valid: ValidImportIdentity[],
    counts: ImportCounts,
    request: Pick<ImportRunContext, 'runId' | 'dryRun' | 'maxDeletedRatio'>,
  ): Promise<ImportCounts> {
    const manifest = await ImportManifest.load(this.store, pk);
    const plan = planImport(manifest.entries, valid, uuid7);
    counts.unchanged += plan.unchanged;
    const strictest = this.strictestDeleteRatio(request.maxDeletedRatio);
    if (exceedsDeleteLimit(plan, manifest.entries.size, strictest))
      throw deleteLimitExceeded(plan.deletions.length, manifest.entries.size, request.maxDeletedRatio !== undefined);
    if (request.dryRun) {
      counts.created += plan.creates.length;
      counts.updated += plan.updates.length;
      counts.deleted += plan.deletions.length;
      return counts;
    }
    await this.writePlanned(tenantId, source, pk, manifest, plan, counts, request.runId);
    return counts;
  }

  /** The stricter of IMPORT_MAX_DELETE_RATIO and a request's maxDeletedRatio (undefined: no limit). */
  strictestDeleteRatio(requested: number | undefined): number | undefined {
    const limits = [this.maxDeleteRatio, requested].filter((r): r is number => r !== undefined);
    return limits.length > 0 ? Math.min(...limits) : undefined;
  }

  /**
   * Writes planned creates, updates and deletions of a source and records them in its manifest: intent
   * first (entries about to be written lose their hash), then the identities, then the outcome, also when a
   * write failed part-way. Used by importBusinessIdentities for a whole set and by a staged import's job
   * for each of its steps. Each identity written records the change in its history, made by the run `runId`.
   */
  async writePlanned(
    tenantId: string,
    source: string,
    pk: string,
    manifest: ImportManifest,
    plan: Pick<ImportPlan, 'creates' | 'updates' | 'deletions'>,
    counts: ImportCounts,
    runId: string | undefined,
  ): Promise<void> {
    // A run is always recorded with its id; without one (a direct call) the change is the source's.
    const by = byRun(runId ?? source);
    const writes = [...plan.creates, ...plan.updates];
    if (writes.length === 0 && plan.deletions.length === 0) return;

    // Intent first: entries of identities about to be written lose their hash.
    for (const w of writes) manifest.entries.set(w.identity.attributes.externalId, intentEntry(w));
    const touched = [
      ...writes.map((w) => w.identity.attributes.externalId),
      ...plan.deletions.map((d) => d.externalId),
    ];
    await manifest.save(touched);

    const writeOne = async (w: PlannedWrite) => {
      // Each try builds the document again, with the time of that try (writes are not resent unchanged).
      const outcome = await retrying(RETRY.bulkWrite, () => this.write(tenantId, source, pk, w.id, w.identity, by));
      counts[outcome.result === 'unchanged' ? repeatedWriteOutcome(w) : outcome.result]++;
      manifest.entries.set(w.identity.attributes.externalId, { id: outcome.id, hash: w.identity.hash });
    };
    const batches: PlannedWrite[][] = [];
    for (let i = 0; i < plan.creates.length; i += CREATE_BATCH) batches.push(plan.creates.slice(i, i + CREATE_BATCH));
    try {
      // New identities in batches; anything not plainly created (conflict, throttling, a failure) takes the per-item path.
      await forEachBounded(batches, CREATE_BATCH_PARALLELISM, async (batch) => {
        const now = new Date().toISOString();
        // Not resent unchanged when throttled: a throttled batch takes the per-item path, stamped on each try.
        const outcomes = await this.repo
          .batchCreate(
            pk,
            batch.map((w) => newDoc(tenantId, source, w.id, w.identity, now, by)),
            { retryThrottled: false },
          )
          .catch(() => batch.map(() => 'retry' as const));
        const retry: PlannedWrite[] = [];
        outcomes.forEach((o, i) => {
          const w = batch[i];
          if (!w) return;
          if (o === 'created') {
            counts.created++;
            manifest.entries.set(w.identity.attributes.externalId, { id: w.id, hash: w.identity.hash });
          } else retry.push(w);
        });
        await forEachBounded(retry, WRITE_PARALLELISM, writeOne);
      });
      await forEachBounded(plan.updates, WRITE_PARALLELISM, writeOne);
      await forEachBounded(plan.deletions, WRITE_PARALLELISM, async ({ externalId, entry }) => {
        if (await retrying(RETRY.background, () => this.remove(tenantId, pk, entry.id))) counts.deleted++;
        manifest.entries.delete(externalId);
      });
    } finally {
      // Record whatever was completed, also when a write failed part-way.
      await manifest.save(touched);
    }
  }

  /** Creates or updates one identity; compares with what is stored, so a rerun counts truthfully. */
  private async write(
    tenantId: string,
    source: string,
    pk: string,
    id: string,
    v: ValidImportIdentity,
    by: ChangeActor,
  ): Promise<{ id: string; result: 'created' | 'updated' | 'unchanged' }> {
    let current = await this.repo.get(pk, id);
    if (!current) {
      const now = new Date().toISOString();
      try {
        await this.repo.create(newDoc(tenantId, source, id, v, now, by), { retryThrottled: false });
        return { id, result: 'created' };
      } catch (err) {
        if (!(err instanceof UniquenessError) && !isStoreError(err, 'conflict')) throw err;
        // Created by an earlier run whose manifest write did not happen: adopt it.
        current =
          (await this.repo.get(pk, id)) ?? (await this.repo.findOne(pk, 'externalIdKey', v.attributes.externalId));
        if (!current) throw err;
      }
    }
    // A concurrent association or administrator link may change the identity between read and write:
    // read it again and apply the content to what is stored (the link stays as the other writer left it).
    let latest = current;
    return retrying(
      RETRY.changed,
      async (tryNumber) => {
        if (tryNumber > 1) {
          const reread = await this.repo.get(pk, latest.id);
          if (!reread)
            throw new DomainError(
              CODE.CONCURRENT_CHANGE,
              'An identity was deleted while the import wrote it; run the import again',
            );
          latest = reread;
        }
        if (latest.contentHash === v.hash) return { id: latest.id, result: 'unchanged' as const };
        const { _etag, ...rest } = latest;
        await this.repo.replace(updatedDoc(rest, v, new Date().toISOString(), by), _etag, { retryThrottled: false });
        return { id: latest.id, result: 'updated' as const };
      },
      {
        exhausted: () =>
          new DomainError(
            CODE.CONCURRENT_CHANGE,
            'Identities kept changing while the import wrote them; run the import again',
          ),
      },
    );
  }

  /**
   * Deletes an identity that left the set, and its link. False when it was already gone. The delete holds the
   * version read (If-Match): an association linking the identity in between changes it, so the identity is read
   * again and the claim of the link it really had is released (without the tag, that claim would stay behind).
   */
  private async remove(tenantId: string, pk: string, id: string): Promise<boolean> {
    return retrying(
      RETRY.changed,
      async () => {
        const current = await this.repo.get(pk, id);
        if (!current) return false;
        // Identity first, claim after: a failure in between leaves an orphan claim (repaired), never a linked identity without its claim.
        const deleted = await this.repo.delete(pk, id, current._etag);
        if (current.link.status === 'linked' && current.link.userId)
          await this.claims.release(tenantId, current.link.userId, current);
        return deleted;
      },
      {
        exhausted: () =>
          new DomainError(
            CODE.CONCURRENT_CHANGE,
            'An identity kept changing while the import deleted it; run the import again',
          ),
      },
    );
  }
}

/** IMPORT_DELETE_LIMIT_EXCEEDED: the set would delete more of the source than allowed; nothing was changed. */
export function deleteLimitExceeded(wouldDelete: number, held: number, requested: boolean): DomainError {
  return new DomainError(
    CODE.IMPORT_DELETE_LIMIT_EXCEEDED,
    `The import would delete ${wouldDelete} of ${held} identities of the source, more than ${requested ? "the request's maxDeletedRatio or " : ''}IMPORT_MAX_DELETE_RATIO allows; nothing was changed`,
    [],
    { wouldDelete, held },
  );
}

function newDoc(
  tenantId: string,
  source: string,
  id: string,
  v: ValidImportIdentity,
  now: string,
  by: ChangeActor,
): IdentityDoc {
  const doc = newIdentityDoc({
    id,
    tenantId,
    sourceKind: 'custom',
    sourceKey: customSourceKey(source),
    attributes: v.attributes,
    now,
    contentHash: v.hash,
  });
  return withChange(undefined, doc, { actor: by, operation: 'IMPORT_CREATE' });
}

function updatedDoc(current: IdentityDoc, v: ValidImportIdentity, now: string, by: ChangeActor): IdentityDoc {
  const next = nextIdentityVersion(current, { attributes: v.attributes, contentHash: v.hash }, now);
  return withChange(current, next, {
    actor: by,
    operation: updateOperation(current, next, 'IMPORT_UPDATE', 'IMPORT_DEACTIVATE'),
  });
}
