import { SCIM_ERROR_SCHEMA, ScimError, invalidSyntax, invalidValue, notFound } from '../../../lib/scim/errors';

/**
 * RFC 7644 §3.12: every scimType keyword goes with 400, except `uniqueness` (409) and `sensitive` (403);
 * the HTTP statuses the service answers with beyond those carry no scimType.
 */
const RFC_STATUS_OF_SCIM_TYPE: Record<string, number> = {
  invalidFilter: 400,
  tooMany: 400,
  uniqueness: 409,
  mutability: 400,
  invalidSyntax: 400,
  invalidPath: 400,
  noTarget: 400,
  invalidValue: 400,
  invalidVers: 400,
  sensitive: 403,
};

/** Each factory of ScimError, called with a detail (and the extra argument it takes). */
const MADE_BY: Record<string, () => ScimError> = {
  invalidValue: () => ScimError.invalidValue('d'),
  invalidSyntax: () => ScimError.invalidSyntax('d'),
  invalidFilter: () => ScimError.invalidFilter('d'),
  mutability: () => ScimError.mutability('d'),
  invalidPath: () => ScimError.invalidPath('d'),
  noTarget: () => ScimError.noTarget('d'),
  uniqueness: () => ScimError.uniqueness('d'),
  badRequest: () => ScimError.badRequest('d'),
  unauthorized: () => ScimError.unauthorized('d', 'Bearer'),
  forbidden: () => ScimError.forbidden('d'),
  notFound: () => ScimError.notFound('d'),
  methodNotAllowed: () => ScimError.methodNotAllowed('d', ['GET', 'POST']),
  requestTimeout: () => ScimError.requestTimeout('d'),
  preconditionFailed: () => ScimError.preconditionFailed('d'),
  payloadTooLarge: () => ScimError.payloadTooLarge('d'),
  unsupportedMediaType: () => ScimError.unsupportedMediaType('d'),
  tooManyRequests: () => ScimError.tooManyRequests('d', 7),
  internal: () => ScimError.internal('d'),
  unavailable: () => ScimError.unavailable('d', 3),
};

const factoryNames = (): string[] =>
  Object.getOwnPropertyNames(ScimError).filter(
    (name) => typeof (ScimError as unknown as Record<string, unknown>)[name] === 'function',
  );

describe('ScimError', () => {
  it('has exactly the factories listed here (a new one must be added to this test)', () => {
    expect(factoryNames().sort()).toEqual(Object.keys(MADE_BY).sort());
  });

  it('makes exactly the status/scimType pairs of RFC 7644 §3.12 that the service uses', () => {
    const pairs = Object.values(MADE_BY).map((make) => {
      const err = make();
      return `${err.status} ${err.scimType ?? '-'}`;
    });
    expect(pairs.sort()).toEqual(
      [
        '400 invalidValue',
        '400 invalidSyntax',
        '400 invalidFilter',
        '400 mutability',
        '400 invalidPath',
        '400 noTarget',
        '409 uniqueness',
        '400 -',
        '401 -',
        '403 -',
        '404 -',
        '405 -',
        '408 -',
        '412 -',
        '413 -',
        '415 -',
        '429 -',
        '500 -',
        '503 -',
      ].sort(),
    );
    for (const make of Object.values(MADE_BY)) {
      const { status, scimType } = make();
      if (scimType !== undefined) expect([scimType, status]).toEqual([scimType, RFC_STATUS_OF_SCIM_TYPE[scimType]]);
    }
  });

  it('names each scimType factory after its keyword', () => {
    for (const [name, make] of Object.entries(MADE_BY)) {
      const { scimType } = make();
      if (scimType !== undefined) expect(scimType).toBe(name);
    }
  });

  it('cannot be constructed with a free status and scimType', () => {
    // @ts-expect-error the constructor is private: an error is made by the factory of its meaning.
    const make = () => new ScimError(404, 'uniqueness', 'd');
    expect(typeof make).toBe('function');
  });

  it('sets the headers its status needs', () => {
    expect(ScimError.unauthorized('d', 'Bearer').headers).toEqual({ 'www-authenticate': 'Bearer' });
    expect(ScimError.methodNotAllowed('d', ['GET', 'POST']).headers).toEqual({ allow: 'GET, POST' });
    expect(ScimError.tooManyRequests('d', 7).headers).toEqual({ 'retry-after': '7' });
    expect(ScimError.unavailable('d', 3).headers).toEqual({ 'retry-after': '3' });
    expect(ScimError.notFound('d').headers).toEqual({});
  });

  it('writes the SCIM Error body, with scimType only when there is one', () => {
    expect(ScimError.uniqueness('Same userName').toBody()).toEqual({
      schemas: [SCIM_ERROR_SCHEMA],
      status: '409',
      scimType: 'uniqueness',
      detail: 'Same userName',
    });
    expect(ScimError.forbidden('No').toBody()).toEqual({ schemas: [SCIM_ERROR_SCHEMA], status: '403', detail: 'No' });
  });

  it('keeps the shorthands in line with the factories', () => {
    expect([invalidValue('d').status, invalidValue('d').scimType]).toEqual([400, 'invalidValue']);
    expect([invalidSyntax('d').status, invalidSyntax('d').scimType]).toEqual([400, 'invalidSyntax']);
    expect([notFound().status, notFound().scimType]).toEqual([404, undefined]);
  });
});
