import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';
import type { AuditEntry } from '../../lib/audit/auditLog';
import type { IdentityDoc } from '../../lib/identities/model';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

type Result = {
  associated: number;
  unchanged: number;
  unknownExternalIds: string[];
  unknownUserPrincipalNames: string[];
  conflictingUserPrincipalNames: string[];
};
type Gql = {
  data?: { associateBusinessIdentities?: Result } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; externalIds?: string[] } }>;
};

const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created deleted } }';
const ASSOCIATE =
  'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }';

type Person = { externalId: string; upn: string; userId: string };

/**
 * Batched association against everything that may happen to the same identities and users at the same
 * time, and against store failures part-way. After each: no user claimed for two identities, every
 * linked identity holds its claim, no claim stays for an identity that does not link to its user, the
 * counts answered are what is stored, and sending the list again converges.
 */
describe('batched association under races and store failures', () => {
  let stack: TestStack;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const importSource = async (source: string, externalIds: string[]) => {
    const res = await gql(IMPORT, {
      i: {
        source,
        identities: externalIds.map((externalId) => ({
          externalId,
          affiliationType: 'EMPLOYMENT',
          firstName: 'F',
          lastName: 'L',
        })),
      },
    });
    expect(res.body.errors).toBeUndefined();
    return res;
  };
  const prepare = async (source: string, n: number): Promise<Person[]> => {
    const ids = Array.from({ length: n }, (_, i) => `${source}-${i}`);
    await importSource(source, ids);
    return ids.map((externalId, i) => {
      const upn = `${source.toLowerCase()}.${i}@dev.example.com`;
      return { externalId, upn, userId: stack.directory.createUser(DEV_TENANT_ID, upn).id };
    });
  };
  const pairsOf = (people: Array<{ externalId: string; upn: string }>) =>
    people.map((p) => ({ externalId: p.externalId, userPrincipalName: p.upn }));
  const identities = () => services().store.collection<IdentityDoc>('identities');
  const stored = async (source: string) => {
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey(source));
    return identities().queryAll<IdentityDoc>(
      { query: 'SELECT * FROM c WHERE c.pk = @pk', parameters: [{ name: '@pk', value: pk }] },
      { partitionKey: pk },
    );
  };
  const associatedEntries = async (ids: Set<string>) => {
    const entries = await services()
      .store.collection<AuditEntry>('audit')
      .queryAll<{ action: string; target: { id: string } }>(
        // The tenant's whole audit partition, filtered here: the audit container indexes no `action`.
        {
          query: 'SELECT c.action, c.target FROM c WHERE c.pk = @pk',
          parameters: [{ name: '@pk', value: DEV_TENANT_ID }],
        },
        { partitionKey: DEV_TENANT_ID },
      );
    return entries.filter((e) => e.action === 'link.associated' && ids.has(e.target.id)).length;
  };

  /** The link invariants over these users and the identities of these sources; returns the linked identities per source. */
  const expectInvariants = async (userIds: string[], sources: string[]) => {
    const linked = new Map<string, IdentityDoc[]>();
    const linkedUsers = new Map<string, string>();
    for (const source of sources) {
      const docs = (await stored(source)).filter((d) => d.link.status === 'linked');
      linked.set(source, docs);
      for (const d of docs) {
        const userId = d.link.userId!;
        expect(linkedUsers.get(userId)).toBeUndefined(); // one identity per user
        linkedUsers.set(userId, d.id);
        expect(await services().claims.get(DEV_TENANT_ID, userId)).toMatchObject({
          identityPk: d.pk,
          identityId: d.id,
        });
      }
    }
    for (const userId of userIds) {
      const claim = await services().claims.get(DEV_TENANT_ID, userId);
      if (!claim) continue;
      // A claim stands only for an identity that links to its user.
      expect((await identities().read(claim.identityPk, claim.identityId))?.link).toMatchObject({
        status: 'linked',
        userId,
      });
    }
    return linked;
  };

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterEach(() => setFaultInjector(undefined));
  afterAll(async () => stack?.stop());

  it('an identity deleted after the batch read it is reported unknown and leaves no claim; the others are linked', async () => {
    const people = await prepare('Gone', 10);
    const victim = people[4]!;
    const doc = (await stored('Gone')).find((d) => d.externalId === victim.externalId)!;
    let deletion: Promise<boolean> | undefined;
    let deleted = false;
    setFaultInjector((op, container, target) => {
      // As the batch claims the victim's user, an import deletes the identity.
      if (
        container === 'links' &&
        op === 'create' &&
        (target as { identityId?: string } | undefined)?.identityId === doc.id &&
        !deletion
      ) {
        deletion = identities()
          .delete(doc.pk, doc.id)
          .then((r) => ((deleted = true), r));
      }
      if (container === 'identities' && op === 'replace' && target?.id === doc.id && !deleted)
        throw new StoreError('unavailable', 'injected: not yet');
    });
    const res = await gql(ASSOCIATE, { i: { source: 'Gone', associations: pairsOf(people) } });
    await deletion;
    setFaultInjector(undefined);
    expect(deleted).toBe(true);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({
      associated: 9,
      unchanged: 0,
      unknownExternalIds: [victim.externalId],
    });
    expect(await services().claims.get(DEV_TENANT_ID, victim.userId)).toBeUndefined();
    await expectInvariants(
      people.map((p) => p.userId),
      ['Gone'],
    );
  });

  it('an identity really changed between the read and its batch (a 412 inside the batch): the whole batch is done one by one, each pair counted and audited once, the change kept', async () => {
    const people = await prepare('Edited', 20);
    const docs = await stored('Edited');
    const victim = docs.find((d) => d.externalId === people[3]!.externalId)!;
    let edit: Promise<unknown> | undefined;
    let editedBeforeBatch: boolean | undefined;
    let edited = false;
    setFaultInjector((op, container, target) => {
      // After the identities were read, as the batch looks up the users' claims, another writer changes the identity.
      if (container === 'links' && op === 'query' && !edit) {
        const { _etag, ...rest } = victim as IdentityDoc & { _etag: string };
        edit = identities()
          .replace({ ...rest, givenName: 'Changed' }, _etag)
          .then(() => (edited = true));
      }
      if (
        container === 'identities' &&
        op === 'replace' &&
        target?.id === victim.id &&
        (target as unknown as IdentityDoc).link.status === 'linked' &&
        editedBeforeBatch === undefined
      )
        editedBeforeBatch = edited;
    });
    const res = await gql(ASSOCIATE, { i: { source: 'Edited', associations: pairsOf(people) } });
    await edit;
    setFaultInjector(undefined);
    expect(editedBeforeBatch).toBe(true);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 20, unchanged: 0 });
    const linked = (
      await expectInvariants(
        people.map((p) => p.userId),
        ['Edited'],
      )
    ).get('Edited')!;
    expect(linked).toHaveLength(20);
    expect(linked.find((d) => d.id === victim.id)?.givenName).toBe('Changed');
    expect(await associatedEntries(new Set(docs.map((d) => d.id)))).toBe(20);
  });

  it('an import deleting half of the identities while they are associated: every claim belongs to a linked identity, counts match, a re-run converges', async () => {
    const people = await prepare('Shrink', 400);
    const keep = people.filter((_, i) => i % 2 === 0);
    const [assoc, imported] = await Promise.all([
      gql(ASSOCIATE, { i: { source: 'Shrink', associations: pairsOf(people) } }),
      importSource(
        'Shrink',
        keep.map((p) => p.externalId),
      ),
    ]);
    expect(assoc.body.errors).toBeUndefined();
    expect(imported.body.errors).toBeUndefined();
    const result = assoc.body.data!.associateBusinessIdentities!;
    const linked = (
      await expectInvariants(
        people.map((p) => p.userId),
        ['Shrink'],
      )
    ).get('Shrink')!;
    expect(linked.every((d) => keep.some((p) => p.externalId === d.externalId))).toBe(true);
    expect(result.associated + result.unknownExternalIds.length).toBe(400);
    expect(result.associated).toBeGreaterThanOrEqual(linked.length);
    const again = await gql(ASSOCIATE, { i: { source: 'Shrink', associations: pairsOf(keep) } });
    expect(again.body.errors).toBeUndefined();
    const rerun = again.body.data!.associateBusinessIdentities!;
    expect(rerun.associated + rerun.unchanged).toBe(200);
    expect(
      (
        await expectInvariants(
          people.map((p) => p.userId),
          ['Shrink'],
        )
      ).get('Shrink'),
    ).toHaveLength(200);
  });

  it('two lists naming the same 300 users for different identities at once: each user linked to one identity, the other pair reported in conflict', async () => {
    const a = await prepare('Left', 300);
    const b = (await prepare('Right', 300)).map((p, i) => ({ ...p, upn: a[i]!.upn }));
    const [ra, rb] = await Promise.all([
      gql(ASSOCIATE, { i: { source: 'Left', associations: pairsOf(a) } }),
      gql(ASSOCIATE, { i: { source: 'Right', associations: pairsOf(b) } }),
    ]);
    expect(ra.body.errors).toBeUndefined();
    expect(rb.body.errors).toBeUndefined();
    const left = ra.body.data!.associateBusinessIdentities!;
    const right = rb.body.data!.associateBusinessIdentities!;
    expect(left.associated + right.associated).toBe(300);
    expect(left.conflictingUserPrincipalNames.length + right.conflictingUserPrincipalNames.length).toBe(300);
    const linked = await expectInvariants(
      a.map((p) => p.userId),
      ['Left', 'Right'],
    );
    expect(linked.get('Left')!.length).toBe(left.associated);
    expect(linked.get('Right')!.length).toBe(right.associated);
  });

  it('administrator links and unlinks on the same identities and users during the association: one identity per user, every claim backed', async () => {
    const people = await prepare('Admin', 150);
    const others = await prepare('AdminOther', 30);
    const docs = await stored('Admin');
    const otherDocs = await stored('AdminOther');
    const LINK =
      'mutation($s: String!, $id: ID!, $u: String) { linkBusinessIdentity(input: { source: $s, id: $id, userPrincipalName: $u }) { businessIdentity { id } } }';
    const UNLINK =
      'mutation($s: String!, $id: ID!) { unlinkBusinessIdentity(input: { source: $s, id: $id }) { businessIdentity { id } } }';
    const admin = async () => {
      for (let i = 0; i < 30; i++) {
        // Another identity takes a user of the list; an identity of the list is linked elsewhere, then unlinked.
        await gql(LINK, { s: 'AdminOther', id: otherDocs[i]!.id, u: people[i * 5]!.upn });
        const own = docs.find((d) => d.externalId === people[i * 5 + 1]!.externalId)!;
        await gql(LINK, { s: 'Admin', id: own.id, u: others[i]!.upn });
        await gql(UNLINK, { s: 'Admin', id: own.id });
      }
    };
    const [res] = await Promise.all([
      gql(ASSOCIATE, { i: { source: 'Admin', associations: pairsOf(people) } }),
      admin(),
    ]);
    expect(res.body.errors).toBeUndefined();
    await expectInvariants(
      [...people, ...others].map((p) => p.userId),
      ['Admin', 'AdminOther'],
    );
    const again = await gql(ASSOCIATE, { i: { source: 'Admin', associations: pairsOf(people) } });
    expect(again.body.errors).toBeUndefined();
    await expectInvariants(
      [...people, ...others].map((p) => p.userId),
      ['Admin', 'AdminOther'],
    );
  });

  it('SCIM Users saved with the UPNs being associated, resolved by the background unit at the same time: one identity per user', async () => {
    const people = await prepare('Scimmed', 40);
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const saves = Promise.all(
      people.slice(0, 20).map((p) => api.create(userBody({}, { directoryUserPrincipalName: p.upn }))),
    );
    const [res, created] = await Promise.all([
      gql(ASSOCIATE, { i: { source: 'Scimmed', associations: pairsOf(people) } }),
      saves,
    ]);
    for (const c of created) expect(c.status).toBe(201);
    expect(res.body.errors).toBeUndefined();
    const result = res.body.data!.associateBusinessIdentities!;
    expect(result.associated + result.conflictingUserPrincipalNames.length).toBe(40);
    const linked = await expectInvariants(
      people.map((p) => p.userId),
      ['Scimmed'],
    );
    expect(linked.get('Scimmed')!.length).toBe(result.associated);
  });

  it('store failures on the claims batch, the identity batch and the audit batch: pairs go on one by one, every link audited once, lastModified is the time of the write', async () => {
    const people = await prepare('Faulty', 250);
    const docs = await stored('Faulty');
    const ids = new Set(docs.map((d) => d.id));
    // The first 100 items of the first claims batch, identity batch and audit batch fail: the items of one
    // batch are checked in one go, so a fault lasts until the next turn of the event loop (the writes one by
    // one that follow are not failed).
    const bursts = new Map<string, { faults: number; over: boolean }>();
    const failedAt = new Map<string, string>();
    const inFirstBatch = (kind: string) => {
      let b = bursts.get(kind);
      if (!b) {
        b = { faults: 0, over: false };
        bursts.set(kind, b);
        const burst = b;
        setImmediate(() => (burst.over = true));
      }
      return !b.over && b.faults++ < 100;
    };
    setFaultInjector((op, container, target) => {
      const item = target as { identityId?: string; action?: string; externalIdKey?: string } | undefined;
      const batched =
        (container === 'links' && op === 'create' && item?.identityId) ||
        (container === 'identities' && op === 'replace' && item?.externalIdKey) ||
        (container === 'audit' && op === 'create' && item?.action === 'link.associated');
      if (!batched || !inFirstBatch(`${container}.${op}`)) return;
      if (container === 'identities' && target) failedAt.set(target.id, new Date().toISOString());
      throw new StoreError('unavailable', 'injected');
    });
    const res = await gql(ASSOCIATE, { i: { source: 'Faulty', associations: pairsOf(people) } });
    setFaultInjector(undefined);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 250, unchanged: 0 });
    const linked = (
      await expectInvariants(
        people.map((p) => p.userId),
        ['Faulty'],
      )
    ).get('Faulty')!;
    expect(linked).toHaveLength(250);
    expect(await associatedEntries(ids)).toBe(250);
    expect(bursts.get('links.create')?.faults).toBeGreaterThan(0);
    expect(bursts.get('audit.create')?.faults).toBeGreaterThan(0);
    expect(failedAt.size).toBeGreaterThan(0);
    // An identity whose batch failed was written later, on its own: its lastModified is not from before the failure.
    for (const d of linked) if (failedAt.has(d.id)) expect(d.lastModified >= failedAt.get(d.id)!).toBe(true);
    const again = await gql(ASSOCIATE, { i: { source: 'Faulty', associations: pairsOf(people) } });
    expect(again.body.data?.associateBusinessIdentities).toMatchObject({ associated: 0, unchanged: 250 });
  });

  it('identity writes that keep failing after their claims were batched: reported to send again, claims released, nothing counted; the re-run links them', async () => {
    const people = await prepare('Stuck', 120);
    const docs = await stored('Stuck');
    const stuck = new Set(docs.filter((_, i) => i % 10 === 0).map((d) => d.id));
    setFaultInjector((op, container, target) => {
      if (container === 'identities' && op === 'replace' && target && stuck.has(target.id))
        throw new StoreError('unavailable', 'injected', 1);
    });
    const res = await gql(ASSOCIATE, { i: { source: 'Stuck', associations: pairsOf(people) } });
    setFaultInjector(undefined);
    expect(res.body.data?.associateBusinessIdentities).toMatchObject({ associated: 120 - stuck.size });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('ASSOCIATION_INCOMPLETE');
    const sendAgain = new Set(res.body.errors?.[0]?.extensions?.externalIds);
    expect(sendAgain).toEqual(new Set(docs.filter((d) => stuck.has(d.id)).map((d) => d.externalId)));
    await expectInvariants(
      people.map((p) => p.userId),
      ['Stuck'],
    );
    for (const p of people.filter((x) => sendAgain.has(x.externalId)))
      expect(await services().claims.get(DEV_TENANT_ID, p.userId)).toBeUndefined();
    const again = await gql(ASSOCIATE, { i: { source: 'Stuck', associations: pairsOf(people) } });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data?.associateBusinessIdentities).toMatchObject({
      associated: stuck.size,
      unchanged: 120 - stuck.size,
    });
  });
});
