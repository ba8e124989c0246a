/** Identities that administrators create (source `Manual`). */
import type { Store } from '../store/store';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { validateImportSet, type ImportIdentityInput } from '../imports/importInput';
import { hasSensitiveData, partitionKey, userNameKeyOf, type IdentityDoc } from './model';
import { IdentityRepository, UniquenessError } from './repository';

export const MANUAL_SOURCE_KEY = 'manual';

export async function createManualIdentity(store: Store, audit: AuditLog, tenantId: string, input: ImportIdentityInput, actor: Actor): Promise<IdentityDoc> {
  const [valid] = validateImportSet([input]).map((v) => v);
  if (!valid) throw new DomainError('BAD_USER_INPUT', 'The input is not valid');
  const a = valid.attributes;
  const now = new Date().toISOString();
  const doc: IdentityDoc = {
    id: uuid7(),
    pk: partitionKey(tenantId, MANUAL_SOURCE_KEY),
    tenantId,
    sourceKind: 'manual',
    sourceKey: MANUAL_SOURCE_KEY,
    ...a,
    externalIdKey: a.externalId,
    userNameKey: userNameKeyOf(undefined, a.externalId),
    link: { status: 'notAsserted' },
    created: now,
    lastModified: now,
    version: 1,
    hasSensitive: hasSensitiveData(a),
  };
  try {
    await new IdentityRepository(store).create(doc);
  } catch (err) {
    if (err instanceof UniquenessError) {
      throw new DomainError('BUSINESS_IDENTITY_EXISTS', 'A manual identity with this externalId exists', [{ field: 'input.externalId', problem: 'is already used' }]);
    }
    throw err;
  }
  await audit.write(tenantId, { actor, action: 'businessIdentity.createManual', target: { type: 'businessIdentity', id: doc.id } });
  return doc;
}
