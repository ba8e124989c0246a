import { GraphQLError, Source, parse, validate, buildSchema, specifiedRules } from 'graphql';
import { MALFORMED_PARAMETERS, cleanError, cleanMessage } from '../../../lib/graphql/errorHygiene';

const CPR = '0101901234';

describe('cleanMessage', () => {
  it.each([
    [`Int cannot represent non-integer value: "${CPR}"`, 'Int cannot represent the value given.'],
    [`String cannot represent a non string value: ${CPR}`, 'String cannot represent the value given.'],
    [`LocalDate cannot represent ${CPR}`, 'LocalDate cannot represent the value given.'],
    [
      `Value "X${CPR}" does not exist in "AffiliationType" enum. Did you mean the enum value "OTHER"?`,
      'The value given is not a value of enum "AffiliationType".',
    ],
    [
      `Enum "DirectoryLinkStatus" cannot represent non-enum value: "${CPR}".`,
      'The value given is not a value of enum "DirectoryLinkStatus".',
    ],
    [`Expected value of type "Int!", found "${CPR}".`, 'Expected value of type "Int!": the value given is not one.'],
    [
      `Variable "$i" got invalid value "${CPR}" at "i.identities[0].affiliationType"; Value "${CPR}" does not exist`,
      'Variable "$i" has an invalid value at "i.identities[0].affiliationType".',
    ],
    [
      `Variable "$f" got invalid value "${CPR}"; Int cannot represent non-integer value: "${CPR}"`,
      'Variable "$f" has an invalid value.',
    ],
    [`Argument "first" has invalid value "${CPR}".`, 'Argument "first" has an invalid value.'],
    [`Syntax Error: Unexpected Name "${CPR}x".`, 'Syntax Error: the document is not valid GraphQL.'],
    [
      'Cannot query field "scimIntegratio" on type "Query". Did you mean "scimIntegration" or "scimIntegrations"?',
      'Cannot query field "scimIntegratio" on type "Query".',
    ],
    [`Unknown argument "a b ${CPR}" on field "Query.x".`, 'Unknown argument "…" on field "Query.x".'],
    [
      `Field "x" of required type "[String!]!" was not provided.`,
      'Field "x" of required type "[String!]!" was not provided.',
    ],
    // A made-up name is input too: six digits in it (whatever separates them) are masked.
    [`Cannot query field "X${CPR}" on type "Query".`, 'Cannot query field "…" on type "Query".'],
    ['Unknown fragment "F010190_1234".', 'Unknown fragment "…".'],
    ['Variable "$v010190" is never used.', 'Variable "…" is never used.'],
    [`Unknown type "${CPR}".`, 'Unknown type "…".'],
  ])('%s', (message, expected) => {
    expect(cleanMessage(message)).toBe(expected);
  });

  it('caps the length', () => {
    expect(cleanMessage(`Unknown ${'x'.repeat(1000)}`).length).toBeLessThanOrEqual(301);
  });
});

describe('cleanError', () => {
  it('drops originalError, http and other extensions of framework errors and gives them a code', () => {
    const e = new GraphQLError('POST body sent invalid JSON.', {
      originalError: new Error(`Unexpected token in "${CPR}"`),
      extensions: { http: { status: 400 } },
    });
    const cleaned = cleanError(e).toJSON();
    expect(cleaned).toEqual({ message: 'The request body is not valid JSON.', extensions: { code: 'BAD_REQUEST' } });
  });

  it('keeps the code and extra extensions of our own errors, without http', () => {
    const e = new GraphQLError('Invalid input', {
      extensions: { code: 'BAD_USER_INPUT', problems: [{ field: 'a', problem: 'b' }], http: { status: 400 } },
    });
    expect(cleanError(e).toJSON()).toEqual({
      message: 'Invalid input',
      extensions: { code: 'BAD_USER_INPUT', problems: [{ field: 'a', problem: 'b' }] },
    });
  });

  it('masks unexpected errors', () => {
    const e = new GraphQLError('Unexpected error.', { path: ['x'], extensions: { unexpected: true } });
    expect(cleanError(e).toJSON()).toEqual({
      message: 'Unexpected error.',
      path: ['x'],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  });

  it('keeps locations of validation errors and codes them', () => {
    const schema = buildSchema('type Query { a(n: Int): Int }');
    const errors = validate(schema, parse(new Source(`{ a(n: "${CPR}") }`)), specifiedRules);
    const cleaned = errors.map((e) => cleanError(e).toJSON());
    expect(cleaned).toEqual([
      {
        message: 'Int cannot represent the value given.',
        locations: [{ line: 1, column: 8 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
  });

  describe("graphql-yoga's request errors: BAD_REQUEST, a message of ours, nothing the caller chose", () => {
    const yoga = (message: string, extensions: Record<string, unknown> = { code: 'BAD_REQUEST' }) =>
      cleanError(new GraphQLError(message, { extensions: { ...extensions, http: { status: 400 } } })).toJSON();

    it.each([
      [
        `Unexpected parameter "${CPR}" in the request body.`,
        'The request has a parameter other than query, variables, operationName and extensions.',
      ],
      [
        'Expected "variables" param to be empty or an object, but given string.',
        'The "variables" parameter has the wrong type.',
      ],
      [`POST body is expected to be object but received ${CPR}`, 'The request body must be a JSON object.'],
      ['Expected params to be an object but given number.', 'The request body must be a JSON object.'],
      ['Must provide query string.', 'Must provide query string.'],
      ['Batching is not supported.', 'Batching is not supported: send one operation per request.'],
      ['Can only perform a mutation operation from a POST request.', 'Send a mutation with POST.'],
      [MALFORMED_PARAMETERS, MALFORMED_PARAMETERS],
      [`POST body sent invalid multipart data: ${CPR}`, 'The request is not a valid GraphQL request.'],
      [`Something new about "${CPR}"`, 'The request is not a valid GraphQL request.'],
    ])('%s', (message, expected) => {
      expect(yoga(message)).toEqual({ message: expected, extensions: { code: 'BAD_REQUEST' } });
    });

    it('an operation that cannot be resolved is BAD_REQUEST too', () => {
      expect(
        yoga('Could not determine what operation to execute.', { code: 'OPERATION_RESOLUTION_FAILURE' }).extensions,
      ).toEqual({ code: 'BAD_REQUEST' });
    });

    it('validation errors keep their code although graphql-yoga gives them an HTTP status too', () => {
      expect(yoga('Cannot query field "x" on type "Query".', { code: 'GRAPHQL_VALIDATION_FAILED' })).toEqual({
        message: 'Cannot query field "x" on type "Query".',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    });

    it("the service's own BAD_REQUEST messages stay as they are", () => {
      const own = new GraphQLError('Send exactly one Authorization header', { extensions: { code: 'BAD_REQUEST' } });
      expect(cleanError(own).message).toBe('Send exactly one Authorization header');
    });
  });
});
