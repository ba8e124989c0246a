/**
 * Hostile-input properties over real HTTP: whatever arrives, the answer is never 5xx, errors use
 * the documented schema, sensitive values sent in a rejected request are not echoed, and a rejected
 * request leaves the stored User unchanged. Fixed seed; FUZZ_RUNS raises the number of runs.
 */
import fc from 'fast-check';
import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody, type ScimUser } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const settings = { numRuns: RUNS, seed: SEED, endOnFailure: true };

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const sensitiveValue = fc.stringMatching(/^[A-Za-z0-9-]{8,14}$/);
const anyJson = fc.jsonValue({ maxDepth: 4 });
const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'userName',
  'USERNAME',
  'name',
  'active',
  EXT,
  `${EXT}:affiliationType`,
  'schemas',
  'id',
  'meta',
  'emails',
);
const attrName = fc.constantFrom(
  'affiliationType',
  'birthDate',
  'nationality',
  'personalEmail',
  'personalPhone',
  'personalNumbers',
  'identityDocumentReferences',
  'directoryUserPrincipalName',
  'directoryLinkStatus',
  'unknownAttr',
);

function expectWellFormed(status: number, body: unknown, text: string, secrets: string[]): void {
  expect(status).toBeLessThan(500);
  if (status >= 400) {
    expect((body as { schemas?: string[] })?.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    for (const s of secrets) if (s.length >= 8) expect(text).not.toContain(s);
  }
}

describe('hostile input (fuzz)', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;
  let token: string;
  let victim: ScimUser;

  beforeAll(async () => {
    stack = await startTestStack({ env: { SCIM_RATE_LIMIT_PER_SECOND: '100000' } });
    token = await stack.token(DEV_CLIENTS.scim);
    api = scim(stack, token);
    victim = (await api.create(userBody({}, { personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] }))).body;
  });
  afterAll(async () => stack?.stop());

  it('POST /Users with mutated bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          key: hostileKey,
          value: anyJson,
          attr: attrName,
          attrValue: anyJson,
          cpr: sensitiveValue,
          doc: sensitiveValue,
        }),
        async ({ key, value, attr, attrValue, cpr, doc }) => {
          const body = userBody(
            { [key]: value },
            {
              [attr]: attrValue,
              personalNumbers: [{ type: 'DkCpr', value: cpr }],
              identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: doc }],
            },
          );
          const res = await api.create(JSON.parse(JSON.stringify(body)));
          expectWellFormed(res.status, res.body, res.text, res.status >= 400 ? [cpr, doc] : []);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      settings,
    );
  });

  it('PATCH with random operations: never 5xx, and a rejected PATCH changes nothing', async () => {
    const op = fc.record({
      op: fc.constantFrom('add', 'replace', 'remove', 'Replace', 'merge', ''),
      path: fc.option(
        fc.oneof(
          fc.constantFrom(
            'active',
            'name.givenName',
            'userName',
            `${EXT}:personalNumbers[type eq "DkCpr"].value`,
            'emails[type eq "work"].value',
            'meta.version',
            `${EXT}:`,
            '[',
            'name[',
            `${EXT}:identityDocumentReferences[type eq "Passport"]`,
          ),
          fc.string({ maxLength: 40 }),
        ),
        { nil: undefined },
      ),
      value: anyJson,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 0, maxLength: 4 }), async (ops) => {
        const before = (await api.get(victim.id)).body;
        const res = await api.patch(victim.id, { schemas: [PATCH_SCHEMA], Operations: ops });
        expectWellFormed(res.status, res.body, res.text, []);
        if (res.status >= 400) expect((await api.get(victim.id)).body).toEqual(before);
      }),
      settings,
    );
  });

  it('filters and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 40 }),
        async (filter, startIndex, count, attributes) => {
          const qs = new URLSearchParams({ filter, startIndex, count, attributes }).toString();
          const res = await call(`${stack.base}/scim/v2/Users?${qs}`, { token });
          expectWellFormed(res.status, res.body, res.text, filter.length >= 8 ? [filter] : []);
        },
      ),
      settings,
    );
  });

  it('raw bodies: wrong content types, invalid UTF-8, deep JSON, huge strings', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const cases: Array<[string, string | Blob]> = [
      ['application/scim+json', new Blob([new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])])],
      ['application/scim+json', deep],
      ['application/scim+json', JSON.stringify(userBody({ userName: 'x'.repeat(900_000) }))],
      ['application/scim+json', 'x'.repeat(2_000_000)],
      ['text/plain', '{}'],
      ['application/scim+json', ''],
      ['application/scim+json', 'null'],
      ['application/json; charset=utf-8', '{"__proto__": {"polluted": true}}'],
    ];
    for (const [contentType, body] of cases) {
      const res = await call(`${stack.base}/scim/v2/Users`, {
        method: 'POST',
        token,
        headers: { 'content-type': contentType },
        body,
      });
      expectWellFormed(res.status, res.body, res.text, []);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    const tooBig = await call(`${stack.base}/scim/v2/Users`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/scim+json' },
      body: 'x'.repeat(2_000_000),
    });
    expect(tooBig.status).toBe(413);
  });

  it('GraphQL import inputs: HTTP 200, coded errors, no value echoed', async () => {
    const admin = await stack.token(DEV_CLIENTS.admin);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            externalId: fc.string({ maxLength: 10 }),
            firstName: fc.string({ maxLength: 5 }),
            cpr: sensitiveValue,
            country: fc.string({ maxLength: 3 }),
            birthDate: fc.string({ maxLength: 12 }),
          }),
          { maxLength: 5 },
        ),
        async (rows) => {
          const identities = rows.map((r) => ({
            externalId: r.externalId,
            affiliationType: 'OTHER',
            firstName: r.firstName,
            lastName: 'L',
            nationality: r.country,
            birthDate: r.birthDate,
            personalNumbers: [{ type: 'DK_CPR', value: r.cpr }],
          }));
          const res = await call<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${stack.base}/graphql`, {
            method: 'POST',
            token: admin,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
              variables: { i: { source: 'Fuzz', identities } },
            }),
          });
          expect(res.status).toBe(200);
          if (res.body.errors) {
            expect(res.body.errors.every((e) => typeof e.extensions?.code === 'string')).toBe(true);
            for (const r of rows) expect(res.text).not.toContain(r.cpr);
          }
        },
      ),
      { ...settings, numRuns: Math.max(10, Math.floor(RUNS / 3)) },
    );
  });
});
