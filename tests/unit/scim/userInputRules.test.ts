/**
 * SCIM User input rules (spec §2.1, §7.1): accepted variants, ignored attributes, rejected
 * attributes, value formats, and that error details never echo the rejected value.
 */
import { EXT, canonicalizeUser, identityToScimInput, parseScimUser, toIdentityAttributes } from '../../../lib/scim/userInput';
import type { JsonObject } from '../../../lib/scim/userInput';
import { ScimError } from '../../../lib/scim/errors';
import type { IdentityAttributes } from '../../../lib/identities/model';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A minimal valid User body; `ext` entries are merged into the service extension. */
function userBody(ext: JsonObject = {}, core: JsonObject = {}): JsonObject {
  return {
    schemas: [CORE, EXT],
    externalId: 'E-1001',
    userName: 'anna@corp.example',
    name: { givenName: 'Anna', familyName: 'Hansen' },
    [EXT]: { affiliationType: 'employment', ...ext },
    ...core,
  };
}

const BASE_ATTRIBUTES: IdentityAttributes = {
  externalId: 'E-1001',
  userName: 'anna@corp.example',
  givenName: 'Anna',
  familyName: 'Hansen',
  active: true,
  affiliationType: 'employment',
  personalNumbers: [],
  identityDocumentReferences: [],
};

function scimErrorOf(fn: () => unknown): ScimError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return err;
    throw err;
  }
  throw new Error('expected a ScimError');
}

const polluted = (): unknown => ({} as Record<string, unknown>).polluted;

afterEach(() => {
  // A failed pollution test must not leak into other tests.
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe('attribute names in any letter case', () => {
  it.each<[string, JsonObject]>([
    ['UserName / EXTERNALID / NAME.GIVENNAME', { UserName: 'anna@corp.example', EXTERNALID: 'E-1001', NAME: { GIVENNAME: 'Anna', FamilyName: 'Hansen' }, [EXT]: { affiliationType: 'employment' } }],
    ['all lower case', { username: 'anna@corp.example', externalid: 'E-1001', name: { givenname: 'Anna', familyname: 'Hansen' }, [EXT]: { affiliationType: 'employment' } }],
    ['core URN prefixed keys', { [`${CORE}:userName`]: 'anna@corp.example', [`${CORE.toUpperCase()}:EXTERNALID`]: 'E-1001', [`${CORE}:name`]: { givenName: 'Anna', familyName: 'Hansen' }, [EXT]: { affiliationType: 'employment' } }],
    ['extension URN key in upper case', { userName: 'anna@corp.example', externalId: 'E-1001', name: { givenName: 'Anna', familyName: 'Hansen' }, [EXT.toUpperCase()]: { affiliationType: 'employment' } }],
    ['extension URN key in lower case', { userName: 'anna@corp.example', externalId: 'E-1001', name: { givenName: 'Anna', familyName: 'Hansen' }, [EXT.toLowerCase()]: { AFFILIATIONTYPE: 'employment' } }],
    ['extension attribute names in any case', { userName: 'anna@corp.example', externalId: 'E-1001', name: { givenName: 'Anna', familyName: 'Hansen' }, [EXT]: { AffiliationType: 'employment' } }],
    ['flattened <URN>:affiliationType key', { userName: 'anna@corp.example', externalId: 'E-1001', name: { givenName: 'Anna', familyName: 'Hansen' }, [`${EXT}:affiliationType`]: 'employment' }],
    ['flattened key, URN and name upper case', { userName: 'anna@corp.example', externalId: 'E-1001', name: { givenName: 'Anna', familyName: 'Hansen' }, [`${EXT.toUpperCase()}:AFFILIATIONTYPE`]: 'employment' }],
  ])('%s', (_label, body) => {
    expect(parseScimUser(body)).toEqual(BASE_ATTRIBUTES);
  });

  it('maps case variants of every extension attribute and of list item keys to canonical names', () => {
    const attrs = parseScimUser({
      externalId: 'E-1001',
      userName: 'anna@corp.example',
      name: { givenName: 'Anna', familyName: 'Hansen' },
      [EXT]: {
        AFFILIATIONTYPE: 'employment',
        BirthDate: '1990-01-01',
        NATIONALITY: 'dk',
        personalemail: 'anna@home.example',
        PersonalPhone: '+4522113344',
        PERSONALNUMBERS: [{ TYPE: 'DkCpr', Value: '0101901234' }],
        identitydocumentreferences: [{ Type: 'Passport', ISSUINGCOUNTRY: 'DK', DocumentNumber: 'P-77' }],
        DirectoryUserPrincipalName: 'anna@corp.example',
      },
    });
    expect(attrs).toEqual({
      ...BASE_ATTRIBUTES,
      birthDate: '1990-01-01',
      nationality: 'DK',
      personalEmail: 'anna@home.example',
      personalPhone: '+4522113344',
      personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-77' }],
      directoryUserPrincipalName: 'anna@corp.example',
    });
  });

  it('merges a nested extension object with flattened extension keys', () => {
    const body = { ...userBody(), [`${EXT}:birthDate`]: '1990-01-01' };
    expect(parseScimUser(body)).toEqual({ ...BASE_ATTRIBUTES, birthDate: '1990-01-01' });
  });

  it('canonicalizeUser returns canonical names only', () => {
    const out = canonicalizeUser({ USERNAME: 'u', ExternalId: 'e', Name: { GivenName: 'g', FAMILYNAME: 'f' }, Active: 'TRUE', [EXT.toUpperCase()]: { AffiliationType: 'OTHER' } });
    expect(JSON.parse(JSON.stringify(out))).toEqual({ userName: 'u', externalId: 'e', name: { givenName: 'g', familyName: 'f' }, active: true, [EXT]: { affiliationType: 'other' } });
  });
});

describe('value variants', () => {
  it.each<[unknown, boolean]>([
    ['True', true],
    ['true', true],
    ['TRUE', true],
    [' true ', true],
    ['False', false],
    ['false', false],
    ['FALSE', false],
    [true, true],
    [false, false],
  ])('active %j -> %s', (active, expected) => {
    expect(parseScimUser(userBody({}, { active })).active).toBe(expected);
  });

  it.each<[unknown]>([['yes'], ['0'], [1], ['']])('active %j is rejected as invalidValue naming active', (active) => {
    const err = scimErrorOf(() => parseScimUser(userBody({}, { active })));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain('active');
  });

  it('active defaults to true', () => {
    expect(parseScimUser(userBody()).active).toBe(true);
  });

  it.each<[string, IdentityAttributes['affiliationType']]>([
    ['EMPLOYMENT', 'employment'],
    ['Employment', 'employment'],
    ['enrollment', 'enrollment'],
    ['ENROLLMENT', 'enrollment'],
    ['Engagement', 'engagement'],
    ['oThEr', 'other'],
  ])('affiliationType %s -> %s', (input, expected) => {
    expect(parseScimUser(userBody({ affiliationType: input })).affiliationType).toBe(expected);
  });

  it.each<[string, string, string]>([
    ['dkcpr', '010190-1234', '0101901234'],
    ['DKCPR', '0101901234', '0101901234'],
    ['DkCpr', '311299-4321', '3112994321'],
  ])('personalNumbers type %s value %s -> DkCpr %s', (type, value, expected) => {
    expect(parseScimUser(userBody({ personalNumbers: [{ type, value }] })).personalNumbers).toEqual([{ type: 'DkCpr', value: expected }]);
  });

  it.each<[string, string]>([
    ['identitycard', 'IdentityCard'],
    ['IDENTITYCARD', 'IdentityCard'],
    ['passport', 'Passport'],
    ['PASSPORT', 'Passport'],
  ])('document type %s -> %s', (type, expected) => {
    const attrs = parseScimUser(userBody({ identityDocumentReferences: [{ type, issuingCountry: 'DK', documentNumber: 'D-1' }] }));
    expect(attrs.identityDocumentReferences).toEqual([{ type: expected, issuingCountry: 'DK', documentNumber: 'D-1' }]);
  });

  it.each<[string, string]>([
    ['dk', 'DK'],
    ['Se', 'SE'],
    ['DE', 'DE'],
  ])('country %s -> %s for nationality and issuingCountry', (input, expected) => {
    const attrs = parseScimUser(userBody({ nationality: input, identityDocumentReferences: [{ type: 'Passport', issuingCountry: input, documentNumber: 'D-1' }] }));
    expect(attrs.nationality).toBe(expected);
    expect(attrs.identityDocumentReferences[0]?.issuingCountry).toBe(expected);
  });

  it('keeps the documentNumber exactly as sent (case-exact)', () => {
    const attrs = parseScimUser(userBody({ identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'ab-12Cd' }] }));
    expect(attrs.identityDocumentReferences[0]?.documentNumber).toBe('ab-12Cd');
  });
});

describe('ignored attributes', () => {
  it.each<[string, JsonObject, JsonObject]>([
    ['read-only extension attributes', { directoryLinkStatus: 'linked', directoryLinkSource: 'manual', directoryLinkedUserId: '0000-1111' }, {}],
    ['read-only extension attributes in other cases', { DIRECTORYLINKSTATUS: 'conflict', DirectoryLinkSource: 'asserted', directorylinkeduserid: 'x' }, {}],
    ['id, meta and schemas', {}, { id: 'server-id', meta: { resourceType: 'User', version: 'W/"3"' }, schemas: ['bogus'] }],
    ['ID and META in upper case', {}, { ID: 'server-id', META: { version: 'W/"3"' } }],
    ['emails, displayName, title, phoneNumbers', {}, { emails: [{ type: 'work', value: 'anna@corp.example', primary: true }], displayName: 'Anna H', title: 'CTO', phoneNumbers: [{ value: '+4511111111' }] }],
    ['name.formatted and name.middleName', {}, { name: { givenName: 'Anna', familyName: 'Hansen', formatted: 'Anna Hansen', middleName: 'M' } }],
    ['enterprise extension as object', {}, { [ENTERPRISE]: { employeeNumber: '42', manager: { value: 'm' } } }],
    ['enterprise extension flattened', {}, { [`${ENTERPRISE}:department`]: 'R&D' }],
    ['another unknown extension', {}, { 'urn:example:custom:1.0:User': { anything: true } }],
  ])('%s', (_label, ext, core) => {
    expect(parseScimUser(userBody(ext, core))).toEqual(BASE_ATTRIBUTES);
    const canonical = canonicalizeUser(userBody(ext, core)) as JsonObject;
    expect(Object.keys(canonical).sort()).toEqual(['externalId', 'name', 'userName', EXT].sort());
    expect(Object.keys(canonical.name as JsonObject).sort()).toEqual(['familyName', 'givenName']);
    expect(Object.keys(canonical[EXT] as JsonObject)).toEqual(['affiliationType']);
  });

  it('flattened read-only extension attributes are ignored', () => {
    expect(parseScimUser({ ...userBody(), [`${EXT}:directoryLinkStatus`]: 'linked' })).toEqual(BASE_ATTRIBUTES);
  });
});

describe('unknown service-extension attributes', () => {
  it.each<[string, JsonObject]>([
    ['nested misspelled name', { ...userBody(), [EXT]: { affiliationType: 'employment', birthdayDate: '1990-01-01' } }],
    ['nested name in upper case', { ...userBody(), [EXT]: { affiliationType: 'employment', FAVOURITECOLOUR: 'blue' } }],
    ['flattened key', { ...userBody(), [`${EXT}:personalMail`]: 'a@b.example' }],
    ['flattened key, upper-case URN', { ...userBody(), [`${EXT.toUpperCase()}:nickName`]: 'Ann' }],
  ])('%s -> 400 invalidSyntax', (_label, body) => {
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
  });

  it('names the attribute in the detail, not its value', () => {
    const err = scimErrorOf(() => parseScimUser(userBody({ secretField: 'Vq7-hidden-Value' })));
    expect(err.scimType).toBe('invalidSyntax');
    expect(err.detail).toContain('secretField');
    expect(err.detail).not.toContain('Vq7-hidden-Value');
  });

  it.each<[string, JsonObject]>([
    ['personalNumbers item', { personalNumbers: [{ type: 'DkCpr', value: '0101901234', country: 'DK' }] }],
    ['identityDocumentReferences item', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1', expires: '2030-01-01' }] }],
  ])('unknown key in a %s -> 400 invalidSyntax', (_label, ext) => {
    const err = scimErrorOf(() => parseScimUser(userBody(ext)));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
  });
});

describe('body shape', () => {
  it.each<[string, unknown]>([
    ['array', [userBody()]],
    ['empty array', []],
    ['null', null],
    ['string', JSON.stringify(userBody())],
    ['number', 42],
    ['boolean', true],
    ['undefined', undefined],
  ])('%s body -> 400 invalidSyntax', (_label, body) => {
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
  });

  it.each<[string, unknown]>([
    ['string', 'employment'],
    ['array', [{ affiliationType: 'employment' }]],
    ['null', null],
  ])('extension value that is a %s -> 400 invalidValue', (_label, ext) => {
    const err = scimErrorOf(() => parseScimUser({ ...userBody(), [EXT]: ext }));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(EXT);
  });
});

describe('required attributes', () => {
  const without = (key: string): JsonObject => {
    const body = userBody();
    delete body[key];
    return body;
  };
  it.each<[string, JsonObject, string]>([
    ['externalId', without('externalId'), 'externalId'],
    ['userName', without('userName'), 'userName'],
    ['name', without('name'), 'name'],
    ['name.givenName', userBody({}, { name: { familyName: 'Hansen' } }), 'name.givenName'],
    ['name.familyName', userBody({}, { name: { givenName: 'Anna' } }), 'name.familyName'],
    ['the service extension', without(EXT), EXT],
    ['affiliationType', { ...userBody(), [EXT]: { birthDate: '1990-01-01' } }, `${EXT}:affiliationType`],
    ['personalNumbers[0].type', userBody({ personalNumbers: [{ value: '0101901234' }] }), `${EXT}:personalNumbers[0].type`],
    ['personalNumbers[0].value', userBody({ personalNumbers: [{ type: 'DkCpr' }] }), `${EXT}:personalNumbers[0].value`],
    ['identityDocumentReferences[0].issuingCountry', userBody({ identityDocumentReferences: [{ type: 'Passport', documentNumber: 'P1' }] }), `${EXT}:identityDocumentReferences[0].issuingCountry`],
    ['identityDocumentReferences[0].documentNumber', userBody({ identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK' }] }), `${EXT}:identityDocumentReferences[0].documentNumber`],
  ])('missing %s -> 400 invalidValue naming it', (_label, body, named) => {
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
  });

  it.each<[string, JsonObject, string]>([
    ['externalId null', userBody({}, { externalId: null }), 'externalId'],
    ['userName empty', userBody({}, { userName: '' }), 'userName'],
    ['externalId empty', userBody({}, { externalId: '' }), 'externalId'],
    ['givenName empty', userBody({}, { name: { givenName: '', familyName: 'Hansen' } }), 'name.givenName'],
    ['familyName null', userBody({}, { name: { givenName: 'Anna', familyName: null } }), 'name.familyName'],
    ['affiliationType null', userBody({ affiliationType: null }), `${EXT}:affiliationType`],
    ['userName a number', userBody({}, { userName: 12345 }), 'userName'],
  ])('%s -> 400 invalidValue naming it', (_label, body, named) => {
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
  });
});

describe('value formats: detail names the attribute and never shows the value', () => {
  const elevenNumbers = Array.from({ length: 11 }, (_, i) => ({ type: 'DkCpr', value: `${String(i + 10)}0390-5${String(i + 10)}7` }));
  const email201 = `${'k7q'.padEnd(188, 'x')}@home.example`;

  it('the over-long email fixture is 201 characters of valid shape', () => {
    expect(email201).toHaveLength(201);
    expect(parseScimUser(userBody({ personalEmail: email201.slice(1) })).personalEmail).toBe(email201.slice(1));
  });

  it.each<[string, JsonObject, string, string[]]>([
    ['CPR with an impossible date', { personalNumbers: [{ type: 'DkCpr', value: '3102857319' }] }, `${EXT}:personalNumbers[0].value`, ['3102857319']],
    ['CPR with an impossible date, dashed', { personalNumbers: [{ type: 'DkCpr', value: '310285-7319' }] }, `${EXT}:personalNumbers[0].value`, ['310285-7319', '3102857319']],
    ['CPR with 9 digits', { personalNumbers: [{ type: 'DkCpr', value: '010190731' }] }, `${EXT}:personalNumbers[0].value`, ['010190731']],
    ['CPR with two dashes', { personalNumbers: [{ type: 'DkCpr', value: '0101-90-7319' }] }, `${EXT}:personalNumbers[0].value`, ['0101-90-7319']],
    ['personal number of an unknown type', { personalNumbers: [{ type: 'SeMeta', value: '0101907319' }] }, `${EXT}:personalNumbers[0].type`, ['SeMeta', '0101907319']],
    ['birthDate 2023-02-29', { birthDate: '2023-02-29' }, `${EXT}:birthDate`, ['2023-02-29']],
    ['birthDate in DD-MM-YYYY', { birthDate: '17-08-1987' }, `${EXT}:birthDate`, ['17-08-1987']],
    ['phone with spaces', { personalPhone: '+45 2281 3377' }, `${EXT}:personalPhone`, ['+45 2281 3377', '2281']],
    ['phone without plus', { personalPhone: '004522813377' }, `${EXT}:personalPhone`, ['004522813377']],
    ['phone with 16 digits', { personalPhone: '+4522813377123456' }, `${EXT}:personalPhone`, ['+4522813377123456']],
    ['email without @', { personalEmail: 'anna.qwx.home.example' }, `${EXT}:personalEmail`, ['anna.qwx.home.example']],
    ['email of 201 characters', { personalEmail: email201 }, `${EXT}:personalEmail`, [email201, email201.slice(0, 20)]],
    ["nationality 'XX'", { nationality: 'XX' }, `${EXT}:nationality`, ['XX']],
    ['nationality of three letters', { nationality: 'DNK' }, `${EXT}:nationality`, ['DNK']],
    ["issuingCountry 'QZ'", { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'QZ', documentNumber: 'P1' }] }, `${EXT}:identityDocumentReferences[0].issuingCountry`, ['QZ']],
    ['document type unknown', { identityDocumentReferences: [{ type: 'DriverLicence', issuingCountry: 'DK', documentNumber: 'P1' }] }, `${EXT}:identityDocumentReferences[0].type`, ['DriverLicence']],
    ['documentNumber empty', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: '' }] }, `${EXT}:identityDocumentReferences[0].documentNumber`, []],
    ['documentNumber of 65 characters', { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: `DOC${'Z7'.repeat(31)}` }] }, `${EXT}:identityDocumentReferences[0].documentNumber`, [`DOC${'Z7'.repeat(31)}`, 'Z7Z7']],
    ['11 personal numbers', { personalNumbers: elevenNumbers }, `${EXT}:personalNumbers`, elevenNumbers.map((n) => n.value)],
    ['two numbers of one type', { personalNumbers: [{ type: 'DkCpr', value: '0202904417' }, { type: 'dkcpr', value: '030390-5529' }] }, `${EXT}:personalNumbers`, ['0202904417', '030390-5529', '0303905529']],
    ['UPN with a space', { directoryUserPrincipalName: 'anna qwx@corp.example' }, `${EXT}:directoryUserPrincipalName`, ['anna qwx@corp.example', 'qwx']],
    ['UPN without @', { directoryUserPrincipalName: 'annaqwx.corp.example' }, `${EXT}:directoryUserPrincipalName`, ['annaqwx']],
    ['affiliationType not allowed', { affiliationType: 'Contractorqwx' }, `${EXT}:affiliationType`, ['Contractorqwx', 'contractorqwx']],
  ])('%s', (_label, ext, named, secrets) => {
    const err = scimErrorOf(() => parseScimUser(userBody(ext)));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
    for (const s of secrets) expect(err.detail).not.toContain(s);
    expect(err.message).toBe(err.detail);
  });

  it.each<[string, JsonObject, string, string]>([
    ['givenName of 129 characters', { name: { givenName: `Gq${'w'.repeat(127)}`, familyName: 'Hansen' } }, 'name.givenName', `Gq${'w'.repeat(127)}`],
    ['familyName of 129 characters', { name: { givenName: 'Anna', familyName: `Fq${'v'.repeat(127)}` } }, 'name.familyName', `Fq${'v'.repeat(127)}`],
  ])('%s', (_label, core, named, secret) => {
    const err = scimErrorOf(() => parseScimUser(userBody({}, core)));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
    expect(err.detail).not.toContain(secret);
    expect(err.detail).not.toContain('wwwwwwww');
  });

  it('accepts the limits themselves', () => {
    const tenNumbers = Array.from({ length: 10 }, (_, i) => ({ type: 'DkCpr', value: `${String(i + 10)}0390-5${String(i + 10)}7` }));
    // Ten numbers pass the item limit; one number per type is a separate rule.
    expect(scimErrorOf(() => parseScimUser(userBody({ personalNumbers: tenNumbers }))).detail).toContain('one number per type');
    const attrs = parseScimUser(
      userBody(
        { personalEmail: email201.slice(1), identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'D'.repeat(64) }] },
        { name: { givenName: 'g'.repeat(128), familyName: 'f'.repeat(128) } },
      ),
    );
    expect(attrs.givenName).toHaveLength(128);
    expect(attrs.familyName).toHaveLength(128);
    expect(attrs.personalEmail).toHaveLength(200);
    expect(attrs.identityDocumentReferences[0]?.documentNumber).toHaveLength(64);
  });

  it('accepts valid formats', () => {
    const attrs = parseScimUser(
      userBody({
        birthDate: '2024-02-29',
        personalPhone: '+12025550123',
        personalNumbers: [{ type: 'DkCpr', value: '290200-4321' }],
        directoryUserPrincipalName: 'anna.hansen@corp.example',
      }),
    );
    expect(attrs).toMatchObject({ birthDate: '2024-02-29', personalPhone: '+12025550123', personalNumbers: [{ type: 'DkCpr', value: '2902004321' }], directoryUserPrincipalName: 'anna.hansen@corp.example' });
  });
});

describe('absent values', () => {
  it('null for every optional attribute means absent', () => {
    const attrs = parseScimUser(
      userBody(
        { birthDate: null, nationality: null, personalEmail: null, personalPhone: null, personalNumbers: null, identityDocumentReferences: null, directoryUserPrincipalName: null },
        { active: null },
      ),
    );
    expect(attrs).toEqual(BASE_ATTRIBUTES);
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(BASE_ATTRIBUTES).sort());
  });

  it('empty directoryUserPrincipalName means absent', () => {
    const attrs = parseScimUser(userBody({ directoryUserPrincipalName: '' }));
    expect(attrs).not.toHaveProperty('directoryUserPrincipalName');
    expect(attrs).toEqual(BASE_ATTRIBUTES);
  });

  it('attributes not sent are absent, and lists are empty', () => {
    const attrs = parseScimUser(userBody());
    expect(Object.keys(attrs).sort()).toEqual(['active', 'affiliationType', 'externalId', 'familyName', 'givenName', 'identityDocumentReferences', 'personalNumbers', 'userName']);
  });
});

describe('prototype pollution', () => {
  const validJson = JSON.stringify(userBody()).slice(1); // without the leading '{'

  it('a top-level __proto__ key does not reach Object.prototype and is ignored', () => {
    const body = JSON.parse(`{"__proto__":{"polluted":1},${validJson}`) as unknown;
    expect(Object.keys(body as object)).toContain('__proto__');
    expect(parseScimUser(body)).toEqual(BASE_ATTRIBUTES);
    expect(polluted()).toBeUndefined();
  });

  it('a __proto__ key in the extension object -> invalidSyntax, no pollution', () => {
    const body = JSON.parse(`{"${EXT}":{"__proto__":{"polluted":1},"affiliationType":"employment"},"externalId":"E-1001","userName":"anna@corp.example","name":{"givenName":"Anna","familyName":"Hansen"}}`) as unknown;
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
    expect(polluted()).toBeUndefined();
  });

  it('a flattened <URN>:__proto__ key -> invalidSyntax, no pollution', () => {
    const body = JSON.parse(`{"${EXT}:__proto__":{"polluted":1},${validJson}`) as unknown;
    expect(scimErrorOf(() => parseScimUser(body)).scimType).toBe('invalidSyntax');
    expect(polluted()).toBeUndefined();
  });

  it('a __proto__ key in name does not pollute', () => {
    const body = JSON.parse(`{"name":{"__proto__":{"polluted":1},"givenName":"Anna","familyName":"Hansen"},"externalId":"E-1001","userName":"anna@corp.example","${EXT}":{"affiliationType":"employment"}}`) as unknown;
    expect(parseScimUser(body)).toEqual(BASE_ATTRIBUTES);
    expect(polluted()).toBeUndefined();
  });

  it('a userName offered through __proto__ is not inherited', () => {
    const body = JSON.parse(`{"__proto__":{"userName":"from-proto"},"externalId":"E-1001","name":{"givenName":"Anna","familyName":"Hansen"},"${EXT}":{"affiliationType":"employment"}}`) as unknown;
    const err = scimErrorOf(() => parseScimUser(body));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain('userName');
    expect((canonicalizeUser(body) as JsonObject).userName).toBeUndefined();
  });
});

describe('identityToScimInput', () => {
  const FULL: IdentityAttributes = {
    externalId: 'E-77',
    userName: 'Bo.Jensen@Corp.Example',
    givenName: 'Bo',
    familyName: 'Jensen',
    active: false,
    affiliationType: 'engagement',
    birthDate: '1985-07-03',
    nationality: 'SE',
    personalEmail: 'bo@home.example',
    personalPhone: '+46701234567',
    personalNumbers: [{ type: 'DkCpr', value: '0307854321' }],
    identityDocumentReferences: [
      { type: 'Passport', issuingCountry: 'SE', documentNumber: 'AA1234567' },
      { type: 'IdentityCard', issuingCountry: 'DK', documentNumber: 'id-9' },
    ],
    directoryUserPrincipalName: 'bo.jensen@corp.example',
  };

  it.each<[string, IdentityAttributes]>([
    ['all attributes', FULL],
    ['required attributes only', BASE_ATTRIBUTES],
    ['inactive, lists only', { ...BASE_ATTRIBUTES, active: false, affiliationType: 'other', personalNumbers: [{ type: 'DkCpr', value: '1212121212' }], identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'DE', documentNumber: 'X' }] }],
  ])('%s round-trip through toIdentityAttributes', (_label, attrs) => {
    expect(toIdentityAttributes(identityToScimInput(attrs))).toEqual(attrs);
    expect(parseScimUser(identityToScimInput(attrs))).toEqual(attrs);
    expect(toIdentityAttributes(canonicalizeUser(identityToScimInput(attrs)))).toEqual(attrs);
  });

  it('produces the canonical SCIM form', () => {
    expect(identityToScimInput(FULL)).toEqual({
      externalId: 'E-77',
      userName: 'Bo.Jensen@Corp.Example',
      name: { givenName: 'Bo', familyName: 'Jensen' },
      active: false,
      [EXT]: {
        affiliationType: 'engagement',
        birthDate: '1985-07-03',
        nationality: 'SE',
        personalEmail: 'bo@home.example',
        personalPhone: '+46701234567',
        personalNumbers: [{ type: 'DkCpr', value: '0307854321' }],
        identityDocumentReferences: FULL.identityDocumentReferences,
        directoryUserPrincipalName: 'bo.jensen@corp.example',
      },
    });
  });

  it('copies the lists, so changing the output does not change the input', () => {
    const attrs: IdentityAttributes = JSON.parse(JSON.stringify(FULL)) as IdentityAttributes;
    const scim = identityToScimInput(attrs);
    const ext = scim[EXT] as { personalNumbers: Array<{ value: string }>; identityDocumentReferences: Array<{ documentNumber: string }> };
    ext.personalNumbers[0]!.value = 'changed';
    ext.identityDocumentReferences[0]!.documentNumber = 'changed';
    expect(attrs).toEqual(FULL);
  });

  it('does not emit absent optional attributes', () => {
    const ext = identityToScimInput(BASE_ATTRIBUTES)[EXT] as JsonObject;
    expect(Object.keys(ext).sort()).toEqual(['affiliationType', 'identityDocumentReferences', 'personalNumbers']);
  });
});
