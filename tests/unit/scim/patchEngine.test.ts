/**
 * SCIM PATCH engine (spec §2.1 rules 2 and 6, §4.1 rule 5, §7.1): the shapes Entra ID and Okta
 * send, value paths with filters, read-only attributes, malformed bodies and paths, and purity.
 */
import { MAX_OPERATIONS, applyPatch, parsePatchPath } from '../../../lib/scim/patch';
import { EXT, identityToScimInput, toIdentityAttributes } from '../../../lib/scim/userInput';
import type { JsonObject, ScimUserInput } from '../../../lib/scim/userInput';
import { ScimError } from '../../../lib/scim/errors';
import type { IdentityAttributes } from '../../../lib/identities/model';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const CURRENT: IdentityAttributes = {
  externalId: 'E-1001',
  userName: 'anna@corp.example',
  givenName: 'Anna',
  familyName: 'Hansen',
  active: true,
  affiliationType: 'employment',
  birthDate: '1990-01-01',
  nationality: 'DK',
  personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
  identityDocumentReferences: [
    { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' },
    { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' },
  ],
  directoryUserPrincipalName: 'anna@corp.example',
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A frozen canonical User, as the service builds it from stored attributes. */
function current(overrides: Partial<IdentityAttributes> = {}): ScimUserInput {
  return deepFreeze(identityToScimInput({ ...CURRENT, ...overrides }));
}

const body = (...ops: JsonObject[]): JsonObject => ({ schemas: [PATCH_OP], Operations: ops });

/** Applies the operations to CURRENT and validates the result as a PUT would. */
function patched(...ops: JsonObject[]): IdentityAttributes {
  return toIdentityAttributes(applyPatch(current(), deepFreeze(body(...ops))));
}

function scimErrorOf(fn: () => unknown): ScimError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return err;
    throw err;
  }
  throw new Error('expected a ScimError');
}

const patchError = (...ops: JsonObject[]): ScimError => scimErrorOf(() => applyPatch(current(), body(...ops)));

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe('Entra ID shapes', () => {
  it.each<[string, JsonObject[], Partial<IdentityAttributes>]>([
    ['Replace without path, active "False"', [{ op: 'Replace', value: { active: 'False' } }], { active: false }],
    ['Replace without path, active "True" on an inactive user', [{ op: 'Replace', value: { active: 'False' } }, { op: 'Replace', value: { active: 'True' } }], {}],
    ['Replace with path active, "False"', [{ op: 'Replace', path: 'active', value: 'False' }], { active: false }],
    ['replace active boolean false', [{ op: 'replace', path: 'active', value: false }], { active: false }],
    ['Replace name.familyName', [{ op: 'Replace', path: 'name.familyName', value: 'Holm' }], { familyName: 'Holm' }],
    ['Add name.givenName', [{ op: 'Add', path: 'name.givenName', value: 'Anne' }], { givenName: 'Anne' }],
    ['Replace userName', [{ op: 'Replace', path: 'userName', value: 'anne@corp.example' }], { userName: 'anne@corp.example' }],
    ['Replace externalId', [{ op: 'Replace', path: 'externalId', value: 'E-2002' }], { externalId: 'E-2002' }],
    ['Add emails[type eq "work"].value is ignored', [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'x' }], {}],
    ['Replace displayName is ignored', [{ op: 'Replace', path: 'displayName', value: 'Anna H' }], {}],
    ['Add enterprise extension attribute is ignored', [{ op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' }], {}],
    ['Replace name.middleName is ignored', [{ op: 'Replace', path: 'name.middleName', value: 'M' }], {}],
    ['Replace extension attribute by URN path', [{ op: 'Replace', path: `${EXT}:affiliationType`, value: 'Engagement' }], { affiliationType: 'engagement' }],
    ['Add extension attribute, upper-case URN and name', [{ op: 'Add', path: `${EXT.toUpperCase()}:PERSONALPHONE`, value: '+4522113344' }], { personalPhone: '+4522113344' }],
    ['Replace directoryUserPrincipalName', [{ op: 'Replace', path: `${EXT}:directoryUserPrincipalName`, value: 'anna.h@corp.example' }], { directoryUserPrincipalName: 'anna.h@corp.example' }],
  ])('%s', (_label, ops, change) => {
    expect(patched(...ops)).toEqual({ ...CURRENT, ...change });
  });

  it('no-path value with core-URN keys, extension-URN keys and dotted keys', () => {
    const result = patched({
      op: 'Replace',
      value: {
        [`${CORE}:userName`]: 'anne@corp.example',
        [`${EXT}:affiliationType`]: 'OTHER',
        [`${EXT}:birthDate`]: '1991-02-03',
        'name.givenName': 'Anne',
        'NAME.FAMILYNAME': 'Holm',
        active: 'false',
        'emails[type eq "work"].value': 'ignored@corp.example',
      },
    });
    expect(result).toEqual({ ...CURRENT, userName: 'anne@corp.example', affiliationType: 'other', birthDate: '1991-02-03', givenName: 'Anne', familyName: 'Holm', active: false });
  });

  it('no-path value with the extension URN as a key holding an object', () => {
    const result = patched({
      op: 'Add',
      value: {
        externalId: 'E-3003',
        [EXT]: { AffiliationType: 'Enrollment', personalEmail: 'anna@home.example', nationality: 'se' },
      },
    });
    expect(result).toEqual({ ...CURRENT, externalId: 'E-3003', affiliationType: 'enrollment', personalEmail: 'anna@home.example', nationality: 'SE' });
  });

  it('path equal to the extension URN with an object value', () => {
    expect(patched({ op: 'replace', path: EXT, value: { affiliationType: 'other', nationality: 'de' } })).toEqual({ ...CURRENT, affiliationType: 'other', nationality: 'DE' });
  });

  it('Entra remove of an optional extension attribute', () => {
    const result = patched({ op: 'Remove', path: `${EXT}:birthDate` });
    expect(result).not.toHaveProperty('birthDate');
    const { birthDate: _birthDate, ...rest } = CURRENT;
    expect(result).toEqual(rest);
  });
});

describe('Okta shapes', () => {
  it('replaces the whole identityDocumentReferences list', () => {
    const result = patched({
      op: 'replace',
      path: `${EXT}:identityDocumentReferences`,
      value: [
        { type: 'passport', issuingCountry: 'no', documentNumber: 'N-5' },
        { Type: 'IDENTITYCARD', IssuingCountry: 'FI', DocumentNumber: 'F-6' },
      ],
    });
    expect(result.identityDocumentReferences).toEqual([
      { type: 'Passport', issuingCountry: 'NO', documentNumber: 'N-5' },
      { type: 'IdentityCard', issuingCountry: 'FI', documentNumber: 'F-6' },
    ]);
    expect(result.personalNumbers).toEqual(CURRENT.personalNumbers);
  });

  it('replaces the whole list with an empty list', () => {
    expect(patched({ op: 'replace', path: `${EXT}:identityDocumentReferences`, value: [] }).identityDocumentReferences).toEqual([]);
  });

  it('replaces the whole personalNumbers list, normalising the value', () => {
    expect(patched({ op: 'replace', path: `${EXT}:personalNumbers`, value: [{ type: 'dkcpr', value: '020290-4321' }] }).personalNumbers).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it('no-path replace of the whole list under the extension URN', () => {
    const result = patched({ op: 'replace', value: { [EXT]: { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-9' }] } } });
    expect(result.identityDocumentReferences).toEqual([{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-9' }]);
  });
});

describe('value paths on lists', () => {
  it('add to personalNumbers[type eq "DkCpr"].value with no match creates the item', () => {
    const result = toIdentityAttributes(
      applyPatch(current({ personalNumbers: [] }), body({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '311299-4321' })),
    );
    expect(result.personalNumbers).toEqual([{ type: 'DkCpr', value: '3112994321' }]);
  });

  it('add to documents[type eq "Passport" and issuingCountry eq "DK"].documentNumber with no match creates the item', () => {
    const result = toIdentityAttributes(
      applyPatch(current({ identityDocumentReferences: [] }), body({ op: 'add', path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "DK"].documentNumber`, value: 'P-42' })),
    );
    expect(result.identityDocumentReferences).toEqual([{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-42' }]);
  });

  it('add to a document value path with no match appends to the existing items', () => {
    const result = patched({ op: 'add', path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "NO"].documentNumber`, value: 'N-1' });
    expect(result.identityDocumentReferences).toEqual([...CURRENT.identityDocumentReferences, { type: 'Passport', issuingCountry: 'NO', documentNumber: 'N-1' }]);
  });

  it('add to a value path with no match and no sub-attribute creates the item from filter and object value', () => {
    const result = toIdentityAttributes(applyPatch(current({ personalNumbers: [] }), body({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"]`, value: { value: '0202904321' } })));
    expect(result.personalNumbers).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it.each<[string, string]>([
    ['exact type', 'DkCpr'],
    ['type in another case', 'dkcpr'],
  ])('replace on a matching value path (%s) changes that item only', (_label, type) => {
    const result = patched({ op: 'replace', path: `${EXT}:personalNumbers[type eq "${type}"].value`, value: '020290-4321' });
    expect(result.personalNumbers).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it('replace on a matching document value path changes the matching item only', () => {
    const result = patched({ op: 'replace', path: `${EXT}:identityDocumentReferences[type eq "IdentityCard" and issuingCountry eq "SE"].documentNumber`, value: 'ID-3' });
    expect(result.identityDocumentReferences).toEqual([CURRENT.identityDocumentReferences[0], { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-3' }]);
  });

  it('replace on a matching value path without sub-attribute merges the object', () => {
    const result = patched({ op: 'replace', path: `${EXT}:identityDocumentReferences[type eq "Passport"]`, value: { DocumentNumber: 'P-2', issuingCountry: 'no' } });
    expect(result.identityDocumentReferences[0]).toEqual({ type: 'Passport', issuingCountry: 'NO', documentNumber: 'P-2' });
    expect(result.identityDocumentReferences).toHaveLength(2);
  });

  it.each<[string, unknown]>([
    ['an object', { type: 'DkCpr', value: '020290-4321' }],
    ['an array', [{ type: 'DkCpr', value: '020290-4321' }]],
    ['an object with a lower-case type', { type: 'dkcpr', value: '0202904321' }],
  ])('add of a personalNumbers item (%s) whose type exists replaces it', (_label, value) => {
    expect(patched({ op: 'add', path: `${EXT}:personalNumbers`, value }).personalNumbers).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it('add of identityDocumentReferences items appends them', () => {
    const result = patched({ op: 'add', path: `${EXT}:identityDocumentReferences`, value: [{ type: 'Passport', issuingCountry: 'FI', documentNumber: 'F-1' }] });
    expect(result.identityDocumentReferences).toEqual([...CURRENT.identityDocumentReferences, { type: 'Passport', issuingCountry: 'FI', documentNumber: 'F-1' }]);
  });

  it.each<[string, string, IdentityAttributes['identityDocumentReferences']]>([
    ['by type', `${EXT}:identityDocumentReferences[type eq "Passport"]`, [{ type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' }]],
    ['by type, lower case', `${EXT}:identityDocumentReferences[type eq "identitycard"]`, [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' }]],
    ['by two conditions', `${EXT}:identityDocumentReferences[type eq "IdentityCard" and issuingCountry eq "SE"]`, [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' }]],
    ['by documentNumber', `${EXT}:identityDocumentReferences[documentNumber eq "P-1"]`, [{ type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' }]],
    ['with no match', `${EXT}:identityDocumentReferences[documentNumber eq "nope"]`, CURRENT.identityDocumentReferences],
    ['whole list', `${EXT}:identityDocumentReferences`, []],
  ])('remove documents %s', (_label, path, expected) => {
    expect(patched({ op: 'remove', path }).identityDocumentReferences).toEqual(expected);
  });

  it('remove personalNumbers by filter', () => {
    const result = patched({ op: 'Remove', path: `${EXT}:personalNumbers[type eq "DkCpr"]` });
    expect(result.personalNumbers).toEqual([]);
    expect(result.identityDocumentReferences).toEqual(CURRENT.identityDocumentReferences);
  });

  it('list paths without the URN are taken as extension paths', () => {
    expect(patched({ op: 'remove', path: 'personalNumbers[type eq "DkCpr"]' }).personalNumbers).toEqual([]);
  });

  it('remove of a sub-attribute of a list item leaves the item without it (and the PUT rules reject it)', () => {
    const user = applyPatch(current(), body({ op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "Passport"].documentNumber` }));
    const docs = (user[EXT] as { identityDocumentReferences: JsonObject[] }).identityDocumentReferences;
    expect(JSON.parse(JSON.stringify(docs))).toEqual([{ type: 'Passport', issuingCountry: 'DK' }, { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' }]);
    const err = scimErrorOf(() => toIdentityAttributes(user));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(`${EXT}:identityDocumentReferences[0].documentNumber`);
  });

  it.each<[string, string]>([
    ['name.familyName', 'name.familyName'],
    ['NAME.GIVENNAME', 'name.givenName'],
  ])('remove of the sub-attribute %s removes it (and the PUT rules reject it)', (path, named) => {
    const user = applyPatch(current(), body({ op: 'remove', path }));
    const name = JSON.parse(JSON.stringify(user.name)) as JsonObject;
    expect(Object.keys(name)).toHaveLength(1);
    const err = scimErrorOf(() => toIdentityAttributes(user));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
  });

  it('a sub-attribute of a list without a filter -> invalidPath', () => {
    expect(patchError({ op: 'replace', path: `${EXT}:personalNumbers.value`, value: '0101901234' }).scimType).toBe('invalidPath');
  });

  it('a filter on a simple extension attribute -> invalidPath', () => {
    expect(patchError({ op: 'replace', path: `${EXT}:birthDate[type eq "x"]`, value: '1990-01-01' }).scimType).toBe('invalidPath');
  });
});

describe('core attribute paths', () => {
  it.each<[string, string, Partial<IdentityAttributes>]>([
    ['core URN prefixed userName', `${CORE}:userName`, { userName: 'anne@corp.example' }],
    ['core URN in upper case', `${CORE.toUpperCase()}:USERNAME`, { userName: 'anne@corp.example' }],
    ['plain userName, any case', 'USERNAME', { userName: 'anne@corp.example' }],
    ['with surrounding spaces', '  userName ', { userName: 'anne@corp.example' }],
  ])('%s', (_label, path, change) => {
    expect(patched({ op: 'replace', path, value: 'anne@corp.example' })).toEqual({ ...CURRENT, ...change });
  });

  it('core URN prefixed name.givenName', () => {
    expect(patched({ op: 'replace', path: `${CORE}:name.givenName`, value: 'Anne' }).givenName).toBe('Anne');
  });

  it('add to name merges sub-attributes', () => {
    expect(patched({ op: 'add', path: 'name', value: { familyName: 'Holm' } })).toEqual({ ...CURRENT, familyName: 'Holm' });
  });

  it('replace of name with both sub-attributes', () => {
    expect(patched({ op: 'replace', path: 'name', value: { givenName: 'Anne', familyName: 'Holm' } })).toEqual({ ...CURRENT, givenName: 'Anne', familyName: 'Holm' });
  });

  it('remove userName then toIdentityAttributes throws invalidValue naming userName', () => {
    const user = applyPatch(current(), body({ op: 'remove', path: 'userName' }));
    expect(user.userName).toBeUndefined();
    const err = scimErrorOf(() => toIdentityAttributes(user));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain('userName');
  });

  it.each<[string, string, string]>([
    ['externalId', 'externalId', 'externalId'],
    ['affiliationType', `${EXT}:affiliationType`, `${EXT}:affiliationType`],
    ['the whole extension', EXT, EXT],
  ])('remove %s then toIdentityAttributes throws invalidValue naming it', (_label, path, named) => {
    const err = scimErrorOf(() => toIdentityAttributes(applyPatch(current(), body({ op: 'remove', path }))));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(named);
  });

  it('remove of active leaves the default true', () => {
    expect(toIdentityAttributes(applyPatch(current({ active: false }), body({ op: 'remove', path: 'active' }))).active).toBe(true);
  });

  it('operations apply in order', () => {
    expect(
      patched(
        { op: 'replace', path: 'name.givenName', value: 'First' },
        { op: 'replace', path: 'name.givenName', value: 'Second' },
        { op: 'remove', path: `${EXT}:nationality` },
        { op: 'add', path: `${EXT}:nationality`, value: 'fi' },
      ),
    ).toEqual({ ...CURRENT, givenName: 'Second', nationality: 'FI' });
  });

  it('operation member names are accepted in any case', () => {
    const result = toIdentityAttributes(applyPatch(current(), { SCHEMAS: [PATCH_OP.toUpperCase()], operations: [{ OP: 'REPLACE', PATH: 'name.familyName', VALUE: 'Holm' }] }));
    expect(result.familyName).toBe('Holm');
  });

  it('the schemas member may be left out', () => {
    expect(toIdentityAttributes(applyPatch(current(), { Operations: [{ op: 'replace', path: 'userName', value: 'x@corp.example' }] })).userName).toBe('x@corp.example');
  });
});

describe('errors', () => {
  it.each<[string, JsonObject]>([
    ['replace id', { op: 'replace', path: 'id', value: 'x' }],
    ['replace ID', { op: 'replace', path: 'ID', value: 'x' }],
    ['replace meta.version', { op: 'replace', path: 'meta.version', value: 'W/"9"' }],
    ['remove meta', { op: 'remove', path: 'meta' }],
    ['add schemas', { op: 'add', path: 'schemas', value: ['x'] }],
    ['replace core-URN id', { op: 'replace', path: `${CORE}:id`, value: 'x' }],
    ['replace <URN>:directoryLinkStatus', { op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'linked' }],
    ['remove <URN>:directoryLinkSource', { op: 'remove', path: `${EXT}:directoryLinkSource` }],
    ['add <URN>:DIRECTORYLINKEDUSERID', { op: 'add', path: `${EXT}:DIRECTORYLINKEDUSERID`, value: 'x' }],
    ['directoryLinkStatus without URN', { op: 'replace', path: 'directoryLinkStatus', value: 'linked' }],
    ['no-path value with id', { op: 'replace', value: { id: 'x' } }],
    ['no-path value with a read-only extension attribute', { op: 'replace', value: { [EXT]: { directoryLinkStatus: 'linked' } } }],
    ['no-path value with a flattened read-only extension attribute', { op: 'replace', value: { [`${EXT}:directoryLinkStatus`]: 'linked' } }],
    ['extension-URN path with a read-only attribute in the value', { op: 'add', path: EXT, value: { directoryLinkSource: 'manual' } }],
  ])('%s -> 400 mutability', (_label, op) => {
    const err = patchError(op);
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('mutability');
  });

  it.each<[string, JsonObject]>([
    ['unknown op', { op: 'merge', path: 'userName', value: 'x' }],
    ['op missing', { path: 'userName', value: 'x' }],
    ['op not a string', { op: 1, path: 'userName', value: 'x' }],
    ['op empty', { op: '', path: 'userName', value: 'x' }],
    ['unknown extension attribute by path', { op: 'add', path: `${EXT}:favouriteColour`, value: 'blue' }],
    ['unknown extension attribute in a no-path value', { op: 'add', value: { [EXT]: { favouriteColour: 'blue' } } }],
    ['unknown extension attribute as flattened no-path key', { op: 'add', value: { [`${EXT}:favouriteColour`]: 'blue' } }],
    ['unknown extension attribute in an extension-URN path value', { op: 'replace', path: EXT, value: { favouriteColour: 'blue' } }],
    ['unknown key in a list item', { op: 'add', path: `${EXT}:personalNumbers`, value: [{ type: 'DkCpr', value: '0101901234', issuer: 'DK' }] }],
    ['no-path value that is not an object', { op: 'replace', value: 'x' }],
    ['no-path value that is an array', { op: 'add', value: [{ active: false }] }],
  ])('%s -> 400 invalidSyntax', (_label, op) => {
    const err = patchError(op);
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
  });

  it('an unknown extension attribute is named in the detail', () => {
    expect(patchError({ op: 'add', path: `${EXT}:favouriteColour`, value: 'Qz9-value' }).detail).toContain('favouriteColour');
    expect(patchError({ op: 'add', path: `${EXT}:favouriteColour`, value: 'Qz9-value' }).detail).not.toContain('Qz9-value');
  });

  it.each<[string, string]>([
    ['unquoted filter value', `${EXT}:personalNumbers[type eq DkCpr].value`],
    ['missing closing bracket', `${EXT}:personalNumbers[type eq "DkCpr".value`],
    ['missing closing bracket, no sub-attribute', `${EXT}:personalNumbers[type eq "DkCpr"`],
    ['missing closing bracket without URN', 'personalNumbers[type eq "DkCpr"'],
    ['unsupported operator', `${EXT}:personalNumbers[type ne "DkCpr"]`],
    ['or', `${EXT}:identityDocumentReferences[type eq "Passport" or type eq "IdentityCard"]`],
    ['empty filter', `${EXT}:personalNumbers[]`],
    ['unterminated string', `${EXT}:personalNumbers[type eq "DkCpr]`],
    ['extra closing bracket', `${EXT}:personalNumbers[type eq "DkCpr"]]`],
    ['junk after the filter', `${EXT}:personalNumbers[type eq "DkCpr"]value`],
    ['two sub-attributes after the filter', `${EXT}:personalNumbers[type eq "DkCpr"].value.x`],
    ['trailing and', `${EXT}:personalNumbers[type eq "DkCpr" and]`],
    ['invalid escape in the string', `${EXT}:personalNumbers[type eq "Dk\\qCpr"]`],
    ['filter on a single-valued core attribute', 'userName[value eq "x"]'],
    ['sub-attribute of a simple core attribute', 'active.value'],
    ['three path segments', 'name.givenName.first'],
    ['empty segment', '.givenName'],
    ['path too long', `name.${'g'.repeat(600)}`],
  ])('%s -> 400 invalidPath', (_label, path) => {
    const err = patchError({ op: 'replace', path, value: 'x' });
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidPath');
  });

  it('a path that is not a string -> invalidPath', () => {
    expect(patchError({ op: 'replace', path: 42, value: 'x' }).scimType).toBe('invalidPath');
  });

  it.each<[string, JsonObject]>([
    ['no path member', { op: 'remove' }],
    ['null path', { op: 'Remove', path: null }],
    ['empty path', { op: 'remove', path: '' }],
    ['blank path', { op: 'remove', path: '   ' }],
    ['no path, with a value', { op: 'remove', value: { active: false } }],
  ])('remove with %s -> 400 noTarget', (_label, op) => {
    const err = patchError(op);
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('noTarget');
  });

  it.each<[string, unknown]>([
    ['Operations missing', { schemas: [PATCH_OP] }],
    ['Operations empty', { schemas: [PATCH_OP], Operations: [] }],
    ['Operations not an array', { schemas: [PATCH_OP], Operations: { op: 'replace', path: 'active', value: false } }],
    ['Operations null', { schemas: [PATCH_OP], Operations: null }],
    ['an operation that is not an object', { schemas: [PATCH_OP], Operations: ['replace'] }],
    ['an operation that is null', { schemas: [PATCH_OP], Operations: [null] }],
    ['wrong schema', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [{ op: 'replace', path: 'active', value: false }] }],
    ['schemas not an array', { schemas: PATCH_OP, Operations: [{ op: 'replace', path: 'active', value: false }] }],
    ['body null', null],
    ['body an array', [{ op: 'replace', path: 'active', value: false }]],
    ['body a string', 'Operations'],
    [`${MAX_OPERATIONS + 1} operations`, { schemas: [PATCH_OP], Operations: Array.from({ length: MAX_OPERATIONS + 1 }, () => ({ op: 'replace', path: 'active', value: false })) }],
  ])('%s -> 400 invalidSyntax', (_label, patchBody) => {
    const err = scimErrorOf(() => applyPatch(current(), patchBody));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe('invalidSyntax');
  });

  it('the operations limit is 100, and 100 operations are accepted', () => {
    expect(MAX_OPERATIONS).toBe(100);
    const ops = Array.from({ length: 100 }, (_, i) => ({ op: 'replace', path: 'name.givenName', value: `Name${i}` }));
    expect(patched(...ops).givenName).toBe('Name99');
  });

  it('a failing operation fails the whole PATCH: nothing of the earlier operations escapes', () => {
    const user = current();
    const before = JSON.stringify(user);
    const err = scimErrorOf(() => applyPatch(user, body({ op: 'replace', path: 'userName', value: 'changed@corp.example' }, { op: 'replace', path: 'id', value: 'x' })));
    expect(err.scimType).toBe('mutability');
    expect(JSON.stringify(user)).toBe(before);
  });
});

describe('purity', () => {
  const OPS: Array<[string, JsonObject[]]> = [
    ['replace without path', [{ op: 'Replace', value: { active: 'False', name: { givenName: 'Anne', familyName: 'Holm' } } }]],
    ['name sub-attribute', [{ op: 'replace', path: 'name.familyName', value: 'Holm' }, { op: 'remove', path: 'name.givenName' }]],
    ['list value path add/replace/remove', [
      { op: 'add', path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "NO"].documentNumber`, value: 'N-1' },
      { op: 'replace', path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "DK"].documentNumber`, value: 'P-2' },
      { op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "IdentityCard"]` },
      { op: 'replace', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '0202904321' },
    ]],
    ['whole lists', [
      { op: 'add', path: `${EXT}:personalNumbers`, value: [{ type: 'dkcpr', value: '020290-4321' }] },
      { op: 'replace', path: `${EXT}:identityDocumentReferences`, value: [{ type: 'passport', issuingCountry: 'dk', documentNumber: 'x' }] },
    ]],
    ['remove of the extension', [{ op: 'remove', path: EXT }]],
    ['remove of sub-attributes in list items', [{ op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "Passport"].documentNumber` }]],
  ];

  it.each(OPS)('%s: frozen input and frozen body are accepted and unchanged', (_label, ops) => {
    const user = identityToScimInput(CURRENT);
    const patchBody = body(...ops);
    const userBefore = JSON.stringify(user);
    const bodyBefore = JSON.stringify(patchBody);
    deepFreeze(user);
    deepFreeze(patchBody);
    const out = applyPatch(user, patchBody);
    expect(JSON.stringify(user)).toBe(userBefore);
    expect(JSON.stringify(patchBody)).toBe(bodyBefore);
    expect(out).not.toBe(user);
  });

  it('changing the result does not change the input', () => {
    const user = identityToScimInput(CURRENT);
    const before = JSON.stringify(user);
    const out = applyPatch(user, body({ op: 'replace', path: 'active', value: false }));
    (out.name as JsonObject).givenName = 'changed';
    ((out[EXT] as { personalNumbers: JsonObject[] }).personalNumbers[0] as JsonObject).value = 'changed';
    expect(JSON.stringify(user)).toBe(before);
  });

  it('the same PATCH applied twice gives the same result', () => {
    const ops = body({ op: 'add', path: `${EXT}:personalNumbers`, value: { type: 'DkCpr', value: '0202904321' } }, { op: 'replace', value: { active: 'false' } });
    const once = toIdentityAttributes(applyPatch(current(), ops));
    const twice = toIdentityAttributes(applyPatch(identityToScimInput(once), ops));
    expect(twice).toEqual(once);
  });
});

describe('prototype pollution', () => {
  const check = (): void => expect(({} as Record<string, unknown>).polluted).toBeUndefined();

  it.each<[string, string]>([
    ['no-path value with __proto__', '{"op":"add","value":{"__proto__":{"polluted":1}}}'],
    ['no-path value with __proto__ under the extension URN', `{"op":"add","value":{"${EXT}":{"__proto__":{"polluted":1}}}}`],
    ['extension-URN path with __proto__ in the value', `{"op":"replace","path":"${EXT}","value":{"__proto__":{"polluted":1}}}`],
    ['path __proto__', '{"op":"add","path":"__proto__","value":{"polluted":1}}'],
    ['path __proto__.polluted', '{"op":"add","path":"__proto__.polluted","value":1}'],
    ['path constructor.prototype', '{"op":"add","path":"constructor.prototype","value":{"polluted":1}}'],
    ['path <URN>:__proto__', `{"op":"add","path":"${EXT}:__proto__","value":{"polluted":1}}`],
    ['name value with __proto__', '{"op":"add","path":"name","value":{"__proto__":{"polluted":1},"givenName":"Anne"}}'],
    ['new list item with __proto__', `{"op":"add","path":"${EXT}:personalNumbers[type eq \\"DkCpr\\"]","value":{"__proto__":{"polluted":1},"value":"0202904321"}}`],
    ['matched list item with __proto__', `{"op":"replace","path":"${EXT}:identityDocumentReferences[type eq \\"Passport\\"]","value":{"__proto__":{"polluted":1}}}`],
  ])('%s never sets Object.prototype.polluted', (_label, opJson) => {
    const op = JSON.parse(opJson) as JsonObject;
    let result: ScimUserInput | undefined;
    try {
      result = applyPatch(current({ personalNumbers: [] }), body(op));
    } catch (err) {
      expect(err).toBeInstanceOf(ScimError);
    }
    check();
    if (result) {
      try {
        toIdentityAttributes(result);
      } catch (err) {
        expect(err).toBeInstanceOf(ScimError);
      }
    }
    check();
  });

  it('__proto__ under the extension -> invalidSyntax', () => {
    const op = JSON.parse(`{"op":"add","value":{"${EXT}":{"__proto__":{"polluted":1}}}}`) as JsonObject;
    expect(patchError(op).scimType).toBe('invalidSyntax');
    check();
  });
});

describe('parsePatchPath', () => {
  it.each<[string, ReturnType<typeof parsePatchPath>]>([
    ['userName', { scope: 'core', attribute: 'userName' }],
    ['EXTERNALID', { scope: 'core', attribute: 'externalId' }],
    ['Active', { scope: 'core', attribute: 'active' }],
    ['name', { scope: 'core', attribute: 'name' }],
    ['NAME.GIVENNAME', { scope: 'core', attribute: 'name', sub: 'givenname' }],
    [`${CORE}:userName`, { scope: 'core', attribute: 'userName' }],
    [`${CORE}:name.familyName`, { scope: 'core', attribute: 'name', sub: 'familyname' }],
    [EXT, { scope: 'ext', attribute: '' }],
    [EXT.toLowerCase(), { scope: 'ext', attribute: '' }],
    [`${EXT}:BIRTHDATE`, { scope: 'ext', attribute: 'birthDate' }],
    [`${EXT}:PersonalNumbers[Type eq "DkCpr"].Value`, { scope: 'ext', attribute: 'personalNumbers', filter: { conditions: [{ attribute: 'type', value: 'DkCpr' }] }, sub: 'value' }],
    [
      `${EXT}:identityDocumentReferences[type EQ "Passport" AND issuingCountry eq "DK"].documentNumber`,
      { scope: 'ext', attribute: 'identityDocumentReferences', filter: { conditions: [{ attribute: 'type', value: 'Passport' }, { attribute: 'issuingcountry', value: 'DK' }] }, sub: 'documentnumber' },
    ],
    [`${EXT}:identityDocumentReferences[documentNumber eq "a \\"q\\" ]b"]`, { scope: 'ext', attribute: 'identityDocumentReferences', filter: { conditions: [{ attribute: 'documentnumber', value: 'a "q" ]b' }] } }],
    ['personalNumbers[type eq "DkCpr"]', { scope: 'ext', attribute: 'personalNumbers', filter: { conditions: [{ attribute: 'type', value: 'DkCpr' }] } }],
    ['emails[type eq "work"].value', { scope: 'ignored', attribute: '' }],
    ['displayName', { scope: 'ignored', attribute: '' }],
    ['name.middleName', { scope: 'ignored', attribute: '' }],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value', { scope: 'ignored', attribute: '' }],
  ])('%s', (path, expected) => {
    expect(parsePatchPath(path)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['id', 'mutability'],
    ['meta.lastModified', 'mutability'],
    [`${EXT}:directoryLinkStatus`, 'mutability'],
    ['directoryLinkedUserId', 'mutability'],
    [`${EXT}:nickName`, 'invalidSyntax'],
    ['', 'invalidPath'],
    [`${EXT}:personalNumbers[type eq "DkCpr"`, 'invalidPath'],
    ['x'.repeat(513), 'invalidPath'],
  ])('%s -> %s', (path, scimType) => {
    const err = scimErrorOf(() => parsePatchPath(path));
    expect(err.status).toBe(400);
    expect(err.scimType).toBe(scimType);
  });
});
