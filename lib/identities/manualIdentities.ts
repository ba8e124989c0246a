/** Identities that administrators create (source `Manual`). */
import type { Store } from '../store/store';
import type { AuditLog, Actor } from '../audit/auditLog';
import { DomainError } from '../util/domainError';
import { uuid7 } from '../util/uuid7';
import { validateImportSet, type ImportIdentityInput } from '../imports/importInput';
import type { IdentityDoc } from './model';
import { newIdentityDoc } from './rules';
import { IdentityRepository, UniquenessError } from './repository';

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
  const doc = newIdentityDoc({
    id: uuid7(),
    tenantId,
    sourceKind: 'manual',
    sourceKey: MANUAL_SOURCE_KEY,
    attributes: valid.attributes,
    now: new Date().toISOString(),
  });
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
