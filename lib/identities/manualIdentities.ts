/** Identities that administrators create (source `Manual`). */
import type { Store } from '../store/store';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { validateImportSet, type ImportIdentityInput } from '../imports/importInput';
import { partitionKey, type IdentityDoc } from './model';
import { newIdentityDoc, nextIdentityVersion } from './rules';
import { isStoreError } from '../store/errors';
import type { LinkClaims } from '../links/claims';
import { IdentityRepository, UniquenessError } from './repository';
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
  if (!valid) throw new DomainError('BAD_USER_INPUT', 'The input is not valid');
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
      throw new DomainError('BUSINESS_IDENTITY_EXISTS', 'A manual identity with this externalId exists', [
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

/** Changes to a Manual identity; a field left out keeps its value, `personalNumbers: []` deletes the stored numbers. */
export interface ManualIdentityChanges {
  affiliationType?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  birthDate?: string | null;
  nationality?: string | null;
  personalEmail?: string | null;
  personalPhone?: string | null;
  personalNumbers?: Array<{ type: string; value: string }> | null;
  identityDocumentReferences?: Array<{ type: string; issuingCountry: string; documentNumber?: string | null }> | null;
  active?: boolean | null;
}

const notFound = () =>
  new DomainError('NOT_FOUND', 'No Manual identity with this id', [
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
  const keep = <K extends keyof ManualIdentityChanges>(k: K, current: ManualIdentityChanges[K]) =>
    given(changes[k]) ? changes[k] : current;
  const input: ImportIdentityInput = {
    externalId: doc.externalId,
    affiliationType: String(keep('affiliationType', doc.affiliationType.toUpperCase()) ?? ''),
    firstName: String(keep('firstName', doc.givenName) ?? ''),
    lastName: String(keep('lastName', doc.familyName) ?? ''),
    birthDate: keep('birthDate', doc.birthDate),
    nationality: keep('nationality', doc.nationality),
    personalEmail: keep('personalEmail', doc.personalEmail),
    personalPhone: keep('personalPhone', doc.personalPhone),
    personalNumbers: changes.personalNumbers ?? [],
    identityDocumentReferences: changes.identityDocumentReferences ?? [],
  };
  let valid;
  try {
    [valid] = validateImportSet([input]);
  } catch (err) {
    throw asInputProblems(err);
  }
  if (!valid) throw new DomainError('BAD_USER_INPUT', 'The input is not valid');
  const active = typeof changes.active === 'boolean' ? changes.active : doc.active;
  const a = valid.attributes;
  const personalNumbers = given(changes.personalNumbers) ? a.personalNumbers : doc.personalNumbers;
  const identityDocumentReferences = given(changes.identityDocumentReferences)
    ? a.identityDocumentReferences
    : doc.identityDocumentReferences;
  const { _etag } = doc;
  const version = nextIdentityVersion(
    doc,
    { attributes: { ...a, personalNumbers, identityDocumentReferences, active } },
    now.toISOString(),
  );
  const next = withChange(doc, version, {
    actor: byAdministrator(actor),
    operation: updateOperation(doc, version, 'ADMIN_UPDATE', 'DEACTIVATE'),
  });
  let saved: IdentityDoc;
  try {
    saved = await new IdentityRepository(store).replace(next, _etag);
  } catch (err) {
    if (isStoreError(err, 'preconditionFailed'))
      throw new DomainError('CONCURRENT_CHANGE', 'The identity changed during the operation; retry');
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
      throw new DomainError('CONCURRENT_CHANGE', 'The identity changed during the operation; retry');
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
