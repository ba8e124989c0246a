/**
 * The associator over the in-memory store and directory: pairs linked with their claims and audit entries,
 * conflicts, unknown users and identities, a repeated list, and a throttling store or directory.
 */
import { Associator } from '../../../lib/imports/association';
import { Importer } from '../../../lib/imports/importer';
import { LinkClaims } from '../../../lib/links/claims';
import { AuditLog, type Actor } from '../../../lib/audit/auditLog';
import type { IdentityDoc } from '../../../lib/identities/model';
import { DirectoryUnavailableError, type DirectoryUser } from '../../../lib/directory/directoryClient';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { MemoryDirectory } from '../../support/memoryDirectory';
import type { RetryClock } from '../../../lib/store/retryPolicy';

const TENANT = '11111111-1111-4111-8111-111111111111';

/** A clock whose sleep moves its time at once (the store's requests still take their turns of the event loop). */
function testClock(): RetryClock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  };
}
const PK = `${TENANT}|src:HR`;
const ACTOR: Actor = { tenantId: TENANT, kind: 'app', id: 'importer-client' };

let memory: MemoryStore;
let directory: MemoryDirectory;
let claims: LinkClaims;
let audit: AuditLog;
let associator: Associator;
let alice: DirectoryUser;
let bob: DirectoryUser;

const identity = (externalId: string) =>
  memory.documents<IdentityDoc>('identities', PK).find((d) => d.externalId === externalId);

beforeEach(async () => {
  memory = createMemoryStore();
  directory = new MemoryDirectory();
  alice = directory.addUser(TENANT, 'alice@dev.example.com');
  bob = directory.addUser(TENANT, 'bob@dev.example.com');
  directory.addUser(TENANT, 'carol@dev.example.com');
  claims = new LinkClaims(memory.store);
  audit = new AuditLog(memory.store);
  // The retry policy's waits pass on a clock of the test's own: throttling is waited out without real time passing.
  associator = new Associator(memory.store, directory, claims, audit, undefined, testClock());
  await new Importer(memory.store, claims, undefined).import(
    TENANT,
    'HR',
    ['H1', 'H2', 'H3'].map((externalId) => ({
      externalId,
      affiliationType: 'EMPLOYMENT',
      firstName: 'F',
      lastName: externalId,
    })),
  );
});

afterEach(() => expect(memory.indexGaps()).toEqual([]));

describe('Associator', () => {
  it('links each pair to its directory user, claims the user and audits the link', async () => {
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [
        { externalId: 'H1', userPrincipalName: 'alice@dev.example.com' },
        // The directory's UPN in another case is the same user.
        { externalId: 'H2', userPrincipalName: 'BOB@dev.example.com' },
      ],
      ACTOR,
    );
    expect(outcome).toEqual({
      associated: 2,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [],
      sendAgain: [],
    });
    const h1 = identity('H1');
    expect(h1?.link).toMatchObject({ status: 'linked', userId: alice.id, userPrincipalName: 'alice@dev.example.com' });
    expect(h1?.version).toBe(2);
    expect(identity('H2')?.link).toMatchObject({ status: 'linked', userId: bob.id });
    expect(identity('H3')?.link.status).toBe('notAsserted');
    expect(await claims.get(TENANT, alice.id)).toMatchObject({ identityPk: PK, identityId: h1?.id });
    const entries = await audit.list(TENANT, h1?.id);
    expect(entries).toEqual([expect.objectContaining({ actor: ACTOR, after: { status: 'linked', userId: alice.id } })]);
  });

  it('reports a user linked to another identity as a conflict and leaves both identities as they were', async () => {
    await associator.associate(TENANT, 'HR', [{ externalId: 'H1', userPrincipalName: 'alice@dev.example.com' }], ACTOR);
    const h3Before = identity('H3');
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [{ externalId: 'H3', userPrincipalName: 'alice@dev.example.com' }],
      ACTOR,
    );
    expect(outcome).toMatchObject({ associated: 0, conflictingUserPrincipalNames: ['alice@dev.example.com'] });
    expect(identity('H3')).toEqual(h3Before);
    expect(identity('H1')?.link).toMatchObject({ status: 'linked', userId: alice.id });
    expect(await claims.get(TENANT, alice.id)).toMatchObject({ identityId: identity('H1')?.id });
  });

  it('reports unknown users and unknown identities, and links the rest', async () => {
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [
        { externalId: 'H1', userPrincipalName: 'nobody@dev.example.com' },
        { externalId: 'H2', userPrincipalName: 'not a upn' },
        { externalId: 'H9', userPrincipalName: 'bob@dev.example.com' },
        { externalId: 'H3', userPrincipalName: 'carol@dev.example.com' },
      ],
      ACTOR,
    );
    expect(outcome.associated).toBe(1);
    expect(outcome.unknownExternalIds).toEqual(['H9']);
    expect(outcome.unknownUserPrincipalNames.sort()).toEqual(['nobody@dev.example.com', 'not a upn']);
    expect(identity('H1')?.link.status).toBe('notAsserted');
    expect(identity('H2')?.link.status).toBe('notAsserted');
    expect(identity('H3')?.link.status).toBe('linked');
    // Bob was not claimed for an identity that does not exist.
    expect(await claims.get(TENANT, bob.id)).toBeUndefined();
  });

  it('refuses a list naming an externalId twice, before anything is written', async () => {
    const writes = memory.writes('identities') + memory.writes('links');
    await expect(
      associator.associate(
        TENANT,
        'HR',
        [
          { externalId: 'H1', userPrincipalName: 'alice@dev.example.com' },
          { externalId: 'H1', userPrincipalName: 'bob@dev.example.com' },
        ],
        ACTOR,
      ),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(memory.writes('identities') + memory.writes('links')).toBe(writes);
  });

  it('is idempotent: the same list again changes nothing and writes nothing', async () => {
    const pairs = [
      { externalId: 'H1', userPrincipalName: 'alice@dev.example.com' },
      { externalId: 'H2', userPrincipalName: 'bob@dev.example.com' },
    ];
    await associator.associate(TENANT, 'HR', pairs, ACTOR);
    const before = memory.documents('identities', PK);
    const writes = memory.writes('identities') + memory.writes('links') + memory.writes('audit');

    const again = await associator.associate(TENANT, 'HR', pairs, ACTOR);
    expect(again).toMatchObject({ associated: 0, unchanged: 2, sendAgain: [], conflictingUserPrincipalNames: [] });
    expect(memory.writes('identities') + memory.writes('links') + memory.writes('audit')).toBe(writes);
    expect(memory.documents('identities', PK)).toEqual(before);
  });

  it('moves an identity to another user: the user it gave up is released', async () => {
    await associator.associate(TENANT, 'HR', [{ externalId: 'H1', userPrincipalName: 'alice@dev.example.com' }], ACTOR);
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [{ externalId: 'H1', userPrincipalName: 'bob@dev.example.com' }],
      ACTOR,
    );
    expect(outcome.associated).toBe(1);
    expect(identity('H1')?.link).toMatchObject({ status: 'linked', userId: bob.id });
    expect(await claims.get(TENANT, alice.id)).toBeUndefined();
    expect(await claims.get(TENANT, bob.id)).toMatchObject({ identityId: identity('H1')?.id });
  });

  it('links every pair while the store throttles and its batches fail: they are done one by one', async () => {
    const batches = memory.faults.add({ ops: ['batch'], container: 'identities', status: 429, count: Infinity });
    const replaces = memory.faults.add({
      ops: ['replace'],
      container: 'identities',
      status: 429,
      retryAfterMs: 5,
      count: 2,
    });
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [
        { externalId: 'H1', userPrincipalName: 'alice@dev.example.com' },
        { externalId: 'H2', userPrincipalName: 'bob@dev.example.com' },
      ],
      ACTOR,
    );
    expect(batches.hits).toBeGreaterThan(0);
    expect(replaces.hits).toBe(2);
    expect(outcome).toMatchObject({ associated: 2, sendAgain: [] });
    expect(identity('H1')?.link).toMatchObject({ status: 'linked', userId: alice.id });
    expect(identity('H2')?.link).toMatchObject({ status: 'linked', userId: bob.id });
  });

  it('hands pairs back to send again when the store throttles longer than a request waits, leaving no claim without its link', async () => {
    const fault = memory.faults.add({
      ops: ['batch', 'replace'],
      container: 'identities',
      status: 429,
      retryAfterMs: 11_000,
      count: Infinity,
    });
    const outcome = await associator.associate(
      TENANT,
      'HR',
      [
        { externalId: 'H1', userPrincipalName: 'alice@dev.example.com' },
        { externalId: 'H2', userPrincipalName: 'bob@dev.example.com' },
      ],
      ACTOR,
    );
    expect(fault.hits).toBeGreaterThan(0);
    expect(outcome.associated).toBe(0);
    expect(outcome.sendAgain.sort()).toEqual(['H1', 'H2']);
    expect(outcome.unknownExternalIds).toEqual([]);
    expect(outcome.unknownUserPrincipalNames).toEqual([]);
    expect(identity('H1')?.link.status).toBe('notAsserted');
    expect(memory.documents('links').filter((c) => c.id === alice.id || c.id === bob.id)).toEqual([]);
  });

  it('fails as a whole when the directory throttles every look-up, having written nothing', async () => {
    directory.failNext(['lookUp'], 1, 429, 30_000);
    const writes = memory.writes('identities') + memory.writes('links');
    const err = await associator
      .associate(TENANT, 'HR', [{ externalId: 'H1', userPrincipalName: 'alice@dev.example.com' }], ACTOR)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DirectoryUnavailableError);
    expect(err).toMatchObject({ reason: 'throttled', retryAfterMs: 30_000 });
    expect(memory.writes('identities') + memory.writes('links')).toBe(writes);
  });
});
