import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, expectScimError, scim, userBody, type ScimUser } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';

const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patchOf = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });
const q = (filter: string, extra = '') => `?filter=${encodeURIComponent(filter)}${extra}`;

describe('SCIM PATCH, list, filters, paging and entity tags', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;

  beforeAll(async () => {
    stack = await startTestStack({ env: { SCIM_RATE_LIMIT_PER_SECOND: '100000' } });
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
  });
  afterAll(async () => stack?.stop());

  describe('Microsoft Entra request shapes', () => {
    it('filter userName eq with no match → 200 with an empty list', async () => {
      const res = await api.list(q('userName eq "nobody@corp.example"'));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ totalResults: 0, Resources: [], startIndex: 1, itemsPerPage: 0 });
    });

    it('capitalised ops, no-path object with "active": "False", emails value path ignored, name.familyName', async () => {
      const user = (await api.create(userBody())).body;
      const res = await api.patch(
        user.id,
        patchOf(
          { op: 'Replace', value: { active: 'False' } },
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'anna@corp.example' },
          { op: 'Replace', path: 'name.familyName', value: 'Holm' },
          { op: 'Replace', path: 'displayName', value: 'Anna Holm' },
          { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'HR' },
        ),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ active: false, name: { givenName: 'Anna', familyName: 'Holm' } });
      expect(res.headers.get('etag')).toBe('W/"2"');
      expect(res.text).not.toContain('anna@corp.example');
    });

    it('value-path PATCH on personal numbers and documents: add creates, replace changes, remove deletes', async () => {
      const user = (await api.create(userBody())).body;
      const add = await api.patch(
        user.id,
        patchOf({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '010190-1234' }),
      );
      expect(add.body[EXT]?.personalNumbers).toEqual([{ type: 'DkCpr', value: '0101901234' }]);
      const doc = await api.patch(
        user.id,
        patchOf({
          op: 'replace',
          path: 'identityDocumentReferences[type eq "Passport" and issuingCountry eq "DK"].documentNumber',
          value: 'P1',
        }),
      );
      expect(doc.body[EXT]?.identityDocumentReferences).toEqual([
        { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' },
      ]);
      const changed = await api.patch(
        user.id,
        patchOf({
          op: 'Replace',
          path: `${EXT}:identityDocumentReferences[type eq "passport"].documentNumber`,
          value: 'P2',
        }),
      );
      expect(changed.body[EXT]?.identityDocumentReferences).toEqual([
        { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P2' },
      ]);
      const removed = await api.patch(
        user.id,
        patchOf({ op: 'remove', path: `${EXT}:personalNumbers[type eq "DkCpr"]` }),
      );
      expect(removed.body[EXT]).not.toHaveProperty('personalNumbers');
      expect(removed.headers.get('etag')).toBe('W/"5"');
    });

    it('rejects a PATCH whose result is invalid as a whole (nothing applied)', async () => {
      const user = (await api.create(userBody())).body;
      const res = await api.patch(
        user.id,
        patchOf(
          { op: 'replace', path: 'name.givenName', value: 'Changed' },
          {
            op: 'add',
            path: `${EXT}:identityDocumentReferences[type eq "Passport"].documentNumber`,
            value: 'DOC-SECRET-9',
          },
        ),
      );
      expectScimError(res, 400, 'invalidValue', 'DOC-SECRET-9');
      expect((await api.get(user.id)).body.name.givenName).toBe('Anna');
    });
  });

  describe('Okta request shapes', () => {
    it('filter=userName eq "x"&startIndex=1&count=100 finds the User case-insensitively', async () => {
      const user = (await api.create(userBody())).body;
      const res = await api.list(q(`userName eq "${user.userName.toUpperCase()}"`, '&startIndex=1&count=100'));
      expect(res.body.totalResults).toBe(1);
      expect(res.body.Resources[0]?.id).toBe(user.id);
    });

    it('PUT with active:false deactivates', async () => {
      const user = (await api.create(userBody())).body;
      const res = await api.put(
        user.id,
        userBody({ externalId: user.externalId, userName: user.userName, active: false }),
      );
      expect(res.body.active).toBe(false);
    });
  });

  describe('PATCH errors', () => {
    let user: ScimUser;
    beforeAll(async () => {
      user = (await api.create(userBody())).body;
    });

    it.each([
      [
        'a read-only attribute',
        patchOf({ op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'linked' }),
        'mutability',
      ],
      ['id', patchOf({ op: 'replace', path: 'id', value: 'x' }), 'mutability'],
      ['meta in a no-path value', patchOf({ op: 'replace', value: { meta: { version: 'W/"99"' } } }), 'mutability'],
      ['an unknown op', patchOf({ op: 'merge', path: 'active', value: true }), 'invalidSyntax'],
      ['an unknown extension attribute', patchOf({ op: 'add', path: `${EXT}:cprNumber`, value: 'x' }), 'invalidSyntax'],
      [
        'a malformed path',
        patchOf({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr".value`, value: 'x' }),
        'invalidPath',
      ],
      ['remove without path', patchOf({ op: 'remove' }), 'noTarget'],
      ['no Operations', { schemas: [PATCH] }, 'invalidSyntax'],
    ])('400 for %s', async (_what, body, scimType) => {
      expectScimError(await api.patch(user.id, body), 400, scimType);
    });

    it('400 invalidValue when a required attribute is removed', async () => {
      expectScimError(await api.patch(user.id, patchOf({ op: 'remove', path: 'userName' })), 400, 'invalidValue');
    });

    it('If-Match: 412 on mismatch; a no-op PATCH writes nothing and keeps version and lastModified', async () => {
      const current = (await api.get(user.id)).body;
      expectScimError(
        await api.patch(user.id, patchOf({ op: 'replace', path: 'active', value: false }), { 'if-match': 'W/"999"' }),
        412,
        undefined,
      );
      const same = await api.patch(
        user.id,
        patchOf({ op: 'replace', path: 'name.givenName', value: current.name.givenName }),
        { 'if-match': current.meta.version },
      );
      expect(same.status).toBe(200);
      expect(same.body.meta.version).toBe(current.meta.version);
      expect(same.body.meta.lastModified).toBe(current.meta.lastModified);
    });
  });

  it('20 concurrent PATCHes of different attributes without If-Match all survive', async () => {
    const user = (await api.create(userBody())).body;
    const countries = [
      'DK',
      'SE',
      'NO',
      'FI',
      'DE',
      'NL',
      'FR',
      'ES',
      'IT',
      'PL',
      'GB',
      'IE',
      'US',
      'CA',
      'AU',
      'NZ',
      'JP',
      'BR',
    ];
    const ops = [
      ...countries.map((c) =>
        patchOf({
          op: 'add',
          path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "${c}"].documentNumber`,
          value: `N-${c}`,
        }),
      ),
      patchOf({ op: 'replace', path: 'name.familyName', value: 'Concurrent' }),
      patchOf({ op: 'replace', path: `${EXT}:personalEmail`, value: 'c@private.example' }),
    ];
    const results = await Promise.all(ops.map((body) => api.patch(user.id, body)));
    expect(results.map((r) => r.status)).toEqual(ops.map(() => 200));
    const final = (await api.get(user.id)).body;
    expect(
      (final[EXT]?.identityDocumentReferences as Array<{ issuingCountry: string }>).map((d) => d.issuingCountry).sort(),
    ).toEqual([...countries].sort());
    expect(final.name.familyName).toBe('Concurrent');
    expect(final[EXT]?.personalEmail).toBe('c@private.example');
    expect(final.meta.version).toBe(`W/"${1 + ops.length}"`);
  });

  describe('filters', () => {
    it('eq on id and externalId (case-sensitive), and meta.lastModified ranges', async () => {
      const before = new Date(Date.now() - 1).toISOString();
      const user = (await api.create(userBody())).body;
      expect((await api.list(q(`id eq "${user.id}"`))).body.Resources.map((r) => r.id)).toEqual([user.id]);
      expect((await api.list(q(`externalId eq "${user.externalId}"`))).body.totalResults).toBe(1);
      expect((await api.list(q(`externalId eq "${user.externalId.toLowerCase()}"`))).body.totalResults).toBe(0);
      const since = await api.list(q(`meta.lastModified gt "${before}"`));
      expect(since.body.Resources.map((r) => r.id)).toContain(user.id);
      const window = await api.list(
        q(`meta.lastModified ge "${before}" and meta.lastModified le "${user.meta.lastModified}"`),
      );
      expect(window.body.Resources.map((r) => r.id)).toContain(user.id);
      expect(
        (await api.list(q(`meta.lastModified gt "${user.meta.lastModified}"`))).body.Resources.map((r) => r.id),
      ).not.toContain(user.id);
    });

    it.each([
      ['displayName eq "x"'],
      ['userName co "secret-value"'],
      ['userName eq "a" or userName eq "b"'],
      [`${EXT}:personalNumbers[value eq "0101901234"]`],
      ['personalNumbers.value eq "0101901234"'],
      ['identityDocumentReferences.documentNumber eq "P-SECRET"'],
      ['userName eq "unterminated-secret'],
    ])('400 invalidFilter for %s, without echoing the value', async (filter) => {
      const res = await api.list(q(filter));
      expectScimError(res, 400, 'invalidFilter', 'secret-value', '0101901234', 'P-SECRET', 'unterminated-secret');
    });
  });

  describe('paging', () => {
    const seen: string[] = [];
    let stableIds: string[] = [];
    let pager: ReturnType<typeof scim>;

    beforeAll(async () => {
      // A fresh integration, so the set is exactly what this test creates.
      pager = scim(stack, await stack.token(DEV_CLIENTS.scim2));
      const created: string[] = [];
      // 25 at a time: an integration has at most 32 requests in flight (MAX_REQUESTS_IN_FLIGHT).
      for (let i = 0; i < 1000; i += 25) {
        const batch = await Promise.all(Array.from({ length: 25 }, () => pager.create(userBody())));
        created.push(...batch.map((r) => r.body.id));
      }
      stableIds = created;
    });

    it('count=0 returns only totalResults; count is capped at 100; startIndex < 1 is 1', async () => {
      const zero = await pager.list('?count=0');
      expect(zero.body).toMatchObject({ totalResults: 1000, Resources: [], itemsPerPage: 0 });
      const capped = await pager.list('?count=500&startIndex=0');
      expect(capped.body.itemsPerPage).toBe(100);
      expect(capped.body.startIndex).toBe(1);
      const past = await pager.list('?startIndex=5000');
      expect(past.body.Resources).toEqual([]);
    });

    it('pages 1..end while other Users are created and deleted: no stable User is missed or repeated', async () => {
      let churn = true;
      const churner = (async () => {
        while (churn) {
          const created = await pager.create(userBody());
          await pager.delete(created.body.id);
          await pager.create(userBody());
        }
      })();
      let startIndex = 1;
      for (;;) {
        const page = await pager.list(`?startIndex=${startIndex}&count=37`);
        expect(page.status).toBe(200);
        seen.push(...page.body.Resources.map((r) => r.id));
        if (page.body.Resources.length < 37) break;
        startIndex += 37;
      }
      churn = false;
      await churner;
      const stable = new Set(stableIds);
      const seenStable = seen.filter((id) => stable.has(id));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seenStable.length).toBe(stableIds.length);
    });
  });

  it('429 with Retry-After when an integration exceeds its request budget', async () => {
    const limited = await startTestStack({ env: { SCIM_RATE_LIMIT_PER_SECOND: '2' } });
    try {
      const token = await limited.token(DEV_CLIENTS.scim);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => call(`${limited.base}/scim/v2/Users?count=0`, { token })),
      );
      const throttled = results.filter((r) => r.status === 429);
      expect(throttled.length).toBeGreaterThan(0);
      expect(Number(throttled[0]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // §7.1 lists no scimType for 429 (RFC 7644's tooMany is a 400 type).
      expectScimError(throttled[0]!, 429, undefined);
    } finally {
      await limited.stop();
    }
  });
});
