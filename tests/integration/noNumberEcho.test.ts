/**
 * No number in output: personal numbers, written every way a caller might (0101904321, 010190-4321,
 * 010190.4321, 010190_4321, 01 01 90 43 21, …), sent through every request-level error path of SCIM and
 * GraphQL (malformed JSON, parameters, headers and the correlation id, filters, paths and ids, tokens),
 * never come back in an answer (body or header) nor reach a log line. Every path is swept with fixed numbers,
 * then fast-check sends random numbers and forms (fixed seed; NUMBER_FUZZ_RUNS raises the count).
 */
import fc from 'fast-check';
import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI } from '../../devhost/devData';

const RUNS = Number(process.env.NUMBER_FUZZ_RUNS ?? 120);
const SEED = 20261127;

/** How a number is written: the digits, then joined in the ways people and systems write CPR numbers. */
const FORMS: Array<(d: string) => string> = [
  (d) => d,
  (d) => `${d.slice(0, 6)}-${d.slice(6)}`,
  (d) => `${d.slice(0, 6)}.${d.slice(6)}`,
  (d) => `${d.slice(0, 6)}_${d.slice(6)}`,
  (d) => `${d.slice(0, 2)} ${d.slice(2, 4)} ${d.slice(4, 6)} ${d.slice(6)}`,
  (d) => `${d.slice(0, 2)}.${d.slice(2, 4)}.${d.slice(4, 6)}-${d.slice(6)}`,
  (d) => `${d.slice(0, 6)}:${d.slice(6)}`,
];

/** Six digits of the number in a row, whatever (but a letter) separates them. */
function digitRuns(digits: string): RegExp {
  const windows = Array.from({ length: digits.length - 5 }, (_, i) => digits.slice(i, i + 6));
  return new RegExp(windows.map((w) => w.split('').join('[^A-Za-z0-9]*')).join('|'));
}

/** The text without what is the service's own and carries digits by nature: timestamps and UUIDs. */
function withoutOwnDigits(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, 'TIME')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, 'UUID');
}

type Send = (n: string, digits: string) => Promise<{ status: number; headers: Headers; text: string }>;

describe('no number in output: personal numbers through every request-level error path', () => {
  let stack: TestStack;
  let scimToken: string;
  let admin: string;
  let consoleUser: string;
  let victim: string;
  const base = () => stack.base;
  const scimCall = (path: string, init: RequestInit & { token?: string } = {}) =>
    call(`${base()}/scim/v2${path}`, { token: scimToken, ...init });
  const scimJson = (path: string, method: string, body: string, headers: Record<string, string> = {}) =>
    scimCall(path, { method, headers: { 'content-type': 'application/scim+json', ...headers }, body });
  const gqlPost = (body: string, headers: Record<string, string> = {}, token = admin) =>
    call(`${base()}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const gqlGet = (query: string, token = admin) => call(`${base()}/graphql?${query}`, { token });
  const q = encodeURIComponent;

  /** Every request-level error path, each given the number as written (n) and its digits. */
  const PATHS: Array<[string, Send]> = [
    // SCIM: paths and ids
    ['SCIM GET /Users/{n}', (n) => scimCall(`/Users/${q(n)}`)],
    ['SCIM DELETE /Users/{n}', (n) => scimCall(`/Users/${q(n)}`, { method: 'DELETE' })],
    ['SCIM PATCH /Users/{n}', (n) => scimJson(`/Users/${q(n)}`, 'PATCH', '{}')],
    ['SCIM GET /scim/v2/{n}', (n) => scimCall(`/${q(n)}`)],
    ['SCIM GET /Users/x/{n}', (n) => scimCall(`/Users/x/${q(n)}`)],
    ['SCIM GET /Schemas/{n}', (n) => scimCall(`/Schemas/${q(n)}`)],
    ['SCIM GET /ResourceTypes/{n}', (n) => scimCall(`/ResourceTypes/${q(n)}`)],
    // SCIM: filters
    ['SCIM filter with an unquoted value', (n) => scimCall(`/Users?filter=${q(`userName eq ${n}`)}`)],
    ['SCIM filter with the number as attribute', (n) => scimCall(`/Users?filter=${q(`${n} eq "x"`)}`)],
    ['SCIM filter with or', (n) => scimCall(`/Users?filter=${q(`userName eq "x" or externalId eq "${n}"`)}`)],
    ['SCIM filter on personalNumbers', (n) => scimCall(`/Users?filter=${q(`${EXT}:personalNumbers.value eq "${n}"`)}`)],
    ['SCIM value-path filter', (n) => scimCall(`/Users?filter=${q(`emails[value eq "${n}"]`)}`)],
    ['SCIM filter with a bad timestamp', (n) => scimCall(`/Users?filter=${q(`meta.lastModified gt "${n}"`)}`)],
    ['SCIM filter with a bad escape', (n) => scimCall(`/Users?filter=${q(`userName eq "${n}\\q"`)}`)],
    ['SCIM filter cut off', (n) => scimCall(`/Users?filter=${q(`userName eq "${n}`)}`)],
    // SCIM: query parameters
    // A valid startIndex is answered as sent (RFC 7644 §3.4.2.4: the list's startIndex), like any page
    // position; what is not a whole number is the error path.
    ['SCIM startIndex and count', (n) => scimCall(`/Users?startIndex=${q(`${n}x`)}&count=${q(n)}`)],
    ['SCIM attributes', (n) => scimCall(`/Users?attributes=${q(n)}&excludedAttributes=${q(n)}`)],
    ['SCIM sortBy', (n) => scimCall(`/Users?sortBy=${q(n)}&sortOrder=${q(n)}`)],
    ['SCIM cursor', (n) => scimCall(`/Users?cursor=${q(n)}`)],
    // SCIM: headers
    ['SCIM correlation id', (n) => scimCall('/Users?count=1', { headers: { 'x-correlation-id': n } })],
    ['SCIM client request id', (n) => scimCall('/Users?count=1', { headers: { 'x-ms-client-request-id': n } })],
    ['SCIM bearer token', (n) => call(`${base()}/scim/v2/Users`, { headers: { authorization: `Bearer ${n}` } })],
    [
      'SCIM token-shaped bearer',
      (n, d) => call(`${base()}/scim/v2/Users`, { headers: { authorization: `Bearer eyJ${d}.${d}.${n}` } }),
    ],
    [
      'SCIM If-Match',
      (n) =>
        scimJson(
          `/Users/${victim}`,
          'PATCH',
          '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[]}',
          { 'if-match': `W/"${n}"` },
        ),
    ],
    [
      'SCIM If-Match on DELETE',
      (n) => scimCall(`/Users/${victim}`, { method: 'DELETE', headers: { 'if-match': `"${n}"` } }),
    ],
    ['SCIM content type', (n) => scimJson('/Users', 'POST', '{}', { 'content-type': `application/${n}` })],
    // SCIM: bodies
    [
      'SCIM body that is not JSON',
      (n, d) => scimJson('/Users', 'POST', `{"userName": ${d.startsWith('0') ? d : `0${d}`}, "x": "${n}"`),
    ],
    ['SCIM body cut off in a string', (n) => scimJson('/Users', 'POST', `{"userName": "${n}`)],
    [
      'SCIM body with a made-up schema',
      (n) => scimJson('/Users', 'POST', JSON.stringify(userBody({ schemas: [`urn:${n}`] }))),
    ],
    [
      'SCIM body with a key that is the number',
      (n) => scimJson('/Users', 'POST', JSON.stringify(userBody({ [n]: n }))),
    ],
    [
      'SCIM body with a bad personal number',
      (n) =>
        scimJson(
          '/Users',
          'POST',
          JSON.stringify(userBody({}, { personalNumbers: [{ type: 'DkCpr', value: `${n}x` }] })),
        ),
    ],
    [
      'SCIM body with a bad birth date',
      (n) => scimJson('/Users', 'POST', JSON.stringify(userBody({}, { birthDate: n }))),
    ],
    [
      'SCIM body with a number as name',
      (n, d) => scimJson('/Users', 'POST', JSON.stringify(userBody({ userName: Number(d), name: { givenName: n } }))),
    ],
    [
      'SCIM PUT with a bad body',
      (n) => scimJson(`/Users/${victim}`, 'PUT', JSON.stringify({ schemas: [n], userName: [n] })),
    ],
    [
      'SCIM PATCH with a made-up op and path',
      (n) =>
        scimJson(
          `/Users/${victim}`,
          'PATCH',
          JSON.stringify({
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: n, path: n, value: n }],
          }),
        ),
    ],
    [
      'SCIM PATCH with a value-path filter',
      (n) =>
        scimJson(
          `/Users/${victim}`,
          'PATCH',
          JSON.stringify({
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'replace', path: `${EXT}:personalNumbers[type eq "${n}"].value`, value: n }],
          }),
        ),
    ],
    [
      'SCIM PATCH of a read-only attribute',
      (n) =>
        scimJson(
          `/Users/${victim}`,
          'PATCH',
          JSON.stringify({
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'replace', path: 'id', value: n }],
          }),
        ),
    ],
    // GraphQL: the request itself
    ['GraphQL a parameter named with the number', (n) => gqlPost(JSON.stringify({ [n]: 1 }))],
    ['GraphQL a body that is not JSON', (n, d) => gqlPost(`{"query": ${d.startsWith('0') ? d : `0${d}`}, "v": "${n}"`)],
    ['GraphQL a body that is a string', (n) => gqlPost(JSON.stringify(n))],
    [
      'GraphQL variables that are a string',
      (n) => gqlPost(JSON.stringify({ query: '{ sources { name } }', variables: n })),
    ],
    ['GraphQL a query that is a number', (_n, d) => gqlPost(`{"query": ${Number(d)}}`)],
    ['GraphQL an operation name', (n) => gqlPost(JSON.stringify({ query: '{ sources { name } }', operationName: n }))],
    [
      'GraphQL GET with malformed variables',
      (n) => gqlGet(`query=${q('{ sources { name } }')}&variables=${q(`{"a": ${n}`)}`),
    ],
    ['GraphQL GET with malformed extensions', (n) => gqlGet(`query=${q('{ sources { name } }')}&extensions=${q(n)}`)],
    [
      'GraphQL GET with a parameter named with the number',
      (n) => gqlGet(`query=${q('{ sources { name } }')}&${q(n)}=1`),
    ],
    ['GraphQL a media type', (n) => gqlPost('{}', { 'content-type': `application/${n}` })],
    [
      'GraphQL an accept header',
      (n) => gqlPost(JSON.stringify({ query: '{ sources { name } }' }), { accept: `application/${n}` }),
    ],
    [
      'GraphQL a form body',
      (n) =>
        gqlPost(`query=${q('{ sources { name } }')}&variables=${q(n)}`, {
          'content-type': 'application/x-www-form-urlencoded',
        }),
    ],
    // GraphQL: headers
    [
      'GraphQL correlation id',
      (n) => gqlPost(JSON.stringify({ query: '{ sources { name } }' }), { 'x-correlation-id': n }),
    ],
    [
      'GraphQL bearer token',
      (n) =>
        call(`${base()}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${n}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ x${n} }` }),
        }),
    ],
    [
      'GraphQL two Authorization headers',
      (n) =>
        call(`${base()}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${n}, Bearer ${n}` },
          body: '{}',
        }),
    ],
    // GraphQL: the document and its variables
    ['GraphQL a made-up field', (_n, d) => gqlPost(JSON.stringify({ query: `{ x${d} }` }))],
    ['GraphQL a made-up fragment', (_n, d) => gqlPost(JSON.stringify({ query: `{ ...F_${d} }` }))],
    ['GraphQL a syntax error', (n) => gqlPost(JSON.stringify({ query: `{ sources(x: "${n}) { name } }` }))],
    [
      'GraphQL a literal of the wrong type',
      (n) => gqlPost(JSON.stringify({ query: `{ businessIdentities(source: "HR", first: "${n}") { nodes { id } } }` })),
    ],
    [
      'GraphQL a variable of the wrong type',
      (n) =>
        gqlPost(
          JSON.stringify({
            query: 'query($f: Int) { businessIdentities(source: "HR", first: $f) { nodes { id } } }',
            variables: { f: n },
          }),
        ),
    ],
    [
      'GraphQL an enum variable that does not exist',
      (n) =>
        gqlPost(
          JSON.stringify({
            query:
              'query($s: DirectoryLinkStatus) { businessIdentities(source: "HR", filter: { linkStatus: $s }) { nodes { id } } }',
            variables: { s: n },
          }),
        ),
    ],
    [
      'GraphQL an unknown source and id',
      (n) =>
        gqlPost(
          JSON.stringify({
            query: 'query($s: String!, $i: ID!) { businessIdentity(source: $s, id: $i) { id } }',
            variables: { s: n, i: n },
          }),
        ),
    ],
    [
      'GraphQL a link to an unknown identity',
      (n) =>
        gqlPost(
          JSON.stringify({
            query:
              'mutation($i: LinkBusinessIdentityInput!) { linkBusinessIdentity(input: $i) { businessIdentity { id } } }',
            variables: { i: { source: 'Manual', id: n, userPrincipalName: n } },
          }),
        ),
    ],
    [
      'GraphQL an import with a bad personal number',
      (n) =>
        gqlPost(
          JSON.stringify({
            query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
            variables: {
              i: {
                source: 'Fuzz',
                identities: [
                  {
                    externalId: 'F1',
                    affiliationType: 'OTHER',
                    firstName: 'F',
                    lastName: 'L',
                    personalNumbers: [{ type: 'DK_CPR', value: `${n}x` }],
                  },
                ],
              },
            },
          }),
        ),
    ],
    [
      'GraphQL an import by a console user',
      (n) =>
        gqlPost(
          JSON.stringify({
            query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
            variables: {
              i: {
                source: n,
                identities: [
                  {
                    externalId: n,
                    affiliationType: 'OTHER',
                    firstName: n,
                    lastName: 'L',
                    personalNumbers: [{ type: 'DK_CPR', value: n }],
                  },
                ],
              },
            },
          }),
          {},
          consoleUser,
        ),
    ],
  ];

  /** Sends, and checks the answer (body and headers but the date) and the new log lines for the number. */
  const check = async (name: string, send: Send, digits: string, form: (d: string) => string) => {
    const n = form(digits);
    const before = stack.logs.length;
    const res = await send(n, digits);
    const headers = [...res.headers].filter(([k]) => k !== 'date').map(([k, v]) => `${k}: ${v}`);
    const answer = withoutOwnDigits(`${headers.join('\n')}\n${res.text}`);
    const logs = withoutOwnDigits(stack.logs.slice(before).join('\n'));
    const runs = digitRuns(digits);
    // A malformed request is the caller's error, never the service's.
    let codes: unknown[] = [];
    try {
      codes = ((JSON.parse(res.text) as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors ?? []).map(
        (e) => e.extensions?.code,
      );
    } catch {
      codes = [];
    }
    expect({ path: name, sent: n, codes }).not.toEqual({
      path: name,
      sent: n,
      codes: expect.arrayContaining(['INTERNAL_SERVER_ERROR']),
    });
    expect({ path: name, sent: n, status: res.status < 500, answer: runs.exec(answer)?.[0] ?? null }).toEqual({
      path: name,
      sent: n,
      status: true,
      answer: null,
    });
    expect({ path: name, sent: n, logged: runs.exec(logs)?.[0] ?? null }).toEqual({
      path: name,
      sent: n,
      logged: null,
    });
  };

  beforeAll(async () => {
    stack = await startTestStack({
      env: { SCIM_RATE_LIMIT_PER_SECOND: '100000', GRAPHQL_REQUESTS_PER_MINUTE: '100000' },
    });
    scimToken = await stack.token(DEV_CLIENTS.scim);
    admin = await stack.token(DEV_CLIENTS.admin);
    consoleUser = stack.idp.mintUserToken({
      tenantId: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      scp: 'Console.Admin',
      roles: ['Admin'],
    });
    victim = (await scim(stack, scimToken).create(userBody())).body.id;
  });
  afterAll(async () => stack?.stop());

  it.each(PATHS)('%s: with 010190-4321 written every way', async (name, send) => {
    for (const form of FORMS) await check(name, send, '0101904321', form);
  });

  it('random personal numbers, written any way, through random paths', async () => {
    const cpr = fc
      .tuple(
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 9999 }),
      )
      .map(([d, m, y, s]) => [d, m, y].map((v) => String(v).padStart(2, '0')).join('') + String(s).padStart(4, '0'));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: PATHS.length - 1 }),
        cpr,
        fc.nat({ max: FORMS.length - 1 }),
        async (path, digits, form) => {
          const [name, send] = PATHS[path]!;
          await check(name, send, digits, FORMS[form]!);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it('serves a filter whose value merely contains a sensitive attribute name, and still refuses a filter on one', async () => {
    const fan = scim(stack, scimToken);
    const created = await fan.create(userBody({ userName: 'personalNumbers-fan' }));
    expect(created.status).toBe(201);
    const found = await fan.list(`?filter=${q('userName eq "personalNumbers-fan"')}`);
    expect(found.status).toBe(200);
    expect(found.body.Resources.map((u) => u.id)).toEqual([created.body.id]);
    for (const filter of [
      'personalNumbers pr',
      `${EXT}:PersonalNumbers.value eq "x"`,
      'identityDocumentReferences[type eq "Passport"]',
    ]) {
      const refused = await fan.list(`?filter=${q(filter)}`);
      expect({
        filter,
        status: refused.status,
        detail: (refused.body as unknown as { detail?: string }).detail,
      }).toEqual({
        filter,
        status: 400,
        detail: expect.stringMatching(/cannot be filtered/),
      });
    }
  });
});
