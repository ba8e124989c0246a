/** Identities that administrators create (source `Manual`). */
import type { Store } from '../store/store';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { validateImportSet, type ImportIdentityInput, type ImportValue } from '../imports/importInput';
import { IDENTITY_ATTRIBUTES, graphqlEnumName, type AttributeRow, type IdentityAttributeRow } from './attributes';
import { partitionKey, type IdentityAttributes, type IdentityDoc } from './model';
import { newIdentityDoc, nextIdentityVersion } from './rules';
import { isStoreError } from '../store/errors';
import type { LinkClaims } from '../links/claims';
import { IdentityRepository, UniquenessError } from './repository';
import { CODE } from '../util/errorCodes';
import { byAdministrator, updateOperation, withChange } from './history';

export const MANUAL_SOURCE_KEY = 'manual';

export async function createManualIdentity(
  store: Store,
  audit: AuditLog,
  tenantId: string,
  input: ImportIdentityInput,
  actor: Actor,
): Promise<IdentityDoc> {
  const [valid] = validateImportSet([input]);
  if (!valid) throw new DomainError(CODE.BAD_USER_INPUT, 'The input is not valid');
  const doc = withChange(
    undefined,
    newIdentityDoc({
      id: uuid7(),
      tenantId,
      sourceKind: 'manual',
      sourceKey: MANUAL_SOURCE_KEY,
      attributes: valid.attributes,
      now: new Date().toISOString(),
    }),
    { actor: byAdministrator(actor), operation: 'CREATE' },
  );
  try {
    await new IdentityRepository(store).create(doc);
  } catch (err) {
    if (err instanceof UniquenessError) {
      throw new DomainError(CODE.BUSINESS_IDENTITY_EXISTS, 'A manual identity with this externalId exists', [
        { field: 'input.externalId', problem: 'is already used' },
      ]);
    }
    throw err;
  }
  await audit.write(tenantId, {
    actor,
    action: 'businessIdentity.createManual',
    target: { type: 'businessIdentity', id: doc.id },
  });
  return doc;
}

type UpdateRow = Extract<IdentityAttributeRow, { updateField: string }>;

/**
 * Changes to a Manual identity: the rows of the attribute table with an update field. A field left out keeps its
 * value, `personalNumbers: []` deletes the stored numbers.
 */
export type ManualIdentityChanges = {
  [R in UpdateRow as R['updateField']]?: (R extends { type: 'boolean' } ? boolean : ImportValue<R>) | null;
};

const notFound = () =>
  new DomainError(CODE.NOT_FOUND, 'No Manual identity with this id', [
    { field: 'input.id', problem: 'matches no identity' },
  ]);

async function readManual(store: Store, tenantId: string, id: unknown) {
  if (typeof id !== 'string' || id === '') throw notFound();
  const doc = await new IdentityRepository(store).get(partitionKey(tenantId, MANUAL_SOURCE_KEY), id);
  if (!doc) throw notFound();
  return doc;
}

/** The validator's problems name `identities[0].<field>`; a Manual change names `input.<field>`. */
function asInputProblems(err: unknown): unknown {
  if (!(err instanceof DomainError)) return err;
  return new DomainError(
    err.code,
    'The input is not valid; nothing was changed',
    err.problems.map(({ field, problem }) => ({ field: field.replace(/^identities\[0\]/, 'input'), problem })),
  );
}

const given = <T>(v: T | null | undefined): v is T | null => v !== undefined;

/** A stored value as an import sends it (enumerations by their GraphQL names). */
function importForm(row: AttributeRow, value: unknown): unknown {
  return row.values !== undefined && typeof value === 'string' ? graphqlEnumName(row.values, value) : value;
}

/**
 * Changes a Manual identity (Admin only; the caller checks). Personal numbers and document references are
 * replaced only when given. Turning inactive starts the retention period (inactiveSince), after which the
 * retention job deletes them; turning active again stops it.
 */
export async function updateManualIdentity(
  store: Store,
  audit: AuditLog,
  tenantId: string,
  id: unknown,
  changes: ManualIdentityChanges,
  actor: Actor,
  now: Date = new Date(),
): Promise<IdentityDoc> {
  const doc = await readManual(store, tenantId, id);
  const sent = changes as Record<string, unknown>;
  const stored = doc as unknown as Record<string, unknown>;
  const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
  // The identity as an import would send it, with the changes: a list is validated only when it is given
  // (the stored one is kept otherwise), a scalar left out keeps its stored value.
  const input: Record<string, unknown> = {};
  for (const row of rows) {
    if (row.importField === undefined) continue;
    const change = row.updateField === undefined ? undefined : sent[row.updateField];
    if (row.type === 'list') input[row.importField] = change ?? [];
    else if (given(change)) input[row.importField] = row.optional ? change : String(change ?? '');
    else input[row.importField] = importForm(row, stored[row.name]);
  }
  let valid;
  try {
    [valid] = validateImportSet([input as ImportIdentityInput]);
  } catch (err) {
    throw asInputProblems(err);
  }
  if (!valid) throw new DomainError(CODE.BAD_USER_INPUT, 'The input is not valid');
  const validated = valid.attributes as Record<string, unknown>;
  const attributes: Record<string, unknown> = { ...validated };
  for (const row of rows) {
    const change = row.updateField === undefined ? undefined : sent[row.updateField];
    if (row.type === 'list' && !given(change)) attributes[row.name] = stored[row.name];
    if (row.type === 'boolean') attributes[row.name] = typeof change === 'boolean' ? change : stored[row.name];
  }
  const a = attributes as IdentityAttributes;
  const active = a.active;
  const { _etag } = doc;
  const version = nextIdentityVersion(doc, { attributes: a }, now.toISOString());
  const next = withChange(doc, version, {
    actor: byAdministrator(actor),
    operation: updateOperation(doc, version, 'ADMIN_UPDATE', 'DEACTIVATE'),
  });
  let saved: IdentityDoc;
  try {
    saved = await new IdentityRepository(store).replace(next, _etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed'))
      throw new DomainError(CODE.CONCURRENT_CHANGE, 'The identity changed during the operation; retry');
    throw err;
  }
  await audit.write(tenantId, {
    actor,
    action: doc.active && !active ? 'businessIdentity.deactivateManual' : 'businessIdentity.updateManual',
    target: { type: 'businessIdentity', id: doc.id },
    before: { active: doc.active },
    after: { active },
  });
  return saved;
}

/** Deletes a Manual identity and releases its directory user, if it was linked. Returns the deleted identity. */
export async function deleteManualIdentity(
  store: Store,
  audit: AuditLog,
  claims: LinkClaims,
  tenantId: string,
  id: unknown,
  actor: Actor,
): Promise<IdentityDoc> {
  const doc = await readManual(store, tenantId, id);
  try {
    await new IdentityRepository(store).delete(doc.pk, doc.id, doc._etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed'))
      throw new DomainError(CODE.CONCURRENT_CHANGE, 'The identity changed during the operation; retry');
    throw err;
  }
  // After the identity is gone, so a failure here leaves an orphan claim (repaired later), never a lost link.
  if (doc.link.status === 'linked' && doc.link.userId) await claims.release(tenantId, doc.link.userId, doc);
  await audit.write(tenantId, {
    actor,
    action: 'businessIdentity.deleteManual',
    target: { type: 'businessIdentity', id: doc.id },
    before: { status: doc.link.status, userId: doc.link.userId ?? null },
  });
  return doc;
}
