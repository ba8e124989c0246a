/**
 * SCIM User operations over the in-memory store and directory, with the real link service: create and its
 * uniqueness conflicts, replace, patch, If-Match, concurrent writers, delete, and one integration never
 * seeing another's Users.
 */
import { ScimUsers } from '../../../lib/scim/userOperations';
import { ScimError } from '../../../lib/scim/errors';
import { IdentityRepository } from '../../../lib/identities/repository';
import { LinkClaims } from '../../../lib/links/claims';
import { LinkService } from '../../../lib/links/linkService';
import { AuditLog, type Actor } from '../../../lib/audit/auditLog';
import type { IdentityDoc } from '../../../lib/identities/model';
import type { UserScope } from '../../../lib/scim/scope';
import type { DirectoryUser } from '../../../lib/directory/directoryClient';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { MemoryDirectory } from '../../support/memoryDirectory';

const TENANT = '11111111-1111-4111-8111-111111111111';
const A: UserScope = { tenantId: TENANT, integrationId: 'integration-a' };
const B: UserScope = { tenantId: TENANT, integrationId: 'integration-b' };
const ACTOR: Actor = { tenantId: TENANT, kind: 'app', id: 'scim-client' };
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const body = (externalId: string, userName: string, more: Record<string, unknown> = {}, ext = {}) => ({
  schemas: [CORE, EXT],
  externalId,
  userName,
  name: { givenName: 'Anna', familyName: 'Berg' },
  active: true,
  [EXT]: { affiliationType: 'employment', ...ext },
  ...more,
});
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

let memory: MemoryStore;
let directory: MemoryDirectory;
let claims: LinkClaims;
let audit: AuditLog;
let users: ScimUsers;
let alice: DirectoryUser;

const stored = (scope: UserScope) =>
  memory.documents<IdentityDoc>('identities', `${scope.tenantId}|${scope.integrationId}`);

async function scimError(p: Promise<unknown>): Promise<ScimError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ScimError)) throw new Error(`expected a ScimError, got ${String(err)}`);
  return err;
}

beforeEach(() => {
  memory = createMemoryStore();
  directory = new MemoryDirectory();
  alice = directory.addUser(TENANT, 'alice@dev.example.com');
  claims = new LinkClaims(memory.store);
  audit = new AuditLog(memory.store);
  users = new ScimUsers(new IdentityRepository(memory.store), new LinkService(claims, directory, audit));
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

describe('ScimUsers', () => {
  it('creates a User in the integration, linked to the directory user it asserts (claimed)', async () => {
    const created = await users.create(
      A,
      body('E1', 'anna.berg', {}, { directoryUserPrincipalName: 'alice@dev.example.com' }),
      ACTOR,
    );
    expect(created).toMatchObject({
      pk: `${TENANT}|integration-a`,
      sourceKind: 'scim',
      sourceKey: 'integration-a',
      externalId: 'E1',
      userName: 'anna.berg',
      version: 1,
      link: { status: 'linked', source: 'asserted', userId: alice.id },
    });
    expect(stored(A)).toEqual([expect.objectContaining({ id: created.id, familyName: 'Berg' })]);
    expect(await claims.get(TENANT, alice.id)).toMatchObject({ identityId: created.id });
    // An asserted link made with the User is no administrator action: nothing is audited.
    expect(await audit.list(TENANT, created.id)).toEqual([]);
  });

  it('answers 409 uniqueness for a taken externalId or userName (any case), naming the attribute, not the value', async () => {
    await users.create(A, body('E1', 'anna.berg'), ACTOR);
    const byExternalId = await scimError(users.create(A, body('E1', 'other.name'), ACTOR));
    expect(byExternalId).toMatchObject({ status: 409, scimType: 'uniqueness' });
    expect(byExternalId.detail).toMatch(/externalId/);
    expect(byExternalId.detail).not.toContain('E1');
    const byUserName = await scimError(users.create(A, body('E2', 'ANNA.berg'), ACTOR));
    expect(byUserName).toMatchObject({ status: 409, scimType: 'uniqueness' });
    expect(byUserName.detail).toMatch(/userName/);
    expect(byUserName.detail.toLowerCase()).not.toContain('anna.berg');
    expect(stored(A)).toHaveLength(1);
  });

  it('gives a claimed directory user back when the create is refused', async () => {
    await users.create(A, body('E1', 'anna.berg'), ACTOR);
    await scimError(
      users.create(A, body('E1', 'x', {}, { directoryUserPrincipalName: 'alice@dev.example.com' }), ACTOR),
    );
    expect(await claims.get(TENANT, alice.id)).toBeUndefined();
  });

  it('replaces a User: a new version when something changed, no write when nothing did', async () => {
    const created = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    const replaced = await users.replace(
      A,
      created.id,
      body('E1', 'anna.berg', { name: { givenName: 'Anna', familyName: 'Holm' } }),
      null,
      ACTOR,
    );
    expect(replaced).toMatchObject({ familyName: 'Holm', version: 2 });
    expect(stored(A)[0]).toMatchObject({ familyName: 'Holm', version: 2 });

    const writes = memory.writes('identities');
    const same = await users.replace(
      A,
      created.id,
      body('E1', 'anna.berg', { name: { givenName: 'Anna', familyName: 'Holm' } }),
      null,
      ACTOR,
    );
    expect(same.version).toBe(2);
    expect(memory.writes('identities')).toBe(writes);
  });

  it('refuses a replace that takes another User’s externalId', async () => {
    await users.create(A, body('E1', 'anna.berg'), ACTOR);
    const second = await users.create(A, body('E2', 'bo.dahl'), ACTOR);
    const err = await scimError(users.replace(A, second.id, body('E1', 'bo.dahl'), null, ACTOR));
    expect(err).toMatchObject({ status: 409, scimType: 'uniqueness' });
    expect(stored(A).find((d) => d.id === second.id)?.externalId).toBe('E2');
  });

  it('patches a User: deactivating starts its retention clock', async () => {
    const created = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    const patched = await users.patch(
      A,
      created.id,
      patch({ op: 'Replace', value: { active: 'False' } }, { op: 'replace', path: 'name.familyName', value: 'Holm' }),
      null,
      ACTOR,
    );
    expect(patched).toMatchObject({ active: false, familyName: 'Holm', version: 2 });
    expect(stored(A)[0]).toMatchObject({ active: false, familyName: 'Holm', inactiveSince: expect.any(String) });
  });

  it('holds If-Match: a stale version is refused with 412 and changes nothing; the current one is written', async () => {
    const created = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    await users.patch(A, created.id, patch({ op: 'replace', path: 'active', value: false }), null, ACTOR);
    const before = stored(A);
    const stale = await scimError(
      users.patch(A, created.id, patch({ op: 'replace', path: 'active', value: true }), 'W/"1"', ACTOR),
    );
    expect(stale.status).toBe(412);
    expect(stored(A)).toEqual(before);
    const current = await users.patch(
      A,
      created.id,
      patch({ op: 'replace', path: 'active', value: true }),
      'W/"2"',
      ACTOR,
    );
    expect(current).toMatchObject({ active: true, version: 3 });
  });

  it('re-reads and re-applies when another writer came first; with If-Match that is a 412', async () => {
    const created = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    const race = memory.faults.add({ ops: ['replace'], container: 'identities', status: 412 });
    const patched = await users.patch(
      A,
      created.id,
      patch({ op: 'replace', path: 'name.familyName', value: 'Holm' }),
      null,
      ACTOR,
    );
    expect(race.hits).toBe(1);
    expect(patched).toMatchObject({ familyName: 'Holm', version: 2 });

    memory.faults.add({ ops: ['replace'], container: 'identities', status: 412 });
    const err = await scimError(
      users.patch(A, created.id, patch({ op: 'replace', path: 'name.familyName', value: 'Dahl' }), 'W/"2"', ACTOR),
    );
    expect(err.status).toBe(412);
    expect(stored(A)[0]?.familyName).toBe('Holm');
  });

  it('writes a create the store throttles once it lets it through', async () => {
    const throttled = memory.faults.add({ ops: ['create'], container: 'identities', status: 429, retryAfterMs: 5 });
    const created = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    expect(throttled.hits).toBe(1);
    expect(stored(A)).toEqual([expect.objectContaining({ id: created.id })]);
  });

  it('deletes a User and releases its directory user; a second delete is 404, a stale If-Match 412', async () => {
    const linked = await users.create(
      A,
      body('E1', 'anna.berg', {}, { directoryUserPrincipalName: 'alice@dev.example.com' }),
      ACTOR,
    );
    const other = await users.create(A, body('E2', 'bo.dahl'), ACTOR);
    await users.patch(A, other.id, patch({ op: 'replace', path: 'active', value: false }), null, ACTOR);
    expect((await scimError(users.delete(A, other.id, 'W/"1"', ACTOR))).status).toBe(412);

    await users.delete(A, linked.id, null, ACTOR);
    expect(stored(A).map((d) => d.id)).toEqual([other.id]);
    expect(await claims.get(TENANT, alice.id)).toBeUndefined();
    expect((await audit.list(TENANT, linked.id)).map((e) => e.action)).toContain('link.removedWithIdentity');
    expect((await scimError(users.delete(A, linked.id, null, ACTOR))).status).toBe(404);
    await users.delete(A, other.id, 'W/"2"', ACTOR);
    expect(stored(A)).toEqual([]);
  });

  it('keeps integrations apart: another integration neither sees nor changes a User, and may use the same keys', async () => {
    const inA = await users.create(A, body('E1', 'anna.berg'), ACTOR);
    expect((await scimError(users.get(B, inA.id))).status).toBe(404);
    expect((await scimError(users.replace(B, inA.id, body('E1', 'anna.berg'), null, ACTOR))).status).toBe(404);
    expect(
      (await scimError(users.patch(B, inA.id, patch({ op: 'replace', path: 'active', value: false }), null, ACTOR)))
        .status,
    ).toBe(404);
    expect((await scimError(users.delete(B, inA.id, null, ACTOR))).status).toBe(404);
    expect(stored(A)).toEqual([expect.objectContaining({ id: inA.id, active: true, version: 1 })]);

    const inB = await users.create(B, body('E1', 'anna.berg'), ACTOR);
    expect(inB.id).not.toBe(inA.id);
    expect(stored(B)).toHaveLength(1);
    expect(stored(A)).toHaveLength(1);
  });
});
