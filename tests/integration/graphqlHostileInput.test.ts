import { startTestStack, call, leaksIn, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';

type GqlError = { message: string; locations?: unknown; extensions?: Record<string, unknown> & { code?: string } };
type Gql = { data?: Record<string, unknown> | null; errors?: GqlError[] };

// Values a caller might send that must never come back or reach a log line.
const CPR = '0101901234';
const PASSPORT = 'P1234567';
const SECRETS = [CPR, PASSPORT, 'N-XQ'];
/** A personal number the service has never stored, sent where the request itself is malformed. */
const ODD_CPR = '0101904321';
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/** A large document of repeated fields (the shape of the reported memory exhaustion), different per call. */
function largeDocument(bytes: number, salt: number): string {
  const field = `scimIntegrations { id displayName clientId enabled scimEndpoint } `;
  return `query Q${salt} { ${field.repeat(Math.ceil(bytes / field.length))} }`;
}

describe('GraphQL: authenticate before spending, answer HTTP 200, echo nothing', () => {
  let stack: TestStack;
  let admin: string;
  const post = (
    body: string,
    init: { token?: string; accept?: string; contentType?: string; headers?: Record<string, string> } = {},
  ) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: init.token,
      headers: {
        'content-type': init.contentType ?? 'application/json',
        ...(init.accept ? { accept: init.accept } : {}),
        ...init.headers,
      },
      body,
    });
  const gql = (token: string | undefined, query: string, variables?: unknown, accept?: string) =>
    post(JSON.stringify({ query, variables }), { token, accept });
  const codes = (res: { body: Gql }) => res.body.errors?.map((e) => e.extensions?.code);
  const expectNoEcho = (text: string) => {
    for (const s of SECRETS) expect(text).not.toContain(s);
    expect(text).not.toMatch(/010190.?4321|0101904321/);
    expect(text).not.toContain('originalError');
    expect(text).not.toMatch(/Did you mean/);
  };

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  describe('without an administrator token nothing is parsed', () => {
    it.each([
      ['a large document', () => JSON.stringify({ query: largeDocument(3_000_000, 1) })],
      ['a syntax error', () => JSON.stringify({ query: `{ scimIntegrations { id ${CPR} ` })],
      [
        'variables that do not coerce',
        () =>
          JSON.stringify({
            query: 'query($f: Int) { businessIdentities(source: "x", first: $f) { nodes { id } } }',
            variables: { f: CPR },
          }),
      ],
      [
        'invalid JSON',
        () => `{"query": "{ scimIntegrations { id } }", "variables": {"cpr": "${CPR}", "passport": "${PASSPORT}"},}`,
      ],
      ['a field that does not exist', () => JSON.stringify({ query: '{ scimIntegratio { id } }' })],
    ])('%s without a token gets AUTH_NOT_AUTHENTICATED with HTTP 200', async (_what, body) => {
      for (const accept of [undefined, GRAPHQL_RESPONSE_JSON]) {
        const res = await post(body(), { accept });
        expect(res.status).toBe(200);
        expect(codes(res)).toEqual(['AUTH_NOT_AUTHENTICATED']);
        expect(res.body.data).toBeNull();
        expectNoEcho(res.text);
      }
    });

    it('a token without the Admin role gets AUTH_NOT_AUTHORIZED before its large document is parsed', async () => {
      const res = await post(JSON.stringify({ query: largeDocument(3_000_000, 2) }), {
        token: await stack.token(DEV_CLIENTS.scim),
      });
      expect(res.status).toBe(200);
      expect(codes(res)).toEqual(['AUTH_NOT_AUTHORIZED']);
    });

    it('a body of invalid UTF-8 without a token is AUTH_NOT_AUTHENTICATED', async () => {
      const res = await call<Gql>(`${stack.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
      });
      expect(res.status).toBe(200);
      expect(codes(res)).toEqual(['AUTH_NOT_AUTHENTICATED']);
    });
  });

  describe('an administrator gets HTTP 200 and no echo for every failure', () => {
    const cases: Array<[string, () => Promise<Awaited<ReturnType<typeof post>>>, string]> = [
      [
        'invalid JSON (a trailing comma)',
        () =>
          post(`{"query": "{ scimIntegrations { id } }", "variables": {"cpr": "${CPR}", "passport": "${PASSPORT}"},}`, {
            token: admin,
          }),
        'BAD_REQUEST',
      ],
      [
        'invalid JSON (graphql-response+json)',
        () => post(`{"query": "${CPR}`, { token: admin, accept: GRAPHQL_RESPONSE_JSON }),
        'BAD_REQUEST',
      ],
      [
        'a body of invalid UTF-8',
        () =>
          call<Gql>(`${stack.base}/graphql`, {
            method: 'POST',
            token: admin,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
          }),
        'BAD_REQUEST',
      ],
      [
        'a body that is not JSON at all',
        () => post(`cpr=${CPR}`, { token: admin, contentType: 'text/plain' }),
        'BAD_REQUEST',
      ],
      [
        'no query',
        () => post(JSON.stringify({ variables: { cpr: CPR } }), { token: admin, accept: GRAPHQL_RESPONSE_JSON }),
        'BAD_REQUEST',
      ],
      [
        'a syntax error quoting a value',
        () => gql(admin, `{ scimIntegrations(id: "${CPR}) { id } }`, undefined, GRAPHQL_RESPONSE_JSON),
        'GRAPHQL_PARSE_FAILED',
      ],
      ['a syntax error on a number', () => gql(admin, `{ scimIntegrations { id } } ${CPR}x`), 'GRAPHQL_PARSE_FAILED'],
      [
        'an Int literal that is a string',
        () =>
          gql(
            admin,
            `{ businessIdentities(source: "HR", first: "${CPR}") { nodes { id } } }`,
            undefined,
            GRAPHQL_RESPONSE_JSON,
          ),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a String literal that is an Int',
        () => gql(admin, `{ businessIdentities(source: ${CPR.slice(1)}) { nodes { id } } }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'an enum literal that does not exist',
        () => gql(admin, `{ businessIdentities(source: "HR", filter: { linkStatus: N_XQ_${CPR} }) { nodes { id } } }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'an input object with an unknown field',
        () =>
          gql(admin, `{ businessIdentities(source: "HR", filter: { externalIdd: "${PASSPORT}" }) { nodes { id } } }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a misspelled field (no suggestion)',
        () => gql(admin, '{ scimIntegratio { id } }', undefined, GRAPHQL_RESPONSE_JSON),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a misspelled argument (no suggestion)',
        () => gql(admin, '{ businessIdentities(sourc: "HR") { nodes { id } } }'),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'an enum variable that does not exist',
        () =>
          gql(
            admin,
            'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
            {
              i: {
                source: 'HR',
                identities: [{ externalId: 'x', affiliationType: `X${CPR}`, firstName: 'a', lastName: 'b' }],
              },
            },
          ),
        'BAD_USER_INPUT',
      ],
      [
        'an Int variable that is a string',
        () =>
          gql(
            admin,
            'query($f: Int) { businessIdentities(source: "HR", first: $f) { nodes { id } } }',
            { f: CPR },
            GRAPHQL_RESPONSE_JSON,
          ),
        'BAD_USER_INPUT',
      ],
      [
        'a String variable that is an object',
        () =>
          gql(admin, 'query($s: String!) { businessIdentities(source: $s) { nodes { id } } }', {
            s: { cpr: CPR, passport: PASSPORT },
          }),
        'BAD_USER_INPUT',
      ],
      [
        'an unexpected parameter named like a personal number',
        () => post(`{"${ODD_CPR}":1}`, { token: admin }),
        'BAD_REQUEST',
      ],
      [
        'an unexpected parameter beside the query',
        () => post(JSON.stringify({ query: '{ scimIntegrations { id } }', [`x${ODD_CPR}`]: 1 }), { token: admin }),
        'BAD_REQUEST',
      ],
      ['a body that is a JSON number', () => post(`${ODD_CPR.slice(1)}`, { token: admin }), 'BAD_REQUEST'],
      [
        'variables that are a string',
        () => post(JSON.stringify({ query: '{ scimIntegrations { id } }', variables: ODD_CPR }), { token: admin }),
        'BAD_REQUEST',
      ],
      [
        'a GET with malformed variables',
        () =>
          call<Gql>(
            `${stack.base}/graphql?query=${encodeURIComponent('{ scimIntegrations { id } }')}&variables=${encodeURIComponent(`{"cpr": ${ODD_CPR}`)}`,
            { token: admin },
          ),
        'BAD_REQUEST',
      ],
      [
        'a GET with variables that are a number',
        () =>
          call<Gql>(
            `${stack.base}/graphql?query=${encodeURIComponent('{ scimIntegrations { id } }')}&variables=${ODD_CPR}`,
            { token: admin },
          ),
        'BAD_REQUEST',
      ],
      [
        'a GET with malformed extensions',
        () =>
          call<Gql>(
            `${stack.base}/graphql?query=${encodeURIComponent('{ scimIntegrations { id } }')}&extensions=${ODD_CPR}x`,
            { token: admin },
          ),
        'BAD_REQUEST',
      ],
      [
        'a form body with malformed variables',
        () =>
          post(`query=${encodeURIComponent('{ scimIntegrations { id } }')}&variables=${ODD_CPR}`, {
            token: admin,
            contentType: 'application/x-www-form-urlencoded',
          }),
        'BAD_REQUEST',
      ],
      [
        'a multipart body',
        () =>
          post(`--b\r\nContent-Disposition: form-data; name="${ODD_CPR}"\r\n\r\n1\r\n--b--\r\n`, {
            token: admin,
            contentType: 'multipart/form-data; boundary=b',
          }),
        'BAD_REQUEST',
      ],
      [
        'an operation name that the document does not define',
        () =>
          post(JSON.stringify({ query: '{ scimIntegrations { id } }', operationName: `Op${ODD_CPR}` }), {
            token: admin,
          }),
        'BAD_REQUEST',
      ],
      [
        'a made-up field named with a personal number',
        () => gql(admin, `{ x${ODD_CPR} }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a made-up fragment named with a personal number',
        () => gql(admin, `{ ...F010190_4321 }`),
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        'a mutation over GET',
        () =>
          call<Gql>(
            `${stack.base}/graphql?query=${encodeURIComponent(`mutation { createScimIntegration(input: { displayName: "${PASSPORT}", clientId: "x" }) { scimIntegration { id } } }`)}`,
            { token: admin },
          ),
        'BAD_REQUEST',
      ],
    ];

    it.each(cases)('%s', async (_what, send, code) => {
      const res = await send();
      expect(res.status).toBe(200);
      expect(codes(res)).toEqual(expect.arrayContaining([code]));
      expect(res.body.data ?? undefined).toBeUndefined();
      expectNoEcho(res.text);
      for (const e of res.body.errors ?? [])
        expect(Object.keys(e.extensions ?? {}).filter((k) => k !== 'code')).toEqual([]);
    });

    it('names in messages stay (field, argument and type names), values do not', async () => {
      const res = await gql(admin, `{ businessIdentities(source: "HR", first: "${CPR}") { nodes { id } } }`);
      expect(res.body.errors?.[0]?.message).toBe('Int cannot represent the value given.');
      const field = await gql(admin, '{ scimIntegratio { id } }');
      expect(field.body.errors?.[0]?.message).toBe('Cannot query field "scimIntegratio" on type "Query".');
      expect(field.body.errors?.[0]?.locations).toEqual([{ line: 1, column: 3 }]);
      const variable = await gql(
        admin,
        'query($f: Int) { businessIdentities(source: "HR", first: $f) { nodes { id } } }',
        { f: CPR },
      );
      expect(variable.body.errors?.[0]?.message).toBe('Variable "$f" has an invalid value.');
    });

    it('a large document from an administrator is refused by its length, one under the cap by its shape', async () => {
      const long = await gql(admin, largeDocument(200_000, 3));
      expect(long.status).toBe(413);
      expect(codes(long)).toEqual(['QUERY_TOO_LARGE']);
      const res = await gql(admin, largeDocument(60_000, 3));
      expect(res.status).toBe(200);
      expect(codes(res)).toEqual(['QUERY_TOO_COMPLEX']);
    });
  });

  describe('correlation ids', () => {
    it.each([
      ['a personal number', CPR],
      ['a personal number written with a dot', '010190.1234'],
      ['a personal number written with an underscore', '010190_1234'],
      ['a birth date', 'job-01.01.90'],
      ['markup', '<script>x</script>'],
      ['an over-long id', 'a'.repeat(65)],
    ])('one that carries %s is replaced by a generated one, in the response and in the logs', async (_what, sent) => {
      const before = stack.logs.length;
      const res = await post(JSON.stringify({ query: '{ scimIntegrations { id } }' }), {
        token: admin,
        headers: { 'x-correlation-id': sent },
      });
      expect(res.status).toBe(200);
      const used = res.headers.get('x-correlation-id') ?? '';
      expect(used).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
      expect(used).not.toBe(sent);
      const lines = stack.logs.slice(before);
      expect(lines.some((l) => l.includes(used))).toBe(true);
      expect(lines.filter((l) => l.includes(sent))).toEqual([]);
      expect(leaksIn(lines)).toEqual([]);
    });

    it('a well-formed one is kept', async () => {
      const res = await post(JSON.stringify({ query: '{ scimIntegrations { id } }' }), {
        token: admin,
        headers: { 'x-correlation-id': 'job-42.run:7' },
      });
      expect(res.headers.get('x-correlation-id')).toBe('job-42.run:7');
    });
  });
});
