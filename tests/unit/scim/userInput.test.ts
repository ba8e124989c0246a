/**
 * lib/scim/userInput: canonical names (spec §2.1 rules 3-6), validation and normalisation
 * (rule 7, §8 limits), error details that never echo a value (§7.1), prototype safety.
 */
import { EXT, canonicalizeUser, identityToScimInput, parseScimUser, toIdentityAttributes } from '../../../lib/scim/userInput';
import type { JsonObject, ScimUserInput } from '../../../lib/scim/userInput';
import { ScimError } from '../../../lib/scim/errors';
import type { IdentityAttributes } from '../../../lib/identities/model';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

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

function errorOf(fn: () => unknown): ScimError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return err;
    throw err;
  }
  throw new Error('expected a ScimError');
}

function expectError(fn: () => unknown, scimType: string, named?: string, ...secrets: string[]): ScimError {
  const err = errorOf(fn);
  expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType });
  if (named !== undefined) expect(err.detail).toContain(named);
  for (const s of secrets) expect(err.detail).not.toContain(s);
  return err;
}

const pollution = (): unknown[] => ['polluted', 'userName', 'affiliationType'].map((k) => ({} as Record<string, unknown>)[k]);

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe('canonicalizeUser: attribute names in any case', () => {
  it.each<[string, JsonObject]>([
    ['UserName, EXTERNALID, Name.GivenName', { UserName: 'anna@corp.example', EXTERNALID: 'E-1', Name: { GivenName: 'Anna', FAMILYNAME: 'Berg' }, [EXT]: { affiliationType: 'employment' } }],
    ['all lower case', { username: 'anna@corp.example', externalid: 'E-1', name: { givenname: 'Anna', familyname: 'Berg' }, [EXT]: { affiliationtype: 'employment' } }],
    ['NAME.GIVENNAME keys', { userName: 'anna@corp.example', externalId: 'E-1', NAME: { GIVENNAME: 'Anna', FAMILYNAME: 'Berg' }, [EXT]: { affiliationType: 'employment' } }],
    ['extension URN in upper case', { userName: 'anna@corp.example', externalId: 'E-1', name: { givenName: 'Anna', familyName: 'Berg' }, [EXT.toUpperCase()]: { AFFILIATIONTYPE: 'employment' } }],
    ['extension URN in lower case', { userName: 'anna@corp.example', externalId: 'E-1', name: { givenName: 'Anna', familyName: 'Berg' }, [EXT.toLowerCase()]: { AffiliationType: 'employment' } }],
    ['core-URN-prefixed keys', { [`${CORE}:userName`]: 'anna@corp.example', [`${CORE.toLowerCase()}:EXTERNALID`]: 'E-1', [`${CORE}:name`]: { givenName: 'Anna', familyName: 'Berg' }, [EXT]: { affiliationType: 'employment' } }],
    ['flattened <URN>:affiliationType', { userName: 'anna@corp.example', externalId: 'E-1', name: { givenName: 'Anna', familyName: 'Berg' }, [`${EXT}:affiliationType`]: 'employment' }],
    ['flattened, URN and name in upper case', { userName: 'anna@corp.example', externalId: 'E-1', name: { givenName: 'Anna', familyName: 'Berg' }, [`${EXT.toUpperCase()}:AFFILIATIONTYPE`]: 'EMPLOYMENT' }],
  ])('%s', (_label, body) => {
    expect(parseScimUser(body)).toEqual(BASE);
  });

  it('every extension attribute and list item sub-attribute in any case', () => {
    const attrs = parseScimUser({
      ...userBody(),
      [EXT]: {
        AFFILIATIONTYPE: 'Employment',
        birthdate: '1990-01-01',
        Nationality: 'dk',
        PERSONALEMAIL: 'anna@home.example',
        personalphone: '+4522113344',
        PersonalNumbers: [{ TYPE: 'dkcpr', VALUE: '010190-1234' }],
        IDENTITYDOCUMENTREFERENCES: [{ Type: 'passport', IssuingCountry: 'se', DOCUMENTNUMBER: 'P-1' }],
        DIRECTORYUSERPRINCIPALNAME: 'anna@corp.example',
      },
    });
    expect(attrs).toEqual({
      ...BASE,
      birthDate: '1990-01-01',
      nationality: 'DK',
      personalEmail: 'anna@home.example',
      personalPhone: '+4522113344',
      personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'SE', documentNumber: 'P-1' }],
      directoryUserPrincipalName: 'anna@corp.example',
    });
  });

  it('merges the nested extension object with flattened extension keys', () => {
    expect(parseScimUser({ ...userBody(), [`${EXT}:nationality`]: 'no' })).toEqual({ ...BASE, nationality: 'NO' });
  });

  it('returns canonical names and coerced values only', () => {
    const out = canonicalizeUser({ USERNAME: 'u', externalID: 'e', Name: { GivenName: 'g', familyNAME: 'f', formatted: 'g f' }, Active: 'False', emails: [], [EXT.toUpperCase()]: { AffiliationType: 'OTHER' } }, 'put');
    expect(JSON.parse(JSON.stringify(out))).toEqual({ userName: 'u', externalId: 'e', name: { givenName: 'g', familyName: 'f' }, active: false, [EXT]: { affiliationType: 'other' } });
  });

  it('mode defaults to put', () => {
    expect(JSON.stringify(canonicalizeUser(userBody({ directoryLinkStatus: 'linked' })))).toBe(JSON.stringify(canonicalizeUser(userBody({ directoryLinkStatus: 'linked' }), 'put')));
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

describe('canonicalizeUser: ignored attributes (rules 3 and 4)', () => {
  it.each<[string, JsonObject, JsonObject]>([
    ['schemas, id and meta', {}, { schemas: ['anything'], id: 'server-id', meta: { version: 'W/"9"', resourceType: 'User' } }],
    ['ID and META in upper case', {}, { ID: 'x', META: { version: 'W/"1"' } }],
    ['read-only extension attributes', { directoryLinkStatus: 'linked', directoryLinkSource: 'manual', directoryLinkedUserId: 'u-1' }, {}],
    ['read-only extension attributes in other cases', { DIRECTORYLINKSTATUS: 'conflict', DirectoryLinkSource: 'asserted', directorylinkeduserid: 'u-2' }, {}],
    ['emails', {}, { emails: [{ type: 'work', value: 'anna@corp.example', primary: true }] }],
    ['displayName, title, phoneNumbers, addresses', {}, { displayName: 'Anna B', title: 'CTO', phoneNumbers: [{ value: '+4511111111' }], addresses: [{ locality: 'Aarhus' }] }],
    ['unlisted sub-attributes of name', {}, { name: { givenName: 'Anna', familyName: 'Berg', middleName: 'M', formatted: 'Anna M Berg' } }],
    ['enterprise extension object', {}, { [ENTERPRISE]: { employeeNumber: '42', manager: { value: 'boss' } } }],
    ['enterprise extension, flattened', {}, { [`${ENTERPRISE}:department`]: 'R&D' }],
    ['an unknown schema extension', {}, { 'urn:example:custom:1.0:User': { anything: true } }],
    ['bare extension attribute names at the top level (unlisted core attributes)', {}, { affiliationType: 'other', personalNumbers: 'not even a list' }],
  ])('%s', (_label, ext, core) => {
    expect(parseScimUser(userBody(ext, core))).toEqual(BASE);
  });

  it('a flattened read-only extension attribute is ignored', () => {
    expect(parseScimUser({ ...userBody(), [`${EXT}:directoryLinkStatus`]: 'linked' })).toEqual(BASE);
  });

  it.each<[string, JsonObject, string]>([
    ['read-only extension attribute', userBody({ directoryLinkStatus: 'linked' }), `${EXT}:directoryLinkStatus`],
    ['flattened read-only extension attribute', { ...userBody(), [`${EXT}:DIRECTORYLINKEDUSERID`]: 'x' }, `${EXT}:directoryLinkedUserId`],
    ['id', userBody({}, { id: 'x' }), 'id'],
    ['meta', userBody({}, { meta: {} }), 'meta'],
  ])('patchResult mode rejects a %s as mutability', (_label, body, named) => {
    expectError(() => canonicalizeUser(body, 'patchResult'), 'mutability', named);
  });
});

describe('canonicalizeUser: rejected input', () => {
  it.each<[string, unknown]>([
    ['array', [userBody()]],
    ['null', null],
    ['string', JSON.stringify(userBody())],
    ['number', 7],
    ['boolean', false],
    ['undefined', undefined],
  ])('%s body -> invalidSyntax', (_label, body) => {
    expectError(() => parseScimUser(body), 'invalidSyntax');
  });

  it.each<[string, JsonObject, string]>([
    ['misspelled affiliatonType', userBody({ affiliatonType: 'employment-Qx7' }), 'affiliatonType'],
    ['upper-case unknown name', userBody({ SHOESIZE: 'Qx7-44' }), 'SHOESIZE'],
    ['flattened unknown attribute', { ...userBody(), [`${EXT}:cprNumber`]: 'Qx7-0101901234' }, 'cprNumber'],
    ['flattened unknown attribute, upper-case URN', { ...userBody(), [`${EXT.toUpperCase()}:nickName`]: 'Qx7-Annie' }, 'nickName'],
  ])('unknown service-extension attribute (%s) -> invalidSyntax naming it, not its value', (_label, body, named) => {
    const err = expectError(() => parseScimUser(body), 'invalidSyntax', named, 'Qx7');
    expect(err.detail).toContain('service extension');
  });

  it('the brief example detail', () => {
    expect(errorOf(() => parseScimUser(userBody({ affiliatonType: 'x' }))).detail).toBe(`Unknown attribute 'affiliatonType' in the service extension ${EXT}`);
  });

  it('a key that looks like a value is not shown', () => {
    const err = expectError(() => parseScimUser(userBody({ '0101901234': 'x' })), 'invalidSyntax', undefined, '0101901234');
    expect(err.detail).toContain('name not shown');
  });

  it.each<[string, JsonObject]>([
    ['personalNumbers item', { personalNumbers: [{ type: 'DkCpr', value: '0101901234', issuer: 'Qx7-DK' }] }],
    ['identityDocumentReferences item', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1', expires: 'Qx7-2030' }] }],
  ])('unknown sub-attribute in a %s -> invalidSyntax', (_label, ext) => {
    expectError(() => parseScimUser(userBody(ext)), 'invalidSyntax', `${EXT}:`, 'Qx7');
  });

  it.each<[string, unknown]>([
    ['a string', 'employment'],
    ['an array', [{ affiliationType: 'employment' }]],
    ['null', null],
  ])('an extension value that is %s -> invalidValue naming the extension', (_label, ext) => {
    expectError(() => parseScimUser({ ...userBody(), [EXT]: ext }), 'invalidValue', EXT);
  });
});

describe('value variants (rule 6)', () => {
  it.each<[unknown, boolean]>([
    ['True', true],
    ['true', true],
    ['TRUE', true],
    ['False', false],
    ['false', false],
    ['fAlSe', false],
    [true, true],
    [false, false],
  ])('active %j -> %s', (active, expected) => {
    expect(parseScimUser(userBody({}, { active })).active).toBe(expected);
  });

  it.each<[unknown]>([['yes'], ['1'], [0], [''], [{}]])('active %j -> invalidValue naming active', (active) => {
    expectError(() => parseScimUser(userBody({}, { active })), 'invalidValue', 'active');
  });

  it.each<[string, IdentityAttributes['affiliationType']]>([
    ['EMPLOYMENT', 'employment'],
    ['Enrollment', 'enrollment'],
    ['engagement', 'engagement'],
    ['OTHER', 'other'],
  ])('affiliationType %s -> %s', (input, expected) => {
    expect(parseScimUser(userBody({ affiliationType: input })).affiliationType).toBe(expected);
  });

  it.each<[string]>([['dkcpr'], ['DKCPR'], ['DkCpr'], ['dKcPr']])('personalNumbers type %s -> DkCpr', (type) => {
    expect(parseScimUser(userBody({ personalNumbers: [{ type, value: '0101901234' }] })).personalNumbers).toEqual([{ type: 'DkCpr', value: '0101901234' }]);
  });

  it.each<[string, string]>([
    ['passport', 'Passport'],
    ['PASSPORT', 'Passport'],
    ['identitycard', 'IdentityCard'],
    ['IDENTITYCARD', 'IdentityCard'],
  ])('document type %s -> %s', (type, expected) => {
    expect(parseScimUser(userBody({ identityDocumentReferences: [{ type, issuingCountry: 'DK', documentNumber: 'D1' }] })).identityDocumentReferences[0]?.type).toBe(expected);
  });
});

describe('validation and normalisation (rule 7)', () => {
  it('normalises: CPR without dash, country codes upper case; keeps other values as sent', () => {
    const attrs = parseScimUser(
      userBody(
        {
          nationality: 'dk',
          birthDate: '2024-02-29',
          personalEmail: 'Anna@Home.Example',
          personalNumbers: [{ type: 'DkCpr', value: '290200-4321' }],
          identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'de', documentNumber: ' ab-12Cd ' }],
        },
        { name: { givenName: ' Anna ', familyName: 'Berg' }, externalId: ' E-1 ' },
      ),
    );
    expect(attrs).toMatchObject({
      externalId: ' E-1 ',
      givenName: ' Anna ',
      nationality: 'DK',
      birthDate: '2024-02-29',
      personalEmail: 'Anna@Home.Example',
      personalNumbers: [{ type: 'DkCpr', value: '2902004321' }],
      identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'DE', documentNumber: ' ab-12Cd ' }],
    });
  });

  it('attributes not sent are absent and lists are empty', () => {
    const attrs = parseScimUser(userBody());
    expect(attrs).toEqual(BASE);
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(BASE).sort());
  });

  it('null for every optional attribute means absent', () => {
    const optional = { birthDate: null, nationality: null, personalEmail: null, personalPhone: null, personalNumbers: null, identityDocumentReferences: null, directoryUserPrincipalName: null };
    const attrs = parseScimUser(userBody(optional, { active: null }));
    expect(attrs).toEqual(BASE);
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(BASE).sort());
  });

  it('an empty directoryUserPrincipalName means not asserted', () => {
    const attrs = parseScimUser(userBody({ directoryUserPrincipalName: '' }));
    expect(attrs).not.toHaveProperty('directoryUserPrincipalName');
  });

  it('accepts a UPN and keeps it as sent', () => {
    expect(parseScimUser(userBody({ directoryUserPrincipalName: 'Anna.Berg@Corp.Example' })).directoryUserPrincipalName).toBe('Anna.Berg@Corp.Example');
  });

  const without = (key: string): JsonObject => {
    const body = userBody();
    delete body[key];
    return body;
  };

  it.each<[string, JsonObject, string]>([
    ['externalId missing', without('externalId'), 'externalId'],
    ['userName missing', without('userName'), 'userName'],
    ['name missing', without('name'), 'name'],
    ['the extension missing', without(EXT), EXT],
    ['name.givenName missing', userBody({}, { name: { familyName: 'Berg' } }), 'name.givenName'],
    ['name.familyName missing', userBody({}, { name: { givenName: 'Anna' } }), 'name.familyName'],
    ['affiliationType missing', userBody({ affiliationType: undefined }), `${EXT}:affiliationType`],
    ['externalId null', userBody({}, { externalId: null }), 'externalId'],
    ['externalId empty', userBody({}, { externalId: '' }), 'externalId'],
    ['userName empty', userBody({}, { userName: '' }), 'userName'],
    ['userName not a string', userBody({}, { userName: 42 }), 'userName'],
    ['givenName empty', userBody({}, { name: { givenName: '', familyName: 'Berg' } }), 'name.givenName'],
    ['familyName null', userBody({}, { name: { givenName: 'Anna', familyName: null } }), 'name.familyName'],
    ['name not an object', userBody({}, { name: 'Anna Berg' }), 'name'],
    ['affiliationType null', userBody({ affiliationType: null }), `${EXT}:affiliationType`],
    ['personalNumbers[0].type missing', userBody({ personalNumbers: [{ value: '0101901234' }] }), `${EXT}:personalNumbers[0].type`],
    ['personalNumbers[0].value missing', userBody({ personalNumbers: [{ type: 'DkCpr' }] }), `${EXT}:personalNumbers[0].value`],
    ['identityDocumentReferences[0].issuingCountry missing', userBody({ identityDocumentReferences: [{ type: 'Passport', documentNumber: 'P1' }] }), `${EXT}:identityDocumentReferences[0].issuingCountry`],
    ['personalNumbers not a list', userBody({ personalNumbers: { type: 'DkCpr', value: '0101901234' } }), `${EXT}:personalNumbers`],
    ['a list item not an object', userBody({ identityDocumentReferences: ['P1'] }), `${EXT}:identityDocumentReferences[0]`],
  ])('%s -> invalidValue naming it', (_label, body, named) => {
    expectError(() => parseScimUser(body), 'invalidValue', named);
  });

  const elevenNumbers = Array.from({ length: 11 }, () => ({ type: 'DkCpr', value: '0101901234' }));
  const docs = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'Passport', issuingCountry: 'DK', documentNumber: `Doc-${i}` }));

  it.each<[string, JsonObject, JsonObject, string, string[]]>([
    ['CPR 3213999999', { personalNumbers: [{ type: 'DkCpr', value: '3213999999' }] }, {}, `${EXT}:personalNumbers[0].value must be a valid CPR number`, ['3213999999']],
    ['CPR with letters', { personalNumbers: [{ type: 'DkCpr', value: 'DISTINCT42' }] }, {}, `${EXT}:personalNumbers[0].value`, ['DISTINCT42']],
    ['CPR with two dashes', { personalNumbers: [{ type: 'DkCpr', value: '01-0190-1234' }] }, {}, `${EXT}:personalNumbers[0].value`, ['01-0190-1234']],
    ['personal number type', { personalNumbers: [{ type: 'SeDistinct', value: '0101901234' }] }, {}, `${EXT}:personalNumbers[0].type`, ['SeDistinct', '0101901234']],
    ['phone +45 123 DISTINCT', { personalPhone: '+45 123 DISTINCT' }, {}, `${EXT}:personalPhone`, ['DISTINCT', '+45 123']],
    ['phone of 16 digits', { personalPhone: '+4512345678901234' }, {}, `${EXT}:personalPhone`, ['+4512345678901234']],
    ['email x@@distinct', { personalEmail: 'x@@distinct' }, {}, `${EXT}:personalEmail`, ['distinct']],
    ['email of 201 characters', { personalEmail: `${'q'.repeat(188)}@home.example` }, {}, `${EXT}:personalEmail must be at most 200 characters`, ['qqqq']],
    ['nationality QQ', { nationality: 'QQ' }, {}, `${EXT}:nationality`, ["'QQ'", '"QQ"', ' QQ']],
    ['nationality of three letters', { nationality: 'DNK' }, {}, `${EXT}:nationality`, ['DNK']],
    ['issuingCountry QQ', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'QQ', documentNumber: 'DOC-DISTINCT-1' }] }, {}, `${EXT}:identityDocumentReferences[0].issuingCountry`, ['DOC-DISTINCT-1', ' QQ']],
    ['document without number', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK' }] }, {}, `${EXT}:identityDocumentReferences[0].documentNumber is required`, ['Passport']],
    ['empty document number', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: '' }] }, {}, `${EXT}:identityDocumentReferences[0].documentNumber must not be empty`, []],
    ['document number of 65 characters', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: `Z${'9'.repeat(64)}` }] }, {}, `${EXT}:identityDocumentReferences[0].documentNumber must be at most 64 characters`, ['Z999']],
    ['document type', { identityDocumentReferences: [{ type: 'DriversDistinct', issuingCountry: 'DK', documentNumber: 'DOC-DISTINCT-2' }] }, {}, `${EXT}:identityDocumentReferences[0].type`, ['DriversDistinct', 'DOC-DISTINCT-2']],
    ['birthDate 1999-02-30', { birthDate: '1999-02-30' }, {}, `${EXT}:birthDate`, ['1999-02-30']],
    ['birthDate DD-MM-YYYY', { birthDate: '30-01-1999' }, {}, `${EXT}:birthDate`, ['30-01-1999']],
    ['affiliationType contractor', { affiliationType: 'Contractor-Distinct' }, {}, `${EXT}:affiliationType must be one of employment, enrollment, engagement, other`, ['ontractor-Distinct', 'contractor-distinct']],
    ['UPN with a space', { directoryUserPrincipalName: 'anna distinct@corp.example' }, {}, `${EXT}:directoryUserPrincipalName`, ['distinct']],
    ['UPN without @', { directoryUserPrincipalName: 'anna.distinct.example' }, {}, `${EXT}:directoryUserPrincipalName`, ['distinct']],
    ['UPN of 1025 characters', { directoryUserPrincipalName: `${'u'.repeat(1012)}@corp.example` }, {}, `${EXT}:directoryUserPrincipalName must be at most 1024 characters`, ['uuuu']],
    ['givenName of 129 characters', {}, { name: { givenName: `G${'w'.repeat(128)}`, familyName: 'Berg' } }, 'name.givenName must be at most 128 characters', ['Gwww']],
    ['familyName of 129 characters', {}, { name: { givenName: 'Anna', familyName: `F${'v'.repeat(128)}` } }, 'name.familyName must be at most 128 characters', ['Fvvv']],
    ['11 personal numbers', { personalNumbers: elevenNumbers }, {}, `${EXT}:personalNumbers must have at most 10 items`, ['0101901234']],
    ['21 document references', { identityDocumentReferences: docs(21) }, {}, `${EXT}:identityDocumentReferences must have at most 20 items`, ['Doc-']],
    ['duplicate personal number type', { personalNumbers: [{ type: 'DkCpr', value: '0101901234' }, { type: 'dkcpr', value: '020290-4321' }] }, {}, `${EXT}:personalNumbers[1]`, ['0101901234', '020290-4321', '0202904321']],
  ])('%s -> invalidValue naming the path, without the value', (_label, ext, core, named, secrets) => {
    const err = expectError(() => parseScimUser(userBody(ext, core)), 'invalidValue', named, ...secrets);
    expect(err.message).toBe(err.detail);
  });

  it('duplicate personal number type says one number per type', () => {
    expect(errorOf(() => parseScimUser(userBody({ personalNumbers: [{ type: 'DkCpr', value: '0101901234' }, { type: 'DkCpr', value: '0202904321' }] }))).detail).toContain('one number per type');
  });

  it('accepts every limit itself', () => {
    const attrs = parseScimUser(
      userBody(
        {
          personalEmail: `${'q'.repeat(187)}@home.example`,
          personalPhone: '+123456789012345',
          identityDocumentReferences: docs(20).map((d, i) => (i === 0 ? { ...d, documentNumber: 'D'.repeat(64) } : d)),
          directoryUserPrincipalName: `${'u'.repeat(1011)}@corp.example`,
        },
        { name: { givenName: 'g'.repeat(128), familyName: 'f'.repeat(128) } },
      ),
    );
    expect(attrs.personalEmail).toHaveLength(200);
    expect(attrs.identityDocumentReferences).toHaveLength(20);
    expect(attrs.identityDocumentReferences[0]?.documentNumber).toHaveLength(64);
    expect(attrs.directoryUserPrincipalName).toHaveLength(1024);
    expect(attrs.givenName).toHaveLength(128);
  });

  it('reports only the first problem', () => {
    const err = errorOf(() => parseScimUser(userBody({ nationality: 'QQ', personalPhone: 'bad' }, { userName: '' })));
    expect(err.detail).toBe('userName must not be empty');
  });

  it('an unknown item key that bypasses canonicalizeUser is still rejected (schema backstop)', () => {
    const user: ScimUserInput = { externalId: 'E-1', userName: 'u', name: { givenName: 'A', familyName: 'B' }, [EXT]: { affiliationType: 'other', personalNumbers: [{ type: 'DkCpr', value: '0101901234', extra: 'Qx7' }] } };
    expectError(() => toIdentityAttributes(user), 'invalidValue', `${EXT}:personalNumbers[0] has an unknown attribute 'extra'`, 'Qx7');
  });

  it('toIdentityAttributes reads own properties only', () => {
    const inherited = Object.create({ userName: 'from-prototype' }) as JsonObject;
    Object.assign(inherited, { externalId: 'E-1', name: { givenName: 'A', familyName: 'B' }, [EXT]: { affiliationType: 'other' } });
    expectError(() => toIdentityAttributes(inherited as ScimUserInput), 'invalidValue', 'userName is required');
  });
});

describe('prototype pollution', () => {
  const json = (text: string): unknown => JSON.parse(text);
  const rest = JSON.stringify(userBody()).slice(1);

  it.each<[string, string]>([
    ['__proto__', `{"__proto__":{"polluted":1,"userName":"x"},${rest}`],
    ['constructor', `{"constructor":{"prototype":{"polluted":1}},${rest}`],
    ['prototype', `{"prototype":{"polluted":1},${rest}`],
    ['__proto__ in name', `{"externalId":"E-1","userName":"anna@corp.example","name":{"__proto__":{"polluted":1},"givenName":"Anna","familyName":"Berg"},"${EXT}":{"affiliationType":"employment"}}`],
    ['constructor in name', `{"externalId":"E-1","userName":"anna@corp.example","name":{"constructor":{"prototype":{"polluted":1}},"givenName":"Anna","familyName":"Berg"},"${EXT}":{"affiliationType":"employment"}}`],
  ])('a top-level or name key %s is ignored and pollutes nothing', (_label, text) => {
    expect(parseScimUser(json(text))).toEqual(BASE);
    expect(pollution()).toEqual([undefined, undefined, undefined]);
  });

  it.each<[string, string]>([
    ['__proto__ under the extension', `{"${EXT}":{"__proto__":{"polluted":1},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`],
    ['constructor under the extension', `{"${EXT}":{"constructor":{"prototype":{"polluted":1}},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`],
    ['prototype under the extension', `{"${EXT}":{"prototype":{"polluted":1},"affiliationType":"employment"},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`],
    ['flattened <URN>:__proto__', `{"${EXT}:__proto__":{"polluted":1},${rest}`],
    ['__proto__ in a list item', `{"${EXT}":{"affiliationType":"employment","personalNumbers":[{"__proto__":{"polluted":1},"type":"DkCpr","value":"0101901234"}]},"externalId":"E-1","userName":"u","name":{"givenName":"A","familyName":"B"}}`],
  ])('%s -> invalidSyntax, no pollution', (_label, text) => {
    expectError(() => parseScimUser(json(text)), 'invalidSyntax');
    expect(pollution()).toEqual([undefined, undefined, undefined]);
  });

  it('a value offered through __proto__ is not inherited', () => {
    const body = json(`{"__proto__":{"userName":"inherited"},"externalId":"E-1","name":{"givenName":"A","familyName":"B"},"${EXT}":{"affiliationType":"other"}}`);
    expect((canonicalizeUser(body) as JsonObject).userName).toBeUndefined();
    expectError(() => parseScimUser(body), 'invalidValue', 'userName');
  });
});

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
    identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'SE', documentNumber: 'AA1' }],
    directoryUserPrincipalName: 'bo@corp.example',
  };

  it.each<[string, IdentityAttributes]>([
    ['every attribute', FULL],
    ['required attributes only', BASE],
  ])('round-trips %s', (_label, attrs) => {
    expect(toIdentityAttributes(identityToScimInput(attrs))).toEqual(attrs);
    expect(parseScimUser(identityToScimInput(attrs))).toEqual(attrs);
    expect(toIdentityAttributes(canonicalizeUser(identityToScimInput(attrs), 'patchResult'))).toEqual(attrs);
  });

  it('has the canonical shape and omits absent optional attributes', () => {
    expect(identityToScimInput(BASE)).toEqual({
      externalId: 'E-1',
      userName: 'anna@corp.example',
      name: { givenName: 'Anna', familyName: 'Berg' },
      active: true,
      [EXT]: { affiliationType: 'employment', personalNumbers: [], identityDocumentReferences: [] },
    });
    expect(Object.keys(identityToScimInput(BASE)[EXT] ?? {}).sort()).toEqual(['affiliationType', 'identityDocumentReferences', 'personalNumbers']);
  });

  it('copies the list items', () => {
    const attrs = structuredClone(FULL);
    const ext = identityToScimInput(attrs)[EXT] as { personalNumbers: Array<{ value: string }> };
    ext.personalNumbers[0]!.value = 'changed';
    expect(attrs).toEqual(FULL);
  });
});
