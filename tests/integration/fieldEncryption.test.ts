/**
 * Personal and document numbers are stored encrypted per field, under a data key per tenant wrapped by the
 * Key Vault key (here the stand-in, driven by the real @azure/keyvault-keys client): whoever reads the store
 * without the keys (the SDK straight against the engine) finds no number in any container, for SCIM,
 * import, staged and Manual identities, while every API answers as before. Removing one tenant's key makes
 * its numbers unreadable and leaves another tenant's intact; a key rotation rewraps the data keys without
 * rewriting an identity; a store with identities of before (plain) reads right and `encrypt-existing`
 * seals them; the import content hash is keyed.
 */
import { randomUUID } from 'node:crypto';
import { KeyClient } from '@azure/keyvault-keys';
import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { LOCAL_COSMOS_KEY } from '../../devhost/cosmosServer';
import { services } from '../../lib/services';
import { createStore, type Store } from '../../lib/store/store';
import { CONTAINERS, type ContainerName } from '../../lib/store/containers';
import type { IdentityDoc } from '../../lib/identities/model';
import { partitionKey } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { isEnvelope, isKeyedHash } from '../../lib/crypto/fieldCipher';
import { UNREADABLE_VALUE } from '../../lib/crypto/fieldCrypto';
import { encryptExisting } from '../../lib/crypto/existingIdentities';
import { contentHash } from '../../lib/imports/importInput';
import { customSourceKey } from '../../lib/imports/importer';
import { runOps } from '../../scripts/ops';

type Gql<T = Record<string, unknown>> = {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

const SCIM_CPR = '2802901234';
const SCIM_DOC = 'P1234567';
const IMPORT_CPR = '0101904321';
const STAGED_CPR = '0202805555';
const MANUAL_CPR = '0303703333';
const MANUAL_DOC = 'P7654321';

const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }';
const START = 'mutation($i: StartImportInput!) { startImport(input: $i) { importId } }';
const ADD = 'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { importId sequence } }';
const COMPLETE = 'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId } }';
const RUN = 'query($id: ID!) { importRun(id: $id) { status importCounts { created } } }';
const CREATE =
  'mutation($i: ImportBusinessIdentityInput!) { createBusinessIdentity(input: $i) { businessIdentity { id } } }';

describe('field encryption of personal and document numbers', () => {
  let stack: TestStack;
  let admin: string;
  let api: ReturnType<typeof scim>;
  /** The store as someone with data-plane access and no keys reads it. */
  let raw: Store;
  /** The SCIM User of the first test, with a personal and a document number. */
  let scimUserId = '';
  const gql = async <T>(query: string, variables: Record<string, unknown>) =>
    call<Gql<T>>(`${stack.base}/graphql`, {
      method: 'POST',
      token: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  /** Every document of a container in its stored form, as one string. */
  const storedText = async (name: ContainerName) =>
    JSON.stringify(await raw.collection(name).queryAll({ query: 'SELECT * FROM c' }));
  const rawIdentity = (pk: string, id: string) => raw.collection<IdentityDoc>('identities').read(pk, id);

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await stack.token(DEV_CLIENTS.admin);
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    raw = createStore({ endpoint: stack.cosmosEndpoint, key: LOCAL_COSMOS_KEY, database: 'business-identities' });
  });
  afterAll(async () => {
    raw?.dispose();
    await stack?.stop();
  });

  it('stores no number in any container, for SCIM, import, staged and Manual identities; the APIs answer as before', async () => {
    const created = await api.create(
      userBody(
        {},
        {
          personalNumbers: [{ type: 'DkCpr', value: SCIM_CPR }],
          identityDocumentReferences: [{ type: 'passport', issuingCountry: 'DK', documentNumber: SCIM_DOC }],
        },
      ),
    );
    expect(created.status).toBe(201);
    scimUserId = created.body.id;
    const imported = await gql<{ importBusinessIdentities: { created: number } }>(IMPORT, {
      i: {
        source: 'HR',
        identities: [
          {
            externalId: 'imp-1',
            affiliationType: 'EMPLOYMENT',
            firstName: 'Ida',
            lastName: 'Holm',
            personalNumbers: [{ type: 'DK_CPR', value: IMPORT_CPR }],
          },
        ],
      },
    });
    expect(imported.body.errors).toBeUndefined();
    const started = await gql<{ startImport: { importId: string } }>(START, { i: { source: 'Staged' } });
    const part = await gql(ADD, {
      i: {
        importId: started.body.data!.startImport.importId,
        sequence: 1,
        identities: [
          {
            externalId: 'st-1',
            affiliationType: 'EMPLOYMENT',
            firstName: 'Sif',
            lastName: 'Lund',
            personalNumbers: [{ type: 'DK_CPR', value: STAGED_CPR }],
          },
        ],
      },
    });
    expect(part.body.errors).toBeUndefined();
    // The staged part is in the store now (imports container); the job then creates the identity.
    const partsText = await storedText('imports');
    expect(partsText).toContain('importPartBody');
    expect(partsText).not.toContain(STAGED_CPR);
    const completed = await gql<{ completeImport: { runId: string } }>(COMPLETE, {
      i: { importId: started.body.data!.startImport.importId },
    });
    const runId = completed.body.data!.completeImport.runId;
    for (let tries = 0; ; tries++) {
      const r = await gql<{ importRun: { status: string; importCounts: { created: number } | null } }>(RUN, {
        id: runId,
      });
      if (r.body.data?.importRun.status === 'COMPLETED') {
        expect(r.body.data.importRun.importCounts?.created).toBe(1);
        break;
      }
      if (tries > 600) throw new Error(`run ${r.body.data?.importRun.status}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const stagedIdentity = await raw.collection<IdentityDoc>('identities').queryAll({
      query: 'SELECT * FROM c WHERE c.pk = @pk',
      parameters: [{ name: '@pk', value: partitionKey(DEV_TENANT_ID, customSourceKey('Staged')) }],
    });
    expect(stagedIdentity).toHaveLength(1);
    expect(isEnvelope(stagedIdentity[0]?.personalNumbers?.[0]?.value)).toBe(true);
    const manual = await gql(CREATE, {
      i: {
        externalId: 'man-1',
        affiliationType: 'ENGAGEMENT',
        firstName: 'Kim',
        lastName: 'Vang',
        personalNumbers: [{ type: 'DK_CPR', value: MANUAL_CPR }],
        identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: MANUAL_DOC }],
      },
    });
    expect(manual.body.errors).toBeUndefined();

    for (const name of Object.keys(CONTAINERS) as ContainerName[]) {
      const text = await storedText(name);
      for (const secret of [SCIM_CPR, SCIM_DOC, IMPORT_CPR, STAGED_CPR, MANUAL_CPR, MANUAL_DOC])
        expect({ container: name, leaked: text.includes(secret) }).toEqual({ container: name, leaked: false });
    }
    const stored = await rawIdentity(partitionKey(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId), created.body.id);
    // Whatever the SCIM partition key is, the identity is found by id among the tenant's identities.
    const doc =
      stored ??
      (
        await raw.collection<IdentityDoc>('identities').queryAll({
          query: 'SELECT * FROM c WHERE c.id = @id',
          parameters: [{ name: '@id', value: created.body.id }],
        })
      )[0];
    expect(doc?.personalNumbers?.[0]?.type).toBe('DkCpr');
    expect(isEnvelope(doc?.personalNumbers?.[0]?.value)).toBe(true);
    expect(isEnvelope(doc?.identityDocumentReferences?.[0]?.documentNumber)).toBe(true);

    // With the keys, SCIM answers exactly as before.
    const got = await api.get(created.body.id);
    expect(got.body[EXT]).toMatchObject({
      personalNumbers: [{ type: 'DkCpr', value: SCIM_CPR }],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: SCIM_DOC }],
    });
    expect(got.body).toEqual(created.body);
  });

  it('a changed number, a refused request and a rejected import leave no number in any container either', async () => {
    const NEW_CPR = '1903851199';
    // 31 February: refused as a CPR number, as is the request or import that carries it.
    const REFUSED_CPR = '3102901234';
    const REFUSED_DOC = 'P5550123';
    const REFUSED_EXTERNAL_ID = '010190-4321';
    const REJECTED_CPR = '3102805678';
    const patched = await api.patch(scimUserId, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: `${EXT}:personalNumbers`, value: [{ type: 'DkCpr', value: NEW_CPR }] }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body[EXT]).toMatchObject({ personalNumbers: [{ type: 'DkCpr', value: NEW_CPR }] });

    const refused = await api.create(
      userBody(
        { externalId: REFUSED_EXTERNAL_ID },
        {
          personalNumbers: [{ type: 'DkCpr', value: REFUSED_CPR }],
          identityDocumentReferences: [{ type: 'passport', issuingCountry: 'DK', documentNumber: REFUSED_DOC }],
        },
      ),
    );
    expect(refused.status).toBe(400);
    // The refusal's record (activity container) keeps the externalId with its six-digit run masked.
    for (let tries = 0; !(await storedText('activity')).includes('******-****'); tries++) {
      if (tries > 100) throw new Error('the refusal was not recorded');
      await new Promise((res) => setTimeout(res, 100));
    }

    const rejected = await gql<{ importBusinessIdentities: { created: number } }>(IMPORT, {
      i: {
        source: 'Rejected',
        identities: [
          {
            externalId: 'rej-1',
            affiliationType: 'EMPLOYMENT',
            firstName: 'Liv',
            lastName: 'Moe',
            personalNumbers: [{ type: 'DK_CPR', value: REJECTED_CPR }],
          },
        ],
      },
    });
    expect(rejected.body.data?.importBusinessIdentities?.created ?? 0).toBe(0);

    for (const name of Object.keys(CONTAINERS) as ContainerName[]) {
      const text = await storedText(name);
      for (const secret of [SCIM_CPR, NEW_CPR, REFUSED_CPR, REFUSED_DOC, REFUSED_EXTERNAL_ID, REJECTED_CPR])
        expect({ container: name, leaked: text.includes(secret) }).toEqual({ container: name, leaked: false });
    }
    // The identity's history names the changed attribute, never a value.
    const [stored] = await raw.collection<IdentityDoc>('identities').queryAll({
      query: 'SELECT * FROM c WHERE c.id = @id',
      parameters: [{ name: '@id', value: scimUserId }],
    });
    expect(JSON.stringify(stored?.history)).toContain('personalNumbers');
    expect(isEnvelope(stored?.personalNumbers?.[0]?.value)).toBe(true);
  });

  it('keys the import content hash: a stored hash is not the plain one, and an unchanged rerun writes nothing', async () => {
    const identities = [
      {
        externalId: 'h-1',
        affiliationType: 'EMPLOYMENT',
        firstName: 'Bo',
        lastName: 'Dal',
        personalNumbers: [{ type: 'DK_CPR', value: '0404604444' }],
      },
    ];
    const first = await gql<{ importBusinessIdentities: { created: number } }>(IMPORT, {
      i: { source: 'Hashed', identities },
    });
    expect(first.body.data?.importBusinessIdentities.created).toBe(1);
    const [doc] = await raw.collection<IdentityDoc>('identities').queryAll({
      query: 'SELECT * FROM c WHERE c.pk = @pk',
      parameters: [{ name: '@pk', value: partitionKey(DEV_TENANT_ID, customSourceKey('Hashed')) }],
    });
    expect(doc?.contentHash).toBeDefined();
    expect(isKeyedHash(doc!.contentHash!)).toBe(true);
    // Recomputed without the key, from the very attributes it was stored for, it does not match.
    const plain = contentHash({ ...(await services().identities.get(doc!.pk, doc!.id))! });
    expect(doc!.contentHash).not.toBe(plain);
    expect(doc!.contentHash!.slice(1)).not.toBe(plain.slice(0, 21));
    const again = await gql<{ importBusinessIdentities: { created: number; updated: number; unchanged: number } }>(
      IMPORT,
      { i: { source: 'Hashed', identities } },
    );
    expect(again.body.data?.importBusinessIdentities).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    const after = await rawIdentity(doc!.pk, doc!.id);
    expect(after?._etag).toBe(doc!._etag);
  });

  it('after the upgrade, an identity stored plain with its plain content hash is unchanged by a rerun: no write', async () => {
    const identities = [
      {
        externalId: 'u-1',
        affiliationType: 'EMPLOYMENT',
        firstName: 'Eva',
        lastName: 'Sund',
        personalNumbers: [{ type: 'DK_CPR', value: '1402701414' }],
      },
    ];
    const first = await gql<{ importBusinessIdentities: { created: number } }>(IMPORT, {
      i: { source: 'Upgrade', identities },
    });
    expect(first.body.data?.importBusinessIdentities.created).toBe(1);
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Upgrade'));
    // As a version before field encryption left it: numbers and content hash plain, and a manifest of plain hashes
    // (here: none, so the import compares with the identity itself).
    const readable = (await services().identities.get(
      pk,
      (await raw.collection<IdentityDoc>('identities').queryPartitionPage(pk, 'SELECT *', '')).items[0]!.id,
    ))!;
    const { _etag: _e, ...plain } = { ...readable, contentHash: contentHash(readable) };
    await raw.collection<IdentityDoc>('identities').replace(plain);
    const manifest = await raw
      .collection<{ id: string; pk: string; kind?: string }>('imports')
      .queryPartitionPage(pk, 'SELECT c.id, c.pk, c.kind', "STARTSWITH(c.kind, 'manifest')");
    for (const m of manifest.items) await raw.collection('imports').delete(m.pk, m.id);
    const before = await rawIdentity(pk, plain.id);
    expect(before?.personalNumbers?.[0]?.value).toBe('1402701414');
    expect(isKeyedHash(before!.contentHash!)).toBe(false);
    const again = await gql<{ importBusinessIdentities: { created: number; updated: number; unchanged: number } }>(
      IMPORT,
      { i: { source: 'Upgrade', identities } },
    );
    expect(again.body.data?.importBusinessIdentities).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    expect((await rawIdentity(pk, plain.id))?._etag).toBe(before?._etag);
  });

  /** An identity of `tenantId` with a personal number, written through the service's store (sealed). */
  const writeFor = async (tenantId: string, cpr: string) => {
    const doc = newIdentityDoc({
      id: randomUUID(),
      tenantId,
      sourceKind: 'custom',
      sourceKey: customSourceKey('Shred'),
      attributes: {
        externalId: `x-${cpr}`,
        affiliationType: 'employment',
        name: { givenName: 'A', familyName: 'B' },
        personalNumbers: [{ type: 'DkCpr', value: cpr }],
        identityDocumentReferences: [],
      } as unknown as Parameters<typeof newIdentityDoc>[0]['attributes'],
      now: new Date().toISOString(),
    });
    await services().identities.create(doc);
    return doc;
  };

  it("removing one tenant's data key makes its numbers unreadable and leaves another tenant's intact", async () => {
    const shredded = randomUUID();
    const kept = randomUUID();
    const a = await writeFor(shredded, '0505505555');
    const b = await writeFor(kept, '0606606666');
    const keys = services().fieldCrypto!.keys;
    expect(await keys.forget(shredded)).toBe(true);
    const readA = await services().identities.get(a.pk, a.id);
    const readB = await services().identities.get(b.pk, b.id);
    expect(readA?.personalNumbers).toEqual([{ type: 'DkCpr', value: UNREADABLE_VALUE }]);
    expect(readB?.personalNumbers).toEqual([{ type: 'DkCpr', value: '0606606666' }]);
    // A list of the shredded tenant's source still answers (each unreadable number in its place).
    const page = await services().store.collection<IdentityDoc>('identities').queryPartitionPage(a.pk, 'SELECT *', '');
    expect(page.items.map((d) => d.personalNumbers?.[0]?.value)).toEqual([UNREADABLE_VALUE]);
    // No new key is made for a forgotten tenant: a new number of it is refused, not stored plain.
    await expect(writeFor(shredded, '0707707777')).rejects.toThrow(/key was removed/);
    // The dev tenant's SCIM users are untouched.
    expect((await api.list('?count=5')).status).toBe(200);
  });

  it('a key rotation rewraps every data key with the new version and rewrites no identity', async () => {
    const tenant = randomUUID();
    const doc = await writeFor(tenant, '0808808888');
    const before = await rawIdentity(doc.pk, doc.id);
    const keys = services().fieldCrypto!.keys;
    const oldRecord = await keys.record(tenant);
    const client = new KeyClient(
      stack.keyVault.url,
      {
        getToken: () => Promise.resolve({ token: 't', expiresOnTimestamp: Date.now() + 60_000 }),
      },
      { disableChallengeResourceVerification: true, allowInsecureConnection: true },
    );
    const rotated = await client.rotateKey('field-encryption');
    (keys.wrapper as { refresh?: () => void }).refresh?.();
    const result = await keys.rewrapAll();
    expect(result.rewrapped).toBeGreaterThanOrEqual(1);
    const newRecord = await keys.record(tenant);
    expect(newRecord?.wrappedBy).toBe(rotated.id);
    expect(newRecord?.wrappedBy).not.toBe(oldRecord?.wrappedBy);
    expect(newRecord?.keyId).toBe(oldRecord?.keyId);
    const after = await rawIdentity(doc.pk, doc.id);
    expect(after?._etag).toBe(before?._etag);
    keys.clearCache();
    expect((await services().identities.get(doc.pk, doc.id))?.personalNumbers?.[0]?.value).toBe('0808808888');
    // Run again: nothing left to rewrap.
    expect((await keys.rewrapAll()).rewrapped).toBe(0);
  });

  it('unwraps with the configured vault only: a key record naming another host is not followed', async () => {
    const tenant = randomUUID();
    const doc = await writeFor(tenant, '1515151515');
    const records = raw.collection<{ id: string; pk: string; wrappedBy?: string }>('tenants');
    const record = (await records.read(tenant, 'fieldKey'))!;
    const { _etag, ...rest } = record;
    const path = new URL(rest.wrappedBy!).pathname;
    await records.replace({ ...rest, wrappedBy: `https://vault.attacker.example${path}` }, _etag);
    services().fieldCrypto!.keys.clearCache();
    expect((await services().identities.get(doc.pk, doc.id))?.personalNumbers?.[0]?.value).toBe('1515151515');
  });

  it('a mixed store reads right, and encrypt-existing seals the plain identities once', async () => {
    const tenant = randomUUID();
    const sealed = await writeFor(tenant, '0909909999');
    // An identity of before: written plain, straight to the store, with a plain content hash.
    const plainDoc = {
      ...(await writeFor(tenant, '1010101010')),
      id: randomUUID(),
      externalIdKey: 'plain-1',
      userNameKey: 'plain-1',
    };
    const plainHash = contentHash(plainDoc);
    await raw.collection<IdentityDoc>('identities').create({ ...plainDoc, contentHash: plainHash });
    const storedPlain = await rawIdentity(plainDoc.pk, plainDoc.id);
    expect(storedPlain?.personalNumbers?.[0]?.value).toBe('1010101010');
    const read = await services().identities.get(plainDoc.pk, plainDoc.id);
    expect(read?.personalNumbers?.[0]?.value).toBe('1010101010');
    expect(isKeyedHash(read!.contentHash!)).toBe(true);
    expect((await services().identities.get(sealed.pk, sealed.id))?.personalNumbers?.[0]?.value).toBe('0909909999');

    const first = await encryptExisting(raw, services().fieldCrypto!, tenant, 100);
    expect(first).toMatchObject({ written: 1, more: false });
    const converted = await rawIdentity(plainDoc.pk, plainDoc.id);
    expect(isEnvelope(converted?.personalNumbers?.[0]?.value)).toBe(true);
    expect(isKeyedHash(converted!.contentHash!)).toBe(true);
    expect(converted?.version).toBe(storedPlain?.version);
    expect(converted?.lastModified).toBe(storedPlain?.lastModified);
    expect((await services().identities.get(plainDoc.pk, plainDoc.id))?.personalNumbers?.[0]?.value).toBe('1010101010');
    const second = await encryptExisting(raw, services().fieldCrypto!, tenant, 100);
    expect(second).toMatchObject({ written: 0, more: false });
  });

  it('a plain identity is sealed by its next write; encrypt-existing stops at its bound and goes on where it stopped', async () => {
    const tenant = randomUUID();
    /** An identity of before, written plain straight to the store. */
    const plain = async (cpr: string, key: string) => {
      const doc = { ...(await writeFor(tenant, cpr)), id: randomUUID(), externalIdKey: key, userNameKey: key };
      await raw.collection<IdentityDoc>('identities').create(doc);
      return doc;
    };
    const written = await plain('1212601212', 'plain-w');
    const rest = [await plain('1312601313', 'plain-a'), await plain('1412601414', 'plain-b')];

    // The service's next write of the identity seals its number; what it reads stays the same.
    const read = (await services().identities.get(written.pk, written.id))!;
    const { _etag, ...doc } = read;
    await services().identities.replace({ ...doc, lastModified: new Date().toISOString() }, _etag);
    expect(isEnvelope((await rawIdentity(written.pk, written.id))?.personalNumbers?.[0]?.value)).toBe(true);
    expect((await services().identities.get(written.pk, written.id))?.personalNumbers?.[0]?.value).toBe('1212601212');

    // Bounded at one write a run: the first run stops and says so, the next goes on, the third has nothing to do.
    expect(await encryptExisting(raw, services().fieldCrypto!, tenant, 1)).toMatchObject({ written: 1, more: true });
    expect(await encryptExisting(raw, services().fieldCrypto!, tenant, 1)).toMatchObject({ written: 1, more: false });
    expect(await encryptExisting(raw, services().fieldCrypto!, tenant, 1)).toMatchObject({ written: 0, more: false });
    for (const d of rest) {
      expect(isEnvelope((await rawIdentity(d.pk, d.id))?.personalNumbers?.[0]?.value)).toBe(true);
      expect((await services().identities.get(d.pk, d.id))?.personalNumbers?.[0]?.value).toBe(
        d.personalNumbers?.[0]?.value,
      );
    }
  });

  it('the operator commands: encrypt-existing, rotate-keys and forget-tenant-key, each refusing bad arguments', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
      KEY_VAULT_URL: stack.keyVault.url,
    };
    const tenant = randomUUID();
    const plainDoc = {
      ...(await writeFor(tenant, '1111111118')),
      id: randomUUID(),
      externalIdKey: 'p',
      userNameKey: 'p',
    };
    await raw.collection<IdentityDoc>('identities').create(plainDoc);
    expect(await runOps(['encrypt-existing', tenant], env)).toEqual({
      code: 0,
      out: ['read 2 identities, sealed 1', 'done: every identity of the tenant is stored encrypted'],
    });
    expect(isEnvelope((await rawIdentity(plainDoc.pk, plainDoc.id))?.personalNumbers?.[0]?.value)).toBe(true);

    const versions = stack.keyVault.versions('field-encryption').length;
    const rotated = await runOps(['rotate-keys'], env);
    expect(rotated.code).toBe(0);
    expect(stack.keyVault.versions('field-encryption')).toHaveLength(versions + 1);
    expect(rotated.out[1]).toMatch(
      /^rewrapped [1-9]\d* of [1-9]\d* tenant data keys with the current key version; no identity rewritten$/,
    );
    expect((await runOps(['rotate-keys', '--rewrap-only'], env)).out).toEqual([
      expect.stringMatching(/^rewrapped 0 of \d+ tenant data keys/),
    ]);

    expect(await runOps(['forget-tenant-key', tenant], env)).toMatchObject({ code: 2 });
    expect(await runOps(['forget-tenant-key', 'not-a-guid', '--yes'], env)).toEqual({
      code: 2,
      out: ['The tenant id must be a GUID'],
    });
    expect(await runOps(['rotate-keys', 'now'], env)).toMatchObject({ code: 2 });
    expect(await runOps(['encrypt-existing', tenant, '0'], env)).toMatchObject({ code: 2 });
    const { KEY_VAULT_URL: _vault, ...azureWithoutVault } = env;
    expect(await runOps(['rotate-keys'], azureWithoutVault)).toEqual({
      code: 2,
      out: ['Setting KEY_VAULT_URL is required for this command against an Azure account'],
    });
    expect(await runOps(['forget-tenant-key', tenant, '--yes'], env)).toEqual({
      code: 0,
      out: [`forgot the data key of ${tenant}: its personal and document numbers are unreadable from now on`],
    });
    services().fieldCrypto!.keys.clearCache();
    expect((await services().identities.get(plainDoc.pk, plainDoc.id))?.personalNumbers?.[0]?.value).toBe(
      UNREADABLE_VALUE,
    );
  });

  it('while Key Vault does not answer, a number whose key is not cached is 503 with Retry-After, not a wrong answer', async () => {
    const plain = await api.create(userBody());
    expect(plain.status).toBe(201);
    await stack.keyVault.close();
    services().fieldCrypto!.keys.clearCache();
    const res = await api.get(scimUserId);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).not.toContain(SCIM_CPR);
    // A User without numbers is still served.
    expect((await api.get(plain.body.id)).status).toBe(200);
  });

  it('a write of a number for a tenant whose key was forgotten is refused (500, nothing echoed, nothing stored)', async () => {
    const keys = services().fieldCrypto!.keys;
    await keys.forget(DEV_TENANT_ID);
    const res = await api.create(userBody({}, { personalNumbers: [{ type: 'DkCpr', value: '1212121212' }] }));
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('1212121212');
    expect(await storedText('identities')).not.toContain('1212121212');
    // A User without numbers is still served.
    expect((await api.create(userBody())).status).toBe(201);
  });
});
