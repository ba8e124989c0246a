import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, expectScimError, scim, userBody } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';
import { diffCounters, storeCounters } from '../../lib/store/metrics';

describe('SCIM Users: create, read, replace, delete', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;
  let other: ReturnType<typeof scim>;

  beforeAll(async () => {
    stack = await startTestStack();
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    other = scim(stack, await stack.token(DEV_CLIENTS.scim2));
  });
  afterAll(async () => stack?.stop());

  it('creates a User: 201, Location, ETag, meta, normalised values', async () => {
    const res = await api.create(
      userBody(
        {},
        {
          affiliationType: 'EMPLOYMENT',
          birthDate: '1990-02-28',
          nationality: 'dk',
          personalEmail: 'anna@private.example',
          personalPhone: '+4512345678',
          personalNumbers: [{ type: 'DkCpr', value: '280290-1234' }],
          identityDocumentReferences: [{ type: 'passport', issuingCountry: 'DK', documentNumber: 'P1234567' }],
        },
      ),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
    expect(res.headers.get('location')).toBe(res.body.meta.location);
    expect(res.body.meta.location).toBe(`${stack.base}/scim/v2/Users/${res.body.id}`);
    expect(res.headers.get('etag')).toBe('W/"1"');
    expect(res.body.meta.version).toBe('W/"1"');
    expect(Date.parse(res.body.meta.created)).not.toBeNaN();
    const ext = res.body[EXT];
    expect(ext).toMatchObject({
      affiliationType: 'employment',
      nationality: 'DK',
      personalNumbers: [{ type: 'DkCpr', value: '2802901234' }],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1234567' }],
      directoryLinkStatus: 'notAsserted',
    });
    // Unassigned attributes are left out (RFC 7643 §2.5).
    expect(ext).not.toHaveProperty('directoryLinkSource');
    expect(ext).not.toHaveProperty('directoryLinkedUserId');
    const got = await api.get(res.body.id);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('W/"1"');
    expect(got.body).toEqual(res.body);
  });

  it('accepts attribute names in any case, boolean strings, and ignores unknown core attributes and other extensions', async () => {
    const body = userBody();
    const res = await api.create({
      SCHEMAS: body.schemas,
      UserName: body.userName,
      EXTERNALID: body.externalId,
      Name: { GivenName: 'Bo', FAMILYNAME: 'Ek' },
      Active: 'False',
      emails: [{ type: 'work', value: 'bo@corp.example' }],
      displayName: 'Bo Ek',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'X' },
      [EXT.toUpperCase()]: { AffiliationType: 'Enrollment', DirectoryLinkStatus: 'linked' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ active: false, name: { givenName: 'Bo', familyName: 'Ek' } });
    expect(res.body[EXT]).toMatchObject({ affiliationType: 'enrollment', directoryLinkStatus: 'notAsserted' });
    expect(res.text).not.toContain('emails');
  });

  it.each([
    ['externalId', { externalId: undefined }, {}],
    ['userName', { userName: undefined }, {}],
    ['name.givenName', { name: { familyName: 'B' } }, {}],
    ['name.familyName', { name: { givenName: 'A', familyName: '' } }, {}],
    ['affiliationType', {}, { affiliationType: undefined }],
  ])('400 invalidValue when the required %s is missing', async (attr, overrides, ext) => {
    const res = await api.create(userBody(overrides, ext));
    expectScimError(res, 400, 'invalidValue');
    expect(res.body.detail).toContain(attr.split('.').pop());
  });

  it.each([
    ['CPR number', { personalNumbers: [{ type: 'DkCpr', value: '3213999999' }] }, '3213999999'],
    ['CPR with letters', { personalNumbers: [{ type: 'DkCpr', value: 'DISTINCT42' }] }, 'DISTINCT42'],
    ['birth date', { birthDate: '1999-02-30' }, '1999-02-30'],
    ['phone', { personalPhone: '+45 123 DISTINCT' }, 'DISTINCT'],
    ['email', { personalEmail: 'x@@distinct' }, 'distinct'],
    ['email length', { personalEmail: `${'a'.repeat(200)}@x.example` }, 'aaaaaaaaaa'],
    ['nationality', { nationality: 'QQ' }, '"QQ"'],
    [
      'issuing country',
      { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'ZZ', documentNumber: 'DOC-SECRET-1' }] },
      'DOC-SECRET-1',
    ],
    ['document number', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK' }] }, 'Passport"'],
    [
      'document type',
      {
        identityDocumentReferences: [{ type: 'DriversLicence', issuingCountry: 'DK', documentNumber: 'DOC-SECRET-2' }],
      },
      'DOC-SECRET-2',
    ],
    ['affiliation', { affiliationType: 'contractor-secret' }, 'contractor-secret'],
    [
      'two numbers of one type',
      {
        personalNumbers: [
          { type: 'DkCpr', value: '0101901234' },
          { type: 'DkCpr', value: '0202901234' },
        ],
      },
      '0202901234',
    ],
  ])('400 invalidValue for a bad %s, without the value in the response', async (_what, ext, secret) => {
    const res = await api.create(userBody({}, ext));
    expectScimError(res, 400, 'invalidValue', secret);
  });

  it('400 invalidValue for names longer than 128 characters', async () => {
    const long = 'N'.repeat(129);
    const res = await api.create(userBody({ name: { givenName: long, familyName: 'B' } }));
    expectScimError(res, 400, 'invalidValue', long);
    expect(res.body.detail).toContain('givenName');
  });

  it('400 invalidSyntax for an unknown service-extension attribute, a non-JSON body, or a non-object body', async () => {
    const unknown = await api.create(userBody({}, { affiliatonType: 'employment-secret' }));
    expectScimError(unknown, 400, 'invalidSyntax', 'employment-secret');
    expect(unknown.body.detail).toContain('affiliatonType');
    const notJson = await call(`${stack.base}/scim/v2/Users`, {
      method: 'POST',
      token: await stack.token(),
      body: '{"userName": "secret-json',
      headers: { 'content-type': 'application/scim+json' },
    });
    expectScimError(notJson, 400, 'invalidSyntax', 'secret-json');
    expectScimError(await api.create(['not', 'an', 'object']), 400, 'invalidSyntax');
  });

  it('415 for a media type other than SCIM or JSON', async () => {
    const res = await call(`${stack.base}/scim/v2/Users`, {
      method: 'POST',
      token: await stack.token(),
      body: 'userName=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectScimError(res, 415, undefined);
  });

  it('409 uniqueness for the same externalId (case-sensitive) or userName (case-insensitive)', async () => {
    const first = userBody();
    expect((await api.create(first)).status).toBe(201);
    expectScimError(
      await api.create(userBody({ externalId: first.externalId })),
      409,
      'uniqueness',
      String(first.externalId),
    );
    expectScimError(await api.create(userBody({ userName: String(first.userName).toUpperCase() })), 409, 'uniqueness');
    expect((await api.create(userBody({ externalId: String(first.externalId).toLowerCase() }))).status).toBe(201);
  });

  it('a create is one store write and no query; a 409 names the attribute another User holds', async () => {
    const first = userBody();
    expect((await api.create(first)).status).toBe(201);
    const before = storeCounters();
    expect((await api.create(userBody())).status).toBe(201);
    const cost = diffCounters(storeCounters(), before);
    expect({ queries: cost.queries, writes: cost.writes, identityWrites: cost.identityWrites }).toEqual({
      queries: 0,
      writes: 1,
      identityWrites: 1,
    });
    const byExternalId = await api.create(userBody({ externalId: first.externalId }));
    expectScimError(byExternalId, 409, 'uniqueness', String(first.externalId));
    expect(byExternalId.body.detail).toMatch(/same externalId$/);
    const byUserName = await api.create(userBody({ userName: String(first.userName).toUpperCase() }));
    expectScimError(byUserName, 409, 'uniqueness', String(first.userName));
    expect(byUserName.body.detail).toMatch(/same userName$/);
  });

  it('exactly one of 20 parallel identical POSTs wins; the rest get 409', async () => {
    const body = userBody();
    const results = await Promise.all(Array.from({ length: 20 }, () => api.create(body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const list = await api.list(`?filter=${encodeURIComponent(`externalId eq "${String(body.externalId)}"`)}`);
    expect(list.body.totalResults).toBe(1);
  });

  it('isolates integrations: the other integration gets 404 on every verb, and may reuse the same externalId', async () => {
    const body = userBody();
    const mine = await api.create(body);
    const id = mine.body.id;
    const notFound = [
      await other.get(id),
      await other.put(id, userBody()),
      await other.patch(id, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      await other.delete(id),
    ];
    for (const r of notFound) expectScimError(r, 404, undefined, id);
    expect((await other.create(body)).status).toBe(201);
    const unknown = await api.get('00000000-0000-7000-8000-000000000000');
    expect(unknown.text.replace(/correlation id \S+/, '')).toBe(notFound[0]!.text.replace(/correlation id \S+/, ''));
    expect((await api.get(id)).status).toBe(200);
  });

  it('honours attributes and excludedAttributes', async () => {
    const created = (await api.create(userBody({}, { personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] })))
      .body;
    const only = await api.get(created.id, '?attributes=userName,name.familyName');
    expect(Object.keys(only.body).sort()).toEqual(['id', 'name', 'schemas', 'userName']);
    expect(only.body.name).toEqual({ familyName: 'Berg' });
    const without = await api.get(
      created.id,
      `?excludedAttributes=${encodeURIComponent(`${EXT}:personalNumbers`)},meta`,
    );
    expect(without.body.meta).toBeUndefined();
    expect(without.body[EXT]).not.toHaveProperty('personalNumbers');
    expect(without.body[EXT]).toHaveProperty('affiliationType');
  });

  it('PUT replaces: attributes not sent are cleared, read-only ones ignored, version moves', async () => {
    const created = (
      await api.create(
        userBody({}, { personalEmail: 'p@private.example', personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] }),
      )
    ).body;
    const replacement = userBody(
      { externalId: created.externalId, userName: created.userName, id: 'ignored', meta: { version: 'W/"99"' } },
      { affiliationType: 'other', directoryLinkStatus: 'linked' },
    );
    const res = await api.put(created.id, replacement);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(created.id);
    expect(res.headers.get('etag')).toBe('W/"2"');
    expect(res.body[EXT]).toEqual({ affiliationType: 'other', directoryLinkStatus: 'notAsserted' });
    const same = await api.put(created.id, replacement);
    expect(same.headers.get('etag')).toBe('W/"2"');
    expect(same.body.meta.lastModified).toBe(res.body.meta.lastModified);
    // The User now has a history of two changes: no SCIM answer carries it, not even when asked for by name.
    const got = await api.get(created.id);
    const listed = await api.list(`?filter=${encodeURIComponent(`externalId eq "${created.externalId}"`)}`);
    const asked = await api.get(created.id, '?attributes=history,historyOmitted');
    expect(listed.body.Resources).toHaveLength(1);
    for (const answer of [res, same, got, listed, asked]) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toMatch(/history/i);
    }
  });

  it('PUT to a userName of another User is 409; If-Match mismatch is 412, the current tag and * pass', async () => {
    const a = (await api.create(userBody())).body;
    const b = (await api.create(userBody())).body;
    expectScimError(
      await api.put(b.id, userBody({ externalId: b.externalId, userName: a.userName })),
      409,
      'uniqueness',
    );
    expectScimError(
      await api.put(b.id, userBody({ externalId: b.externalId, userName: b.userName }), { 'if-match': 'W/"7"' }),
      412,
      undefined,
    );
    const ok = await api.put(b.id, userBody({ externalId: b.externalId, userName: b.userName, active: false }), {
      'if-match': 'W/"1"',
    });
    expect(ok.status).toBe(200);
    expect(
      (await api.put(b.id, userBody({ externalId: b.externalId, userName: b.userName }), { 'if-match': '*' })).status,
    ).toBe(200);
  });

  it('DELETE answers 204 without body; the User is gone and can be created again with a new id', async () => {
    const body = userBody();
    const created = (await api.create(body)).body;
    expectScimError(await api.delete(created.id, { 'if-match': 'W/"5"' }), 412, undefined);
    const del = await api.delete(created.id);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectScimError(await api.get(created.id), 404, undefined);
    expectScimError(await api.delete(created.id), 404, undefined);
    const again = await api.create(body);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.id);
  });

  it('an inactive User can be created, and reactivated', async () => {
    const created = (await api.create(userBody({ active: false }))).body;
    expect(created.active).toBe(false);
    const back = await api.put(
      created.id,
      userBody({ externalId: created.externalId, userName: created.userName, active: true }),
    );
    expect(back.body.active).toBe(true);
  });
});

describe('retention of sensitive data of inactive identities', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { RETENTION_INACTIVE_DAYS: '0' } });
  });
  afterAll(async () => stack?.stop());

  it('the retention timer deletes personal numbers and document references of inactive Users only', async () => {
    const api = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const sensitive = {
      personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P7' }],
      personalEmail: 'kept@private.example',
    };
    const inactive = (await api.create(userBody({ active: false }, sensitive))).body;
    const active = (await api.create(userBody({}, sensitive))).body;
    expect((await call(`${stack.base}/admin/functions/retention`, { method: 'POST' })).status).toBe(202);
    await waitFor(async () => (await api.get(inactive.id)).body[EXT]?.personalNumbers === undefined);
    const after = (await api.get(inactive.id)).body;
    expect(after[EXT]).toMatchObject({ personalEmail: 'kept@private.example', affiliationType: 'employment' });
    expect(after[EXT]).not.toHaveProperty('identityDocumentReferences');
    expect(after.name).toEqual(inactive.name);
    expect((await api.get(active.id)).body[EXT]).toMatchObject({
      personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
      identityDocumentReferences: [{ documentNumber: 'P7' }],
    });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
