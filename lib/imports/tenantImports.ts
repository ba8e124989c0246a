/**
 * How many staged imports an organization has started and not yet ended, bounded (IMPORT_MAX_OPEN_PER_TENANT,
 * and IMPORT_MAX_DRY_RUNS_PER_TENANT for dry runs, which hold no source and so had no bound at all): every
 * open import may become a job on the background queue, and the queue's units are shared by all tenants, so
 * one organization must not be able to queue any number of them.
 *
 * One small document per tenant (`<tenantId>|_imports`, id `open-imports`) lists them, each with the time
 * after which it counts no more (its expiry while open; the end of its apply window once completed). A job
 * takes its import off the list when it ends; an entry nobody took off lapses by itself, so a crash never
 * holds a tenant's place for longer than its import could live.
 */
import type { Store, StoredDoc } from '../store/store';
import { RETRY, readModifyWrite } from '../store/retryPolicy';
import { partitionKey } from '../identities/model';
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';

export interface ImportBounds {
  /** IMPORT_MAX_OPEN_PER_TENANT */
  maxOpen: number;
  /** IMPORT_MAX_DRY_RUNS_PER_TENANT */
  maxDryRuns: number;
}

/** [importId, dry run (1) or not (0), counts until (epoch ms)] */
export type OpenImport = [string, 0 | 1, number];

interface OpenImportsDoc extends StoredDoc {
  kind: 'openImports';
  imports: OpenImport[];
}

const DOC_ID = 'open-imports';
const pkOf = (tenantId: string) => partitionKey(tenantId, '_imports');
const listDoc = (pk: string, imports: OpenImport[]): OpenImportsDoc => ({
  id: DOC_ID,
  pk,
  kind: 'openImports',
  imports,
});

/**
 * The list with a new import on it, or what refuses it (pure): entries past their time are dropped first; an
 * import already listed is only given its new time.
 */
export function admitImport(
  listed: readonly OpenImport[],
  entry: OpenImport,
  bounds: ImportBounds,
  now: number,
): { imports: OpenImport[] } | { refused: 'open' | 'dryRuns' } {
  const live = listed.filter(([id, , until]) => until > now && id !== entry[0]);
  const dry = entry[1] === 1;
  const alike = live.filter(([, d]) => (d === 1) === dry).length;
  if (alike >= (dry ? bounds.maxDryRuns : bounds.maxOpen)) return { refused: dry ? 'dryRuns' : 'open' };
  return { imports: [...live, entry] };
}

function limitReached(refused: 'open' | 'dryRuns', bounds: ImportBounds): DomainError {
  return new DomainError(
    CODE.IMPORT_LIMIT_REACHED,
    refused === 'open'
      ? `Your organization has ${bounds.maxOpen} staged imports started and not ended (IMPORT_MAX_OPEN_PER_TENANT); complete them or let their runs end, then start another`
      : `Your organization has ${bounds.maxDryRuns} staged dry runs started and not ended (IMPORT_MAX_DRY_RUNS_PER_TENANT); complete them or let their runs end, then start another`,
  );
}

const col = (store: Store) => store.collection<OpenImportsDoc>('imports');

/** Lists an import until `until` (again: moves its time); IMPORT_LIMIT_REACHED when the tenant has its bound. */
export async function openImport(
  store: Store,
  bounds: ImportBounds,
  entry: { tenantId: string; importId: string; dryRun: boolean; until: number },
  now: number,
): Promise<void> {
  const pk = pkOf(entry.tenantId);
  await readModifyWrite(
    col(store),
    pk,
    DOC_ID,
    (current) => {
      const admitted = admitImport(
        current?.imports ?? [],
        [entry.importId, entry.dryRun ? 1 : 0, entry.until],
        bounds,
        now,
      );
      if ('refused' in admitted) throw limitReached(admitted.refused, bounds);
      return listDoc(pk, admitted.imports);
    },
    RETRY.contention,
    { each: RETRY.background },
  );
}

/** Takes an import off its tenant's list (its job ended, or its run was refused at once). */
export async function closeImport(store: Store, tenantId: string, importId: string): Promise<void> {
  const pk = pkOf(tenantId);
  await readModifyWrite(
    col(store),
    pk,
    DOC_ID,
    (current) =>
      current?.imports.some(([id]) => id === importId)
        ? listDoc(
            pk,
            current.imports.filter(([id]) => id !== importId),
          )
        : undefined,
    RETRY.contention,
    { each: RETRY.background },
  );
}
