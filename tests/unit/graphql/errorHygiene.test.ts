import { GraphQLError, Source, parse, validate, buildSchema, specifiedRules } from 'graphql';
import { cleanError, cleanMessage } from '../../../lib/graphql/errorHygiene';

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
});
