/**
 * importBusinessIdentities: the complete set of a custom source replaces what the service holds
 * for it (spec §3.2, §4.2). Only what changed is written: the set is compared with the source's
 * manifest of content hashes. The manifest is written before the identities (entries whose write
 * may be under way carry no hash) and after them, so a failure at any point leaves a state that
 * the next run of the same import converges from.
 */
import type { IdentityAttributes, IdentityDoc } from '../identities/model';
import { hasSensitiveData, newIdentityDoc, partitionKey } from '../identities/model';
import { IdentityRepository, UniquenessError } from '../identities/repository';
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { LinkClaims } from '../links/claims';
import { uuid7 } from '../util/uuid7';
import { DomainError } from '../util/domainError';
import { forEachBounded, MAX_CHANGED_ATTEMPTS, withThrottleRetry } from '../util/concurrency';
import {
  validateImportSet,
  validateSourceName,
  type ImportIdentityInput,
  type ValidImportIdentity,
} from './importInput';
import { ImportManifest } from './manifest';
import { acquireImportLease } from './importLease';

export interface ImportCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** How a run reports itself: its id (held with the lease) and the counts object it fills in as it writes. */
export interface ImportRunContext {
  runId?: string;
  counts?: ImportCounts;
}

export const WRITE_PARALLELISM = 32;
/** Identities new to the source are created in transactional batches of this size, this many at once. */
export const CREATE_BATCH = 100;
export const CREATE_BATCH_PARALLELISM = 8;

/** The partition key part of a custom source (kept apart from SCIM integration ids). */
export function customSourceKey(source: string): string {
  return `src:${source}`;
}

/** Tries of one identity write while the store throttles (each waits the store's retry-after). */
const THROTTLED_TRIES = 20;

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
        'IMPORT_TOO_LARGE',
        `An import set holds at most ${this.maxIdentities} identities (IMPORT_MAX_IDENTITIES); split the source or raise the limit`,
      );
    }
    const valid = validateImportSet(identities);
    const pk = partitionKey(tenantId, customSourceKey(source));
    const lease = await acquireImportLease(this.store, pk, Date.now(), run.runId);
    try {
      return await this.apply(
        tenantId,
        source,
        pk,
        valid,
        run.counts ?? { created: 0, updated: 0, deleted: 0, unchanged: 0 },
      );
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
  ): Promise<ImportCounts> {
    const manifest = await ImportManifest.load(this.store, pk);
    const writes: Array<{ v: ValidImportIdentity; id: string; known: boolean }> = [];
    const incoming = new Set<string>();
    for (const v of valid) {
      incoming.add(v.attributes.externalId);
      const entry = manifest.entries.get(v.attributes.externalId);
      if (entry && entry.hash === v.hash) counts.unchanged++;
      else writes.push({ v, id: entry?.id ?? uuid7(), known: entry !== undefined });
    }
    const deletions = [...manifest.entries].filter(([externalId]) => !incoming.has(externalId));
    if (
      this.maxDeleteRatio !== undefined &&
      manifest.entries.size > 0 &&
      deletions.length / manifest.entries.size > this.maxDeleteRatio
    ) {
      throw new DomainError(
        'IMPORT_DELETE_LIMIT_EXCEEDED',
        `The import would delete ${deletions.length} of ${manifest.entries.size} identities of the source, more than IMPORT_MAX_DELETE_RATIO allows; nothing was changed`,
      );
    }
    if (writes.length === 0 && deletions.length === 0) return counts;

    // Intent first: entries of identities about to be written lose their hash.
    for (const w of writes) manifest.entries.set(w.v.attributes.externalId, { id: w.id, hash: null });
    const touched = [...writes.map((w) => w.v.attributes.externalId), ...deletions.map(([e]) => e)];
    await manifest.save(touched);

    const writeOne = async (w: { v: ValidImportIdentity; id: string }) => {
      // Each try builds the document again, with the time of that try (writes are not resent unchanged).
      const outcome = await withThrottleRetry(() => this.write(tenantId, source, pk, w.id, w.v), THROTTLED_TRIES);
      counts[outcome.result]++;
      manifest.entries.set(w.v.attributes.externalId, { id: outcome.id, hash: w.v.hash });
    };
    const fresh = writes.filter((w) => !w.known);
    const batches: Array<typeof fresh> = [];
    for (let i = 0; i < fresh.length; i += CREATE_BATCH) batches.push(fresh.slice(i, i + CREATE_BATCH));
    try {
      // New identities in batches; anything not plainly created (conflict, throttling, a failure) takes the per-item path.
      await forEachBounded(batches, CREATE_BATCH_PARALLELISM, async (batch) => {
        const now = new Date().toISOString();
        // Not resent unchanged when throttled: a throttled batch takes the per-item path, stamped on each try.
        const outcomes = await this.repo
          .batchCreate(
            pk,
            batch.map((w) => newDoc(tenantId, source, w.id, w.v, now)),
            { retryThrottled: false },
          )
          .catch(() => batch.map(() => 'retry' as const));
        const retry: typeof batch = [];
        outcomes.forEach((o, i) => {
          const w = batch[i];
          if (!w) return;
          if (o === 'created') {
            counts.created++;
            manifest.entries.set(w.v.attributes.externalId, { id: w.id, hash: w.v.hash });
          } else retry.push(w);
        });
        await forEachBounded(retry, WRITE_PARALLELISM, writeOne);
      });
      await forEachBounded(
        writes.filter((w) => w.known),
        WRITE_PARALLELISM,
        writeOne,
      );
      await forEachBounded(deletions, WRITE_PARALLELISM, async ([externalId, entry]) => {
        if (await withThrottleRetry(() => this.remove(tenantId, pk, entry.id))) counts.deleted++;
        manifest.entries.delete(externalId);
      });
    } finally {
      // Record whatever was completed, also when a write failed part-way.
      await manifest.save(touched);
    }
    return counts;
  }

  /** Creates or updates one identity; compares with what is stored, so a rerun counts truthfully. */
  private async write(
    tenantId: string,
    source: string,
    pk: string,
    id: string,
    v: ValidImportIdentity,
  ): Promise<{ id: string; result: 'created' | 'updated' | 'unchanged' }> {
    let current = await this.repo.get(pk, id);
    if (!current) {
      const now = new Date().toISOString();
      try {
        await this.repo.create(newDoc(tenantId, source, id, v, now), { retryThrottled: false });
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
    for (let attempt = 1; ; attempt++) {
      if (current.contentHash === v.hash) return { id: current.id, result: 'unchanged' };
      const { _etag, ...rest } = current;
      try {
        await this.repo.replace(updatedDoc(rest, v, new Date().toISOString()), _etag, { retryThrottled: false });
        return { id: current.id, result: 'updated' };
      } catch (err) {
        if (!isStoreError(err, 'preconditionFailed')) throw err;
        if (attempt >= MAX_CHANGED_ATTEMPTS)
          throw new DomainError(
            'CONCURRENT_CHANGE',
            'Identities kept changing while the import wrote them; run the import again',
          );
      }
      const reread = await this.repo.get(pk, current.id);
      if (!reread)
        throw new DomainError(
          'CONCURRENT_CHANGE',
          'An identity was deleted while the import wrote it; run the import again',
        );
      current = reread;
    }
  }

  /** Deletes an identity that left the set, and its link. False when it was already gone. */
  private async remove(tenantId: string, pk: string, id: string): Promise<boolean> {
    const current = await this.repo.get(pk, id);
    if (!current) return false;
    // Identity first, claim after: a failure in between leaves an orphan claim (repaired), never a linked identity without its claim.
    const deleted = await this.repo.delete(pk, id);
    if (current.link.status === 'linked' && current.link.userId)
      await this.claims.release(tenantId, current.link.userId, current);
    return deleted;
  }
}

function newDoc(tenantId: string, source: string, id: string, v: ValidImportIdentity, now: string): IdentityDoc {
  return newIdentityDoc({
    id,
    tenantId,
    sourceKind: 'custom',
    sourceKey: customSourceKey(source),
    attributes: v.attributes,
    now,
    contentHash: v.hash,
  });
}

const OPTIONAL: Array<keyof IdentityAttributes> = ['birthDate', 'nationality', 'personalEmail', 'personalPhone'];

function updatedDoc(current: IdentityDoc, v: ValidImportIdentity, now: string): IdentityDoc {
  const next: IdentityDoc = {
    ...current,
    ...v.attributes,
    lastModified: now,
    version: current.version + 1,
    hasSensitive: hasSensitiveData(v.attributes),
    contentHash: v.hash,
  };
  for (const key of OPTIONAL) if (v.attributes[key] === undefined) delete next[key];
  return next;
}
