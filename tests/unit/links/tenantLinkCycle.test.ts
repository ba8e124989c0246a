/**
 * A tenant's link cycle over the in-memory store and directory: pending identities linked once their
 * directory user appears, two identities waiting for one user, the back-off of a conflict that stays,
 * an expired delta token, and a store failure in the middle of a cycle that the next cycle repairs.
 */
import { runTenantLinkCycle, type TenantCycleDeps } from '../../../lib/links/tenantLinkCycle';
import { LinkClaims, type LinkClaim } from '../../../lib/links/claims';
import { LinkService } from '../../../lib/links/linkService';
import { DELTA_STATE_ID, type DeltaState } from '../../../lib/links/deltaState';
import { AuditLog, type Actor } from '../../../lib/audit/auditLog';
import { IdentityRepository } from '../../../lib/identities/repository';
import { ScimUsers } from '../../../lib/scim/userOperations';
import type { IdentityDoc } from '../../../lib/identities/model';
import type { UserScope } from '../../../lib/scim/scope';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { MemoryDirectory } from '../../support/memoryDirectory';

const TENANT = '11111111-1111-4111-8111-111111111111';
const A: UserScope = { tenantId: TENANT, integrationId: 'integration-a' };
const B: UserScope = { tenantId: TENANT, integrationId: 'integration-b' };
const ACTOR: Actor = { tenantId: TENANT, kind: 'app', id: 'scim-client' };
const BACKOFF = { baseSeconds: 60, maxSeconds: 3600 };
const T0 = new Date('2026-03-02T08:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let memory: MemoryStore;
let directory: MemoryDirectory;
let deps: TenantCycleDeps;
let users: ScimUsers;

/** A SCIM User of `scope` asserting `upn`, saved through the service's link rules. */
async function asserting(scope: UserScope, externalId: string, upn: string): Promise<IdentityDoc> {
  return users.create(
    scope,
    {
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:service:2.0:User',
      ],
      externalId,
      userName: externalId.toLowerCase(),
      name: { givenName: 'G', familyName: externalId },
      active: true,
      'urn:ietf:params:scim:schemas:extension:service:2.0:User': {
        affiliationType: 'employment',
        directoryUserPrincipalName: upn,
      },
    },
    ACTOR,
  );
}

const current = (doc: IdentityDoc) => memory.document<IdentityDoc>('identities', doc.pk, doc.id);
const claimsOf = () => memory.documents<LinkClaim>('links', TENANT).filter((d) => d.id !== DELTA_STATE_ID);

beforeEach(() => {
  memory = createMemoryStore();
  directory = new MemoryDirectory();
  directory.addUser(TENANT, 'alice@dev.example.com');
  const claims = new LinkClaims(memory.store);
  const audit = new AuditLog(memory.store);
  deps = { store: memory.store, claims, audit, backoff: BACKOFF, directory };
  users = new ScimUsers(new IdentityRepository(memory.store), new LinkService(claims, directory, audit));
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

describe('runTenantLinkCycle', () => {
  it('links a pending identity in the cycle after its directory user appears', async () => {
    const pending = await asserting(A, 'E1', 'new.hire@dev.example.com');
    expect(pending.link).toMatchObject({ status: 'pending' });

    const first = await runTenantLinkCycle(deps, TENANT, at(0));
    expect(first).toMatchObject({ linked: 0, swept: 1, more: false });
    expect(current(pending)?.link.status).toBe('pending');
    expect(memory.document<DeltaState>('links', TENANT, DELTA_STATE_ID)?.deltaLink).toEqual(expect.any(String));

    const user = directory.addUser(TENANT, 'New.Hire@dev.example.com');
    const second = await runTenantLinkCycle(deps, TENANT, at(300));
    expect(second).toMatchObject({ changedUsers: 1, linked: 1, deltaPages: 1 });
    expect(current(pending)).toMatchObject({
      version: 2,
      link: { status: 'linked', source: 'asserted', userId: user.id },
    });
    expect(claimsOf()).toEqual([expect.objectContaining({ id: user.id, identityId: pending.id })]);
    expect((await deps.audit?.list(TENANT, pending.id))?.map((e) => e.action)).toEqual(['link.assertedLinked']);

    // An idle tenant: one Graph request, nothing written.
    const writes = memory.writes('identities');
    const idle = await runTenantLinkCycle(deps, TENANT, at(600));
    expect(idle).toMatchObject({ changedUsers: 0, linked: 0, directoryRequests: 1 });
    expect(memory.writes('identities')).toBe(writes);
  });

  it('links one of two identities waiting for the same user and puts the other in conflict until the user is free', async () => {
    const first = await asserting(A, 'E1', 'shared@dev.example.com');
    const second = await asserting(B, 'E1', 'shared@dev.example.com');
    await runTenantLinkCycle(deps, TENANT, at(0));
    const user = directory.addUser(TENANT, 'shared@dev.example.com');

    const result = await runTenantLinkCycle(deps, TENANT, at(300));
    expect(result).toMatchObject({ linked: 1, conflicts: 1 });
    const states = [current(first), current(second)];
    const winner = states.find((d) => d?.link.status === 'linked');
    const loser = states.find((d) => d?.link.status === 'conflict');
    expect(winner?.link.userId).toBe(user.id);
    expect(loser?.link).toMatchObject({ conflictUserId: user.id });
    expect(claimsOf()).toEqual([expect.objectContaining({ id: user.id, identityId: winner?.id })]);

    // The linked User is deleted: its claim is released, and the next cycle links the other identity.
    if (!winner || !loser) throw new Error('expected a winner and a loser');
    await users.delete({ tenantId: TENANT, integrationId: winner.sourceKey }, winner.id, null, ACTOR);
    const after = await runTenantLinkCycle(deps, TENANT, at(310));
    expect(after).toMatchObject({ rechecked: 1, linked: 1 });
    expect(current(loser)?.link).toMatchObject({ status: 'linked', userId: user.id });
    expect(claimsOf()).toEqual([expect.objectContaining({ id: user.id, identityId: loser.id })]);
  });

  it('backs off a conflict that stays: each unchanged check doubles the wait before the next', async () => {
    await asserting(A, 'E1', 'alice@dev.example.com');
    const waiting = await asserting(B, 'E1', 'alice@dev.example.com');
    expect(waiting.link.status).toBe('conflict');

    // The first cycle's full round reports the user: still held, so the conflict stays and backs off.
    const r1 = await runTenantLinkCycle(deps, TENANT, at(0));
    expect(r1).toMatchObject({ changedUsers: 1, linked: 0, conflicts: 0 });
    expect(current(waiting)?.link).toMatchObject({ status: 'conflict', checks: 1, nextCheckAt: at(60).toISOString() });
    // A check that changes nothing is bookkeeping: no new version of the resource.
    expect(current(waiting)?.version).toBe(1);

    const writes = memory.writes('identities');
    const r2 = await runTenantLinkCycle(deps, TENANT, at(30));
    expect(r2.rechecked).toBe(0);
    expect(memory.writes('identities')).toBe(writes);

    const r3 = await runTenantLinkCycle(deps, TENANT, at(61));
    expect(r3.rechecked).toBe(1);
    expect(current(waiting)?.link).toMatchObject({ checks: 2, nextCheckAt: at(61 + 120).toISOString() });
  });

  it('starts a new full round when the directory no longer knows the delta token', async () => {
    const pending = await asserting(A, 'E1', 'late@dev.example.com');
    await runTenantLinkCycle(deps, TENANT, at(0));
    directory.expireDeltaTokens(TENANT);
    const user = directory.addUser(TENANT, 'late@dev.example.com');
    const result = await runTenantLinkCycle(deps, TENANT, at(300));
    expect(result).toMatchObject({ resynced: true, linked: 1 });
    expect(current(pending)?.link).toMatchObject({ status: 'linked', userId: user.id });
  });

  it('links while the store throttles the identity writes', async () => {
    const pending = await asserting(A, 'E1', 'new.hire@dev.example.com');
    await runTenantLinkCycle(deps, TENANT, at(0));
    directory.addUser(TENANT, 'new.hire@dev.example.com');
    const throttled = memory.faults.add({
      ops: ['replace'],
      container: 'identities',
      status: 429,
      retryAfterMs: 5,
      count: 2,
    });
    expect(await runTenantLinkCycle(deps, TENANT, at(300))).toMatchObject({ linked: 1 });
    expect(throttled.hits).toBe(2);
    expect(current(pending)?.link.status).toBe('linked');
  });

  it('after a store failure in the middle of a cycle, no claim is left behind and the next cycle links', async () => {
    const one = await asserting(A, 'E1', 'one@dev.example.com');
    const two = await asserting(A, 'E2', 'two@dev.example.com');
    await runTenantLinkCycle(deps, TENANT, at(0));
    const stateBefore = memory.document<DeltaState>('links', TENANT, DELTA_STATE_ID);
    directory.addUser(TENANT, 'one@dev.example.com');
    directory.addUser(TENANT, 'two@dev.example.com');
    const fault = memory.faults.add({ ops: ['replace'], container: 'identities', status: 503 });

    await expect(runTenantLinkCycle(deps, TENANT, at(300))).rejects.toMatchObject({ failure: 'unavailable' });
    expect(fault.hits).toBe(1);
    // The round's changes were not all matched: the tracking state stays where it was, so they come again.
    expect(memory.document<DeltaState>('links', TENANT, DELTA_STATE_ID)?.deltaLink).toBe(stateBefore?.deltaLink);
    for (const claim of claimsOf()) {
      const owner = memory.document<IdentityDoc>('identities', claim.identityPk, claim.identityId);
      expect(owner?.link).toMatchObject({ status: 'linked', userId: claim.id });
    }

    const next = await runTenantLinkCycle(deps, TENANT, at(600));
    expect(next.changedUsers).toBe(2);
    expect(current(one)?.link.status).toBe('linked');
    expect(current(two)?.link.status).toBe('linked');
    expect(claimsOf()).toHaveLength(2);
  });
});
