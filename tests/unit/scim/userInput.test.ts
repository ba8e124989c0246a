/**
 * lib/scim/userInput (spec §2.1 rules 3-7, §7.1, §8 limits): canonical names and accepted value
 * variants, ignored and rejected attributes, validation and normalisation of every value format,
 * error details that name the path and never echo the value, prototype safety, identityToScimInput.
 */
import {
  EXT,
  canonicalizeUser,
  checkUserSchemas,
  identityToScimInput,
  parseScimUser,
  toIdentityAttributes,
} from '../../../lib/scim/userInput';
import type { CanonicalizeMode, JsonObject, ScimUserInput } from '../../../lib/scim/userInput';
import type { ScimError } from '../../../lib/scim/errors';
import { errorOf } from '../../support/scimErrorOf';
import type { IdentityAttributes } from '../../../lib/identities/model';

// ---- shared fixtures and helpers ----------------------------------------------------------

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A minimal valid User body; `ext` entries are merged into the service extension, `core` entries into the body. */
function userBody(ext: JsonObject = {}, core: JsonObject = {}): JsonObject {
  return {
    schemas: [CORE, EXT],
    externalId: 'E-1',
    userName: 'anna@corp.example',
    name: { givenName: 'Anna', familyName: 'Berg' },
    [EXT]: { affiliationType: 'employment', ...ext },
    ...core,
  };
}

/** userBody() without one top-level key. */
function without(key: string): JsonObject {
  const body = userBody();
  delete body[key];
  return body;
}

/** What userBody() parses to. */
const BASE: IdentityAttributes = {
  externalId: 'E-1',
  userName: 'anna@corp.example',
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  personalNumbers: [],
  identityDocumentReferences: [],
};

/** A 400 of `scimType` whose detail contains `named` (when given) and none of `secrets`. */
function expectError(fn: () => unknown, scimType: string, named?: string, ...secrets: string[]): ScimError {
  const err = errorOf(fn);
  expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType });
  if (named !== undefined) expect(err.detail).toContain(named);
  for (const s of secrets) expect(err.detail).not.toContain(s);
  return err;
}

/** A body rejected as invalidValue; the detail names `named` and echoes none of `secrets`. */
type InvalidCase = [label: string, body: JsonObject, named: string, secrets: string[]];

const pollution = (): unknown[] =>
  ['polluted', 'userName', 'affiliationType'].map((k) => (({}) as Record<string, unknown>)[k]);

afterEach(() => {
  // A failed pollution test must not leak into other tests.
  delete (Object.prototype as Record<string, unknown>).polluted;
});

// ---- step 1: canonicalizeUser -------------------------------------------------------------

describe('normalisation: attribute names in any case', () => {
  it.each<[string, JsonObject]>([
    [
      'UserName, EXTERNALID, Name.GivenName',
      {
        UserName: 'anna@corp.example',
        EXTERNALID: 'E-1',
        Name: { GivenName: 'Anna', FAMILYNAME: 'Berg' },
        [EXT]: { affiliationType: 'employment' },
      },
    ],
    [
      'all lower case',
      {
        username: 'anna@corp.example',
        externalid: 'E-1',
        name: { givenname: 'Anna', familyname: 'Berg' },
        [EXT]: { affiliationtype: 'employment' },
      },
    ],
    [
      'NAME.GIVENNAME, NAME.FamilyName keys',
      {
        userName: 'anna@corp.example',
        externalId: 'E-1',
        NAME: { GIVENNAME: 'Anna', FamilyName: 'Berg' },
        [EXT]: { affiliationType: 'employment' },
      },
    ],
    [
      'extension URN in upper case',
      {
        userName: 'anna@corp.example',
        externalId: 'E-1',
        name: { givenName: 'Anna', familyName: 'Berg' },
        [EXT.toUpperCase()]: { AFFILIATIONTYPE: 'employment' },
      },
    ],
    [
      'extension URN in lower case',
      {
        userName: 'anna@corp.example',
        externalId: 'E-1',
        name: { givenName: 'Anna', familyName: 'Berg' },
        [EXT.toLowerCase()]: { AffiliationType: 'employment' },
      },
    ],
    [
      'core-URN-prefixed keys, URN in lower case',
      {
        [`${CORE}:userName`]: 'anna@corp.example',
        [`${CORE.toLowerCase()}:EXTERNALID`]: 'E-1',
        [`${CORE}:name`]: { givenName: 'Anna', familyName: 'Berg' },
        [EXT]: { affiliationType: 'employment' },
      },
    ],
    [
      'core-URN-prefixed keys, URN in upper case',
      {
        [`${CORE}:userName`]: 'anna@corp.example',
        [`${CORE.toUpperCase()}:EXTERNALID`]: 'E-1',
        [`${CORE}:name`]: { givenName: 'Anna', familyName: 'Berg' },
        [EXT]: { affiliationType: 'employment' },
      },
    ],
    [
      'flattened <URN>:affiliationType',
      {
        userName: 'anna@corp.example',
        externalId: 'E-1',
        name: { givenName: 'Anna', familyName: 'Berg' },
        [`${EXT}:affiliationType`]: 'employment',
      },
    ],
    [
      'flattened, URN and name in upper case',
      {
        userName: 'anna@corp.example',
        externalId: 'E-1',
        name: { givenName: 'Anna', familyName: 'Berg' },
        [`${EXT.toUpperCase()}:AFFILIATIONTYPE`]: 'EMPLOYMENT',
      },
    ],
  ])('%s', (_label, body) => {
    expect(parseScimUser(body)).toEqual(BASE);
  });

  describe('every extension attribute and list item sub-attribute in any case', () => {
    /** `value` with every object key, list items' included, passed through `rename`. */
    const renameKeys = (value: unknown, rename: (key: string) => string): unknown => {
      if (Array.isArray(value)) return value.map((v) => renameKeys(v, rename));
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), renameKeys(v, rename)]));
    };
    const keyCases: Array<[string, (key: string) => string]> = [
      ['UPPER CASE', (k) => k.toUpperCase()],
      ['lower case', (k) => k.toLowerCase()],
      ['Pascal case', (k) => k.charAt(0).toUpperCase() + k.slice(1)],
    ];
    const valueSets: Array<[string, JsonObject, IdentityAttributes['identityDocumentReferences']]> = [
      [
        'value variants',
        {
          affiliationType: 'Employment',
          personalNumbers: [{ type: 'dkcpr', value: '010190-1234' }],
          identityDocumentReferences: [{ type: 'passport', issuingCountry: 'se', documentNumber: 'P-1' }],
        },
        [{ type: 'Passport', issuingCountry: 'SE', documentNumber: 'P-1' }],
      ],
      [
        'canonical values',
        {
          affiliationType: 'employment',
          personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
          identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-77' }],
        },
        [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-77' }],
      ],
    ];
    const common = {
      birthDate: '1990-01-01',
      nationality: 'dk',
      personalEmail: 'anna@home.example',
      personalPhone: '+4522113344',
      directoryUserPrincipalName: 'anna@corp.example',
    };

    it.each(
      keyCases.flatMap(([keys, rename]) =>
        valueSets.map(([values, ext, documents]) => [keys, values, rename, ext, documents] as const),
      ),
    )('%s names, %s', (_keys, _values, rename, ext, documents) => {
      expect(parseScimUser({ ...userBody(), [EXT]: renameKeys({ ...common, ...ext }, rename) })).toEqual({
        ...BASE,
        birthDate: '1990-01-01',
        nationality: 'DK',
        personalEmail: 'anna@home.example',
        personalPhone: '+4522113344',
        personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
        identityDocumentReferences: documents,
        directoryUserPrincipalName: 'anna@corp.example',
      });
    });
  });

  it('merges the nested extension object with flattened extension keys', () => {
    const body = { ...userBody(), [`${EXT}:nationality`]: 'no', [`${EXT}:birthDate`]: '1990-01-01' };
    expect(parseScimUser(body)).toEqual({ ...BASE, nationality: 'NO', birthDate: '1990-01-01' });
  });

  it.each<[string, JsonObject, CanonicalizeMode | undefined, JsonObject]>([
    [
      'put',
      {
        USERNAME: 'u',
        externalID: 'e',
        Name: { GivenName: 'g', familyNAME: 'f', formatted: 'g f' },
        Active: 'False',
        emails: [],
      },
      'put',
      { active: false },
    ],
    [
      'the default mode',
      { USERNAME: 'u', ExternalId: 'e', Name: { GivenName: 'g', FAMILYNAME: 'f' }, Active: 'TRUE' },
      undefined,
      { active: true },
    ],
  ])('canonicalizeUser (%s) returns canonical names and coerced values only', (_label, core, mode, coerced) => {
    const out = canonicalizeUser({ ...core, [EXT.toUpperCase()]: { AffiliationType: 'OTHER' } }, mode);
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      userName: 'u',
      externalId: 'e',
      name: { givenName: 'g', familyName: 'f' },
      ...coerced,
      [EXT]: { affiliationType: 'other' },
    });
  });

  it('mode defaults to put', () => {
    expect(JSON.stringify(canonicalizeUser(userBody({ directoryLinkStatus: 'linked' })))).toBe(
      JSON.stringify(canonicalizeUser(userBody({ directoryLinkStatus: 'linked' }), 'put')),
    );
  });

  it('builds prototype-free objects', () => {
    const out = canonicalizeUser(userBody({ personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] })) as JsonObject;
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(Object.getPrototypeOf(out.name)).toBeNull();
    const ext = out[EXT] as { personalNumbers: unknown[] };
    expect(Object.getPrototypeOf(ext)).toBeNull();
    expect(Object.getPrototypeOf(ext.personalNumbers[0])).toBeNull();
  });
});

describe('normalisation: ignored attributes (rules 3 and 4)', () => {
  it.each<[string, JsonObject, JsonObject]>([
    [
      'schemas (POST and PUT check them, see checkUserSchemas), id and meta',
      {},
      { schemas: ['anything'], id: 'server-id', meta: { version: 'W/"9"', resourceType: 'User' } },
    ],
    ['ID and META in upper case', {}, { ID: 'x', META: { version: 'W/"1"' } }],
    [
      'read-only extension attributes',
      { directoryLinkStatus: 'linked', directoryLinkSource: 'manual', directoryLinkedUserId: 'u-1' },
      {},
    ],
    [
      'read-only extension attributes in other cases',
      { DIRECTORYLINKSTATUS: 'conflict', DirectoryLinkSource: 'asserted', directorylinkeduserid: 'u-2' },
      {},
    ],
    ['emails', {}, { emails: [{ type: 'work', value: 'anna@corp.example', primary: true }] }],
    [
      'displayName, title, phoneNumbers, addresses',
      {},
      {
        displayName: 'Anna B',
        title: 'CTO',
        phoneNumbers: [{ value: '+4511111111' }],
        addresses: [{ locality: 'Aarhus' }],
      },
    ],
    [
      'unlisted sub-attributes of name',
      {},
      { name: { givenName: 'Anna', familyName: 'Berg', middleName: 'M', formatted: 'Anna M Berg' } },
    ],
    ['enterprise extension object', {}, { [ENTERPRISE]: { employeeNumber: '42', manager: { value: 'boss' } } }],
    ['enterprise extension, flattened', {}, { [`${ENTERPRISE}:department`]: 'R&D' }],
    ['an unknown schema extension', {}, { 'urn:example:custom:1.0:User': { anything: true } }],
    [
      'bare extension attribute names at the top level (unlisted core attributes)',
      {},
      { affiliationType: 'other', personalNumbers: 'not even a list' },
    ],
  ])('%s', (_label, ext, core) => {
    expect(parseScimUser(userBody(ext, core))).toEqual(BASE);
    const canonical = canonicalizeUser(userBody(ext, core)) as JsonObject;
    expect(Object.keys(canonical).sort()).toEqual(['externalId', 'name', 'userName', EXT].sort());
    expect(Object.keys(canonical.name as JsonObject).sort()).toEqual(['familyName', 'givenName']);
    expect(Object.keys(canonical[EXT] as JsonObject)).toEqual(['affiliationType']);
  });

  it('a flattened read-only extension attribute is ignored', () => {
    expect(parseScimUser({ ...userBody(), [`${EXT}:directoryLinkStatus`]: 'linked' })).toEqual(BASE);
  });

  it.each<[string, JsonObject, string]>([
    ['read-only extension attribute', userBody({ directoryLinkStatus: 'linked' }), `${EXT}:directoryLinkStatus`],
    [
      'flattened read-only extension attribute',
      { ...userBody(), [`${EXT}:DIRECTORYLINKEDUSERID`]: 'x' },
      `${EXT}:directoryLinkedUserId`,
    ],
    ['id', userBody({}, { id: 'x' }), 'id'],
    ['meta', userBody({}, { meta: {} }), 'meta'],
  ])('patchResult mode rejects a %s as mutability', (_label, body, named) => {
    expectError(() => canonicalizeUser(body, 'patchResult'), 'mutability', named);
  });
});

describe('rejected input: body shape and unknown attributes', () => {
  it.each<[string, unknown]>([
    ['array', [userBody()]],
    ['empty array', []],
    ['null', null],
    ['string', JSON.stringify(userBody())],
    ['number', 7],
    ['boolean', false],
    ['undefined', undefined],
  ])('%s body -> invalidSyntax', (_label, body) => {
    expectError(() => parseScimUser(body), 'invalidSyntax');
  });

  it.each<[string, unknown]>([
    ['a string', 'employment'],
    ['an array', [{ affiliationType: 'employment' }]],
    ['null', null],
  ])('an extension value that is %s -> invalidValue naming the extension', (_label, ext) => {
    expectError(() => parseScimUser({ ...userBody(), [EXT]: ext }), 'invalidValue', EXT);
  });

  it.each<[string, JsonObject, string]>([
    ['misspelled affiliatonType', userBody({ affiliatonType: 'employment-Qx7' }), 'affiliatonType'],
    ['upper-case unknown name', userBody({ SHOESIZE: 'Qx7-44' }), 'SHOESIZE'],
    ['flattened unknown attribute', { ...userBody(), [`${EXT}:cprNumber`]: 'Qx7-0101901234' }, 'cprNumber'],
    [
      'flattened unknown attribute, upper-case URN',
      { ...userBody(), [`${EXT.toUpperCase()}:nickName`]: 'Qx7-Annie' },
      'nickName',
    ],
  ])('unknown service-extension attribute (%s) -> invalidSyntax naming it, not its value', (_label, body, named) => {
    const err = expectError(() => parseScimUser(body), 'invalidSyntax', named, 'Qx7');
    expect(err.detail).toContain('service extension');
  });

  it.each<[string, JsonObject]>([
    ['personalNumbers item', { personalNumbers: [{ type: 'DkCpr', value: '0101901234', issuer: 'Qx7-DK' }] }],
    [
      'identityDocumentReferences item',
      {
        identityDocumentReferences: [
          { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1', expires: 'Qx7-2030' },
        ],
      },
    ],
  ])('unknown sub-attribute in a %s -> invalidSyntax', (_label, ext) => {
    expectError(() => parseScimUser(userBody(ext)), 'invalidSyntax', `${EXT}:`, 'Qx7');
  });
});

// ---- value variants and normalisation -----------------------------------------------------

describe('value variants (rule 6)', () => {
  it.each<[unknown, boolean]>([
    ['True', true],
    ['true', true],
    ['TRUE', true],
    [' true ', true],
    ['False', false],
    ['false', false],
    ['FALSE', false],
    ['fAlSe', false],
    [true, true],
    [false, false],
  ])('active %j -> %s', (active, expected) => {
    expect(parseScimUser(userBody({}, { active })).active).toBe(expected);
  });

  it.each<[unknown]>([['yes'], ['1'], ['0'], [0], [1], [''], [{}]])(
    'active %j -> invalidValue naming active',
    (active) => {
      expectError(() => parseScimUser(userBody({}, { active })), 'invalidValue', 'active');
    },
  );

  it.each<[string, IdentityAttributes['affiliationType']]>([
    ['EMPLOYMENT', 'employment'],
    ['Employment', 'employment'],
    ['Enrollment', 'enrollment'],
    ['enrollment', 'enrollment'],
    ['ENROLLMENT', 'enrollment'],
    ['engagement', 'engagement'],
    ['Engagement', 'engagement'],
    ['OTHER', 'other'],
    ['oThEr', 'other'],
  ])('affiliationType %s -> %s', (input, expected) => {
    expect(parseScimUser(userBody({ affiliationType: input })).affiliationType).toBe(expected);
  });

  it.each<[string, string, string]>([
    ['dkcpr', '010190-1234', '0101901234'],
    ['DKCPR', '0101901234', '0101901234'],
    ['DkCpr', '311299-4321', '3112994321'],
    ['dKcPr', '0101901234', '0101901234'],
  ])('personalNumbers type %s value %s -> DkCpr %s', (type, value, expected) => {
    expect(parseScimUser(userBody({ personalNumbers: [{ type, value }] })).personalNumbers).toEqual([
      { type: 'DkCpr', value: expected },
    ]);
  });

  it.each<[string, string]>([
    ['passport', 'Passport'],
    ['PASSPORT', 'Passport'],
    ['identitycard', 'IdentityCard'],
    ['IDENTITYCARD', 'IdentityCard'],
  ])('document type %s -> %s', (type, expected) => {
    const attrs = parseScimUser(
      userBody({ identityDocumentReferences: [{ type, issuingCountry: 'DK', documentNumber: 'D-1' }] }),
    );
    expect(attrs.identityDocumentReferences).toEqual([{ type: expected, issuingCountry: 'DK', documentNumber: 'D-1' }]);
  });

  it.each<[string, string]>([
    ['dk', 'DK'],
    ['Se', 'SE'],
    ['DE', 'DE'],
  ])('country %s -> %s for nationality and issuingCountry', (input, expected) => {
    const attrs = parseScimUser(
      userBody({
        nationality: input,
        identityDocumentReferences: [{ type: 'Passport', issuingCountry: input, documentNumber: 'D-1' }],
      }),
    );
    expect(attrs.nationality).toBe(expected);
    expect(attrs.identityDocumentReferences[0]?.issuingCountry).toBe(expected);
  });
});

describe('normalisation and absent values (rule 7)', () => {
  it('normalises: CPR without dash, country codes upper case; keeps other values as sent', () => {
    const keptAsSent = { birthDate: '2024-02-29', personalEmail: 'Anna@Home.Example', personalPhone: '+12025550123' };
    const attrs = parseScimUser(
      userBody(
        {
          ...keptAsSent,
          nationality: 'dk',
          personalNumbers: [{ type: 'DkCpr', value: '290200-4321' }],
          identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'de', documentNumber: ' ab-12Cd ' }],
        },
        { name: { givenName: ' Anna ', familyName: 'Berg' }, externalId: ' E-1 ' },
      ),
    );
    expect(attrs).toMatchObject({
      ...keptAsSent,
      externalId: ' E-1 ',
      givenName: ' Anna ',
      nationality: 'DK',
      personalNumbers: [{ type: 'DkCpr', value: '2902004321' }],
      identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'DE', documentNumber: ' ab-12Cd ' }],
    });
  });

  it('accepts a UPN and keeps it as sent', () => {
    expect(
      parseScimUser(userBody({ directoryUserPrincipalName: 'Anna.Berg@Corp.Example' })).directoryUserPrincipalName,
    ).toBe('Anna.Berg@Corp.Example');
  });

  it('attributes not sent are absent, active is true and lists are empty', () => {
    const attrs = parseScimUser(userBody());
    expect(attrs).toEqual(BASE);
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(BASE).sort());
  });

  it('null for every optional attribute means absent', () => {
    const optional = {
      birthDate: null,
      nationality: null,
      personalEmail: null,
      personalPhone: null,
      personalNumbers: null,
      identityDocumentReferences: null,
      directoryUserPrincipalName: null,
    };
    const attrs = parseScimUser(userBody(optional, { active: null }));
    expect(attrs).toEqual(BASE);
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(BASE).sort());
  });

  it('an empty directoryUserPrincipalName means not asserted', () => {
    const attrs = parseScimUser(userBody({ directoryUserPrincipalName: '' }));
    expect(attrs).not.toHaveProperty('directoryUserPrincipalName');
    expect(attrs).toEqual(BASE);
  });
});

// ---- validation -------------------------------------------------------------------------

describe('required attributes', () => {
  it.each<[string, JsonObject, string]>([
    ['externalId missing', without('externalId'), 'externalId'],
    ['userName missing', without('userName'), 'userName'],
    ['name missing', without('name'), 'name'],
    ['the extension missing', without(EXT), EXT],
    ['name.givenName missing', userBody({}, { name: { familyName: 'Berg' } }), 'name.givenName'],
    ['name.familyName missing', userBody({}, { name: { givenName: 'Anna' } }), 'name.familyName'],
    ['affiliationType missing', { ...userBody(), [EXT]: { birthDate: '1990-01-01' } }, `${EXT}:affiliationType`],
    ['affiliationType undefined', userBody({ affiliationType: undefined }), `${EXT}:affiliationType`],
    [
      'personalNumbers[0].type missing',
      userBody({ personalNumbers: [{ value: '0101901234' }] }),
      `${EXT}:personalNumbers[0].type`,
    ],
    [
      'personalNumbers[0].value missing',
      userBody({ personalNumbers: [{ type: 'DkCpr' }] }),
      `${EXT}:personalNumbers[0].value`,
    ],
    [
      'identityDocumentReferences[0].issuingCountry missing',
      userBody({ identityDocumentReferences: [{ type: 'Passport', documentNumber: 'P1' }] }),
      `${EXT}:identityDocumentReferences[0].issuingCountry`,
    ],
    ['externalId null', userBody({}, { externalId: null }), 'externalId'],
    ['externalId empty', userBody({}, { externalId: '' }), 'externalId'],
    ['userName empty', userBody({}, { userName: '' }), 'userName'],
    ['givenName empty', userBody({}, { name: { givenName: '', familyName: 'Berg' } }), 'name.givenName'],
    ['familyName null', userBody({}, { name: { givenName: 'Anna', familyName: null } }), 'name.familyName'],
    ['affiliationType null', userBody({ affiliationType: null }), `${EXT}:affiliationType`],
  ])('%s -> invalidValue naming it', (_label, body, named) => {
    expectError(() => parseScimUser(body), 'invalidValue', named);
  });
});

describe('value types', () => {
  it.each<[string, JsonObject, string]>([
    ['userName not a string', userBody({}, { userName: 42 }), 'userName'],
    ['name not an object', userBody({}, { name: 'Anna Berg' }), 'name'],
    [
      'personalNumbers not a list',
      userBody({ personalNumbers: { type: 'DkCpr', value: '0101901234' } }),
      `${EXT}:personalNumbers`,
    ],
    [
      'a list item not an object',
      userBody({ identityDocumentReferences: ['P1'] }),
      `${EXT}:identityDocumentReferences[0]`,
    ],
  ])('%s -> invalidValue naming it', (_label, body, named) => {
    expectError(() => parseScimUser(body), 'invalidValue', named);
  });
});

describe('value formats: the detail names the path and never echoes the value', () => {
  const cpr = (value: string): JsonObject => userBody({ personalNumbers: [{ type: 'DkCpr', value }] });
  const withDocument = (item: JsonObject): JsonObject =>
    userBody({
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1', ...item }],
    });
  const documents = (n: number): JsonObject[] =>
    Array.from({ length: n }, (_, i) => ({ type: 'Passport', issuingCountry: 'DK', documentNumber: `Doc-${i}` }));
  const cprNumbers = (n: number): JsonObject[] =>
    Array.from({ length: n }, (_, i) => ({ type: 'DkCpr', value: `${String(i + 10)}0390-5${String(i + 10)}7` }));

  const FORMAT_CASES: Array<[format: string, cases: InvalidCase[]]> = [
    [
      'CPR numbers (personalNumbers)',
      [
        [
          'CPR 3213999999 (no such day or month)',
          cpr('3213999999'),
          `${EXT}:personalNumbers[0].value must be a valid CPR number`,
          ['3213999999'],
        ],
        ['CPR 3102857319 (31 February)', cpr('3102857319'), `${EXT}:personalNumbers[0].value`, ['3102857319']],
        [
          'CPR 310285-7319 (31 February, dashed)',
          cpr('310285-7319'),
          `${EXT}:personalNumbers[0].value`,
          ['310285-7319', '3102857319'],
        ],
        ['CPR with 9 digits', cpr('010190731'), `${EXT}:personalNumbers[0].value`, ['010190731']],
        ['CPR with letters', cpr('DISTINCT42'), `${EXT}:personalNumbers[0].value`, ['DISTINCT42']],
        ['CPR with two dashes', cpr('01-0190-1234'), `${EXT}:personalNumbers[0].value`, ['01-0190-1234']],
        [
          'personal number type',
          userBody({ personalNumbers: [{ type: 'SeDistinct', value: '0101901234' }] }),
          `${EXT}:personalNumbers[0].type`,
          ['SeDistinct', '0101901234'],
        ],
        [
          '11 personal numbers',
          userBody({ personalNumbers: cprNumbers(11) }),
          `${EXT}:personalNumbers must have at most 10 items`,
          cprNumbers(11).map((n) => String(n.value)),
        ],
        [
          'duplicate personal number type',
          userBody({
            personalNumbers: [
              { type: 'DkCpr', value: '0101901234' },
              { type: 'dkcpr', value: '020290-4321' },
            ],
          }),
          `${EXT}:personalNumbers[1]`,
          ['0101901234', '020290-4321', '0202904321'],
        ],
      ],
    ],
    [
      'personalPhone (E.164)',
      [
        [
          'phone +45 123 DISTINCT',
          userBody({ personalPhone: '+45 123 DISTINCT' }),
          `${EXT}:personalPhone`,
          ['DISTINCT', '+45 123'],
        ],
        [
          'phone with spaces',
          userBody({ personalPhone: '+45 2281 3377' }),
          `${EXT}:personalPhone`,
          ['+45 2281 3377', '2281'],
        ],
        ['phone without plus', userBody({ personalPhone: '004522813377' }), `${EXT}:personalPhone`, ['004522813377']],
        [
          'phone of 16 digits',
          userBody({ personalPhone: '+4512345678901234' }),
          `${EXT}:personalPhone`,
          ['+4512345678901234'],
        ],
      ],
    ],
    [
      'personalEmail',
      [
        ['email x@@distinct', userBody({ personalEmail: 'x@@distinct' }), `${EXT}:personalEmail`, ['distinct']],
        [
          'email without @',
          userBody({ personalEmail: 'anna.qwx.home.example' }),
          `${EXT}:personalEmail`,
          ['anna.qwx.home.example'],
        ],
        [
          'email of 201 characters',
          userBody({ personalEmail: `${'q'.repeat(188)}@home.example` }),
          `${EXT}:personalEmail must be at most 200 characters`,
          ['qqqq'],
        ],
      ],
    ],
    [
      'country codes (nationality, issuingCountry)',
      [
        ['nationality QQ', userBody({ nationality: 'QQ' }), `${EXT}:nationality`, ['QQ']],
        ['nationality XX', userBody({ nationality: 'XX' }), `${EXT}:nationality`, ['XX']],
        ['nationality of three letters', userBody({ nationality: 'DNK' }), `${EXT}:nationality`, ['DNK']],
        [
          'issuingCountry QQ',
          withDocument({ issuingCountry: 'QQ', documentNumber: 'DOC-DISTINCT-1' }),
          `${EXT}:identityDocumentReferences[0].issuingCountry`,
          ['DOC-DISTINCT-1', 'QQ'],
        ],
        [
          'issuingCountry QZ',
          withDocument({ issuingCountry: 'QZ' }),
          `${EXT}:identityDocumentReferences[0].issuingCountry`,
          ['QZ'],
        ],
      ],
    ],
    [
      'identity documents',
      [
        [
          'document without number',
          userBody({ identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK' }] }),
          `${EXT}:identityDocumentReferences[0].documentNumber is required`,
          ['Passport'],
        ],
        [
          'empty document number',
          withDocument({ documentNumber: '' }),
          `${EXT}:identityDocumentReferences[0].documentNumber must not be empty`,
          [],
        ],
        [
          'document number of 65 characters',
          withDocument({ documentNumber: `Z${'9'.repeat(64)}` }),
          `${EXT}:identityDocumentReferences[0].documentNumber must be at most 64 characters`,
          ['Z999'],
        ],
        [
          'document type',
          withDocument({ type: 'DriversDistinct', documentNumber: 'DOC-DISTINCT-2' }),
          `${EXT}:identityDocumentReferences[0].type`,
          ['DriversDistinct', 'DOC-DISTINCT-2'],
        ],
        [
          '21 document references',
          userBody({ identityDocumentReferences: documents(21) }),
          `${EXT}:identityDocumentReferences must have at most 20 items`,
          ['Doc-'],
        ],
      ],
    ],
    [
      'birthDate',
      [
        ['birthDate 1999-02-30', userBody({ birthDate: '1999-02-30' }), `${EXT}:birthDate`, ['1999-02-30']],
        [
          'birthDate 2023-02-29 (not a leap year)',
          userBody({ birthDate: '2023-02-29' }),
          `${EXT}:birthDate`,
          ['2023-02-29'],
        ],
        ['birthDate DD-MM-YYYY', userBody({ birthDate: '30-01-1999' }), `${EXT}:birthDate`, ['30-01-1999']],
      ],
    ],
    [
      'affiliationType',
      [
        [
          'affiliationType contractor',
          userBody({ affiliationType: 'Contractor-Distinct' }),
          `${EXT}:affiliationType must be one of employment, enrollment, engagement, other`,
          ['ontractor-Distinct', 'contractor-distinct'],
        ],
      ],
    ],
    [
      'directoryUserPrincipalName',
      [
        [
          'UPN with a space',
          userBody({ directoryUserPrincipalName: 'anna distinct@corp.example' }),
          `${EXT}:directoryUserPrincipalName`,
          ['distinct'],
        ],
        [
          'UPN without @',
          userBody({ directoryUserPrincipalName: 'anna.distinct.example' }),
          `${EXT}:directoryUserPrincipalName`,
          ['distinct'],
        ],
        [
          'UPN whose domain has no dot (accepted by SCIM before the UPN rule had one owner)',
          userBody({ directoryUserPrincipalName: 'anna.distinct@localhost' }),
          `${EXT}:directoryUserPrincipalName must be a user principal name`,
          ['distinct', 'localhost'],
        ],
        [
          'UPN with an empty domain label',
          userBody({ directoryUserPrincipalName: 'anna.distinct@corp..example' }),
          `${EXT}:directoryUserPrincipalName must be a user principal name`,
          ['distinct'],
        ],
        [
          'UPN with a C1 control character',
          userBody({ directoryUserPrincipalName: 'anna.distinct\u0085@corp.example' }),
          `${EXT}:directoryUserPrincipalName must be a user principal name`,
          ['distinct'],
        ],
        [
          'UPN of 1025 characters',
          userBody({ directoryUserPrincipalName: `${'u'.repeat(1012)}@corp.example` }),
          `${EXT}:directoryUserPrincipalName must be at most 1024 characters`,
          ['uuuu'],
        ],
      ],
    ],
    [
      'name lengths',
      [
        [
          'givenName of 129 characters',
          userBody({}, { name: { givenName: `G${'w'.repeat(128)}`, familyName: 'Berg' } }),
          'name.givenName must be at most 128 characters',
          ['Gwww', 'wwwwwwww'],
        ],
        [
          'familyName of 129 characters',
          userBody({}, { name: { givenName: 'Anna', familyName: `F${'v'.repeat(128)}` } }),
          'name.familyName must be at most 128 characters',
          ['Fvvv', 'vvvvvvvv'],
        ],
      ],
    ],
  ];

  describe.each(FORMAT_CASES)('%s', (_format, cases) => {
    it.each<InvalidCase>(cases)(
      '%s -> invalidValue naming the path, without the value',
      (_label, body, named, secrets) => {
        const err = expectError(() => parseScimUser(body), 'invalidValue', named, ...secrets);
        expect(err.message).toBe(err.detail);
      },
    );
  });

  describe('personal numbers: one number per type', () => {
    it('duplicate personal number type says one number per type', () => {
      expect(
        errorOf(() =>
          parseScimUser(
            userBody({
              personalNumbers: [
                { type: 'DkCpr', value: '0101901234' },
                { type: 'DkCpr', value: '0202904321' },
              ],
            }),
          ),
        ).detail,
      ).toContain('one number per type');
    });

    it('ten personal numbers pass the item limit (and then meet the one-number-per-type rule)', () => {
      expect(errorOf(() => parseScimUser(userBody({ personalNumbers: cprNumbers(10) }))).detail).toContain(
        'one number per type',
      );
    });
  });

  it('accepts every limit itself', () => {
    const attrs = parseScimUser(
      userBody(
        {
          personalEmail: `${'q'.repeat(187)}@home.example`,
          personalPhone: '+123456789012345',
          identityDocumentReferences: documents(20).map((d, i) =>
            i === 0 ? { ...d, documentNumber: 'D'.repeat(64) } : d,
          ),
          directoryUserPrincipalName: `${'u'.repeat(1011)}@corp.example`,
        },
        { name: { givenName: 'g'.repeat(128), familyName: 'f'.repeat(128) } },
      ),
    );
    expect(attrs.personalEmail).toHaveLength(200);
    expect(attrs.personalPhone).toBe('+123456789012345');
    expect(attrs.identityDocumentReferences).toHaveLength(20);
    expect(attrs.identityDocumentReferences[0]?.documentNumber).toHaveLength(64);
    expect(attrs.directoryUserPrincipalName).toHaveLength(1024);
    expect(attrs.givenName).toHaveLength(128);
    expect(attrs.familyName).toHaveLength(128);
  });
});

describe('error details', () => {
  it('the brief example detail', () => {
    expect(errorOf(() => parseScimUser(userBody({ affiliatonType: 'x' }))).detail).toBe(
      `Unknown attribute 'affiliatonType' in the service extension ${EXT}`,
    );
  });

  it('a key that looks like a value is not shown', () => {
    const err = expectError(
      () => parseScimUser(userBody({ '0101901234': 'x' })),
      'invalidSyntax',
      undefined,
      '0101901234',
    );
    expect(err.detail).toContain('name not shown');
  });

  it('reports every problem of the body in one answer, with the scimType of the first and no value', () => {
    const err = errorOf(() =>
      parseScimUser(userBody({ nationality: 'QQ', personalPhone: 'bad-555' }, { userName: '' })),
    );
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toBe(
      `The User has 3 problems: userName must not be empty; ${EXT}:nationality must be an ISO 3166-1 alpha-2 country code; ` +
        `${EXT}:personalPhone must be an E.164 phone number (+, country code and number, at most 15 digits, no spaces)`,
    );
    expect(err.detail).not.toContain('QQ');
    expect(err.detail).not.toContain('bad-555');
  });

  it('lists an unknown extension attribute (invalidSyntax, first) beside the invalid values', () => {
    const err = errorOf(() =>
      parseScimUser(userBody({ affiliatonType: 'x', affiliationType: 'volunteer', birthDate: '31-12-1990' })),
    );
    expect(err.scimType).toBe('invalidSyntax');
    expect(err.detail).toMatch(/^The User has 3 problems: Unknown attribute 'affiliatonType' in the service extension/);
    expect(err.detail).toContain(`${EXT}:affiliationType must be one of`);
    expect(err.detail).toContain(`${EXT}:birthDate must be a real date`);
    expect(err.detail).not.toContain('volunteer');
    expect(err.detail).not.toContain('31-12-1990');
  });

  it('names a value that fails several rules once, and a single problem as itself', () => {
    expect(errorOf(() => parseScimUser(userBody({ birthDate: '' }))).detail).toBe(`${EXT}:birthDate must not be empty`);
  });

  it('a huge list is checked only one item past its limit, and the detail lists at most 20 problems', () => {
    const numbers = Array.from({ length: 50_000 }, () => ({ type: 'DkCpr', value: 'not-a-number' }));
    const err = errorOf(() => parseScimUser(userBody({ personalNumbers: numbers })));
    expect(err.detail).toMatch(/^The User has 12 problems: .*personalNumbers must have at most 10 items/);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`unknown${i}`, 'v']));
    const listed = errorOf(() => parseScimUser(userBody(many)));
    expect(listed.detail).toMatch(/^The User has 30 problems: /);
    expect(listed.detail).toMatch(/; and 10 more$/);
  });
});

describe('toIdentityAttributes on input that bypasses canonicalizeUser', () => {
  it('an unknown item key is still rejected (schema backstop)', () => {
    const user: ScimUserInput = {
      externalId: 'E-1',
      userName: 'u',
      name: { givenName: 'A', familyName: 'B' },
      [EXT]: { affiliationType: 'other', personalNumbers: [{ type: 'DkCpr', value: '0101901234', extra: 'Qx7' }] },
    };
    expectError(
      () => toIdentityAttributes(user),
      'invalidValue',
      `${EXT}:personalNumbers[0] has an unknown attribute 'extra'`,
      'Qx7',
    );
  });

  it('reads own properties only', () => {
    const inherited = Object.create({ userName: 'from-prototype' }) as JsonObject;
    Object.assign(inherited, {
      externalId: 'E-1',
      name: { givenName: 'A', familyName: 'B' },
      [EXT]: { affiliationType: 'other' },
    });
    expectError(() => toIdentityAttributes(inherited as ScimUserInput), 'invalidValue', 'userName is required');
  });
});

// ---- prototype safety -------------------------------------------------------------------

describe('prototype pollution', () => {
  const json = (text: string): unknown => JSON.parse(text);
  const rest = JSON.stringify(userBody()).slice(1); // without the leading '{'

  it('the fixtures really carry __proto__ as an own key', () => {
    expect(Object.keys(json(`{"__proto__":{"polluted":1},${rest}`) as object)).toContain('__proto__');
  });

  it.each<[string, string]>([
    ['__proto__', `{"__proto__":{"polluted":1,"userName":"x"},${rest}`],
    ['constructor', `{"constructor":{"prototype":{"polluted":1}},${rest}`],
    ['prototype', `{"prototype":{"polluted":1},${rest}`],
    [
      '__proto__ in name',
      `{"externalId":"E-1","userName":"anna@corp.example","name":{"__proto__":{"polluted":1},"givenName":"Anna","familyName":"Berg"},"${EXT}":{"affiliationType":"employment"}}`,
    ],
    [
      'constructor in name',
      `{"externalId":"E-1","userName":"anna@corp.example","name":{"constructor":{"prototype":{"polluted":1}},"givenName":"Anna","familyName":"Berg"},"${EXT}":{"affiliationType":"employment"}}`,
    ],
  ])('a top-level or name key %s is ignored and pollutes nothing', (_label, text) => {
    expect(parseScimUser(json(text))).toEqual(BASE);
    expect(pollution()).toEqual([undefined, undefined, undefined]);
  });

  it.each<[string, string]>([
    [
      '__proto__ under the extension',
      `{"${EXT}":{"__proto__":{"polluted":1},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`,
    ],
    [
      'constructor under the extension',
      `{"${EXT}":{"constructor":{"prototype":{"polluted":1}},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`,
    ],
    [
      'prototype under the extension',
      `{"${EXT}":{"prototype":{"polluted":1},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`,
    ],
    ['flattened <URN>:__proto__', `{"${EXT}:__proto__":{"polluted":1},${rest}`],
    [
      '__proto__ in a list item',
      `{"${EXT}":{"affiliationType":"employment","personalNumbers":[{"__proto__":{"polluted":1},"type":"DkCpr","value":"0101901234"}]},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`,
    ],
  ])('%s -> invalidSyntax, no pollution', (_label, text) => {
    expectError(() => parseScimUser(json(text)), 'invalidSyntax');
    expect(pollution()).toEqual([undefined, undefined, undefined]);
  });

  it('a value offered through __proto__ is not inherited', () => {
    const body = json(
      `{"__proto__":{"userName":"inherited"},"externalId":"E-1","name":{"givenName":"A","familyName":"B"},"${EXT}":{"affiliationType":"other"}}`,
    );
    expect((canonicalizeUser(body) as JsonObject).userName).toBeUndefined();
    expectError(() => parseScimUser(body), 'invalidValue', 'userName');
  });
});

// ---- the way back -----------------------------------------------------------------------

describe('identityToScimInput', () => {
  const FULL: IdentityAttributes = {
    externalId: 'E-9',
    userName: 'Bo@Corp.Example',
    givenName: 'Bo',
    familyName: 'Ek',
    active: false,
    affiliationType: 'engagement',
    birthDate: '1985-07-03',
    nationality: 'SE',
    personalEmail: 'bo@home.example',
    personalPhone: '+46701234567',
    personalNumbers: [{ type: 'DkCpr', value: '0307854321' }],
    identityDocumentReferences: [
      { type: 'Passport', issuingCountry: 'SE', documentNumber: 'AA1' },
      { type: 'IdentityCard', issuingCountry: 'DK', documentNumber: 'id-9' },
    ],
    directoryUserPrincipalName: 'bo@corp.example',
  };

  const { externalId, userName, givenName, familyName, active, ...extensionAttributes } = FULL;

  it.each<[string, IdentityAttributes]>([
    ['every attribute', FULL],
    ['required attributes only', BASE],
    [
      'inactive, lists only',
      {
        ...BASE,
        active: false,
        affiliationType: 'other',
        personalNumbers: [{ type: 'DkCpr', value: '1212121212' }],
        identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'DE', documentNumber: 'X' }],
      },
    ],
  ])('round-trips %s', (_label, attrs) => {
    expect(toIdentityAttributes(identityToScimInput(attrs))).toEqual(attrs);
    expect(parseScimUser(identityToScimInput(attrs))).toEqual(attrs);
    expect(toIdentityAttributes(canonicalizeUser(identityToScimInput(attrs)))).toEqual(attrs);
    expect(toIdentityAttributes(canonicalizeUser(identityToScimInput(attrs), 'patchResult'))).toEqual(attrs);
  });

  it.each<[string, IdentityAttributes, ScimUserInput]>([
    [
      'required attributes only, omitting absent optional ones',
      BASE,
      {
        externalId: 'E-1',
        userName: 'anna@corp.example',
        name: { givenName: 'Anna', familyName: 'Berg' },
        active: true,
        [EXT]: { affiliationType: 'employment', personalNumbers: [], identityDocumentReferences: [] },
      },
    ],
    [
      'every attribute, the extension holding all but the core ones',
      FULL,
      { externalId, userName, name: { givenName, familyName }, active, [EXT]: extensionAttributes },
    ],
  ])('has the canonical SCIM form: %s', (_label, attrs, expected) => {
    const scim = identityToScimInput(attrs);
    expect(scim).toEqual(expected);
    expect(Object.keys(scim[EXT] ?? {}).sort()).toEqual(Object.keys(expected[EXT] ?? {}).sort());
  });

  it('copies the lists, so changing the output does not change the input', () => {
    const attrs = structuredClone(FULL);
    const ext = identityToScimInput(attrs)[EXT] as {
      personalNumbers: Array<{ value: string }>;
      identityDocumentReferences: Array<{ documentNumber: string }>;
    };
    ext.personalNumbers[0]!.value = 'changed';
    ext.identityDocumentReferences[0]!.documentNumber = 'changed';
    expect(attrs).toEqual(FULL);
  });
});

describe('schemas of a POST or PUT body (spec §2.1)', () => {
  it.each<[string, unknown]>([
    ['both URNs', [CORE, EXT]],
    ['both URNs in other cases, with another extension', [CORE.toUpperCase(), EXT.toLowerCase(), ENTERPRISE]],
  ])('%s: accepted', (_label, schemas) => {
    expect(() => checkUserSchemas({ ...userBody(), schemas })).not.toThrow();
    const { schemas: _omitted, ...rest } = userBody();
    expect(() => checkUserSchemas({ ...rest, Schemas: schemas })).not.toThrow();
  });

  it.each<[string, unknown]>([
    ['missing', undefined],
    ['core only', [CORE]],
    ['extension only', [EXT]],
    ['a string', 'urn:Qx7'],
    ['not strings', [1, { urn: CORE }]],
  ])('%s: 400 invalidValue naming schemas', (_label, schemas) => {
    const err = expectError(() => checkUserSchemas({ ...userBody(), schemas }), 'invalidValue', 'schemas', 'Qx7');
    expect(err.status).toBe(400);
  });
});

describe('schemas inside the extension object', () => {
  it('is ignored (client libraries send it with the extension as a whole)', () => {
    expect(parseScimUser(userBody({ schemas: [EXT], SCHEMAS: 'x' }))).toEqual(BASE);
  });
});
