/**
 * lib/scim/patch: PATCH (spec §2.1 rules 2 and 6, §4.1 rule 5, §7.1, RFC 7644 §3.5.2) as Entra ID
 * and Okta send it: op names, simple, sub-attribute and extension-URN paths, value paths with
 * filters, no-path object values, remove rules, read-only and ignored attributes, atomicity and
 * purity, errors and their scimType (never echoing values), prototype safety, parsePatchPath.
 */
import { MAX_OPERATIONS, MAX_PATH_LENGTH, applyPatch, parsePatchPath } from '../../../lib/scim/patch';
import { EXT, canonicalizeUser, identityToScimInput, toIdentityAttributes } from '../../../lib/scim/userInput';
import type { JsonObject, ScimUserInput } from '../../../lib/scim/userInput';
import { ScimError } from '../../../lib/scim/errors';
import { errorOf } from '../../support/scimErrorOf';
import type { IdentityAttributes } from '../../../lib/identities/model';

// ---- shared fixtures and helpers ----------------------------------------------------------

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const CURRENT: IdentityAttributes = {
  externalId: 'E-1',
  userName: 'anna@corp.example',
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  birthDate: '1990-01-01',
  nationality: 'DK',
  personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
  identityDocumentReferences: [
    { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' },
    { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' },
  ],
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A frozen canonical User, as the service builds it from stored attributes. */
const current = (overrides: Partial<IdentityAttributes> = {}): ScimUserInput =>
  deepFreeze(identityToScimInput({ ...CURRENT, ...overrides }));
const patchOf = (...Operations: JsonObject[]): JsonObject => ({ schemas: [PATCH_OP], Operations });
/** Applies the operations to CURRENT (frozen body) and validates the result as a PUT would. */
const patched = (...ops: JsonObject[]): IdentityAttributes =>
  toIdentityAttributes(applyPatch(current(), deepFreeze(patchOf(...ops))));
const patchedFrom = (overrides: Partial<IdentityAttributes>, ...ops: JsonObject[]): IdentityAttributes =>
  toIdentityAttributes(applyPatch(current(overrides), patchOf(...ops)));

/** applyPatch(current(), body) fails with a 400 of `scimType` whose detail holds none of `secrets`. */
function expectPatchError(body: unknown, scimType: string, ...secrets: string[]): ScimError {
  const err = errorOf(() => applyPatch(current(), body));
  expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType });
  for (const s of secrets) expect(err.detail).not.toContain(s);
  return err;
}

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted;
});

// ---- op names and the request body --------------------------------------------------------

describe('op names and the request body', () => {
  it('the integration-test request: capitalised ops, active "False", ignored attributes, name.familyName', () => {
    const result = patched(
      { op: 'Replace', value: { active: 'False' } },
      { op: 'Add', path: 'emails[type eq "work"].value', value: 'anna@corp.example' },
      { op: 'Replace', path: 'name.familyName', value: 'Holm' },
      { op: 'Replace', path: 'displayName', value: 'Anna Holm' },
      { op: 'Add', path: `${ENTERPRISE}:department`, value: 'HR' },
    );
    expect(result).toEqual({ ...CURRENT, active: false, familyName: 'Holm' });
  });

  it.each<[string, string, string]>([
    ['lower-case schema, "Path"', PATCH_OP.toLowerCase(), 'Path'],
    ['upper-case schema, "PATH"', PATCH_OP.toUpperCase(), 'PATH'],
  ])('member names and the schema in any case (%s)', (_label, schema, pathKey) => {
    const result = toIdentityAttributes(
      applyPatch(current(), {
        SCHEMAS: [schema],
        operations: [{ OP: 'REPLACE', [pathKey]: 'name.familyName', VALUE: 'Holm' }],
      }),
    );
    expect(result.familyName).toBe('Holm');
  });

  it('schemas may be left out', () => {
    expect(
      toIdentityAttributes(applyPatch(current(), { Operations: [{ op: 'add', path: 'active', value: 'false' }] }))
        .active,
    ).toBe(false);
  });

  it('operations apply in order', () => {
    const result = patched(
      { op: 'replace', path: 'name.givenName', value: 'First' },
      { op: 'replace', path: 'name.givenName', value: 'Second' },
      { op: 'remove', path: `${EXT}:nationality` },
      { op: 'add', path: `${EXT}:nationality`, value: 'fi' },
    );
    expect(result).toEqual({ ...CURRENT, givenName: 'Second', nationality: 'FI' });
  });

  it.each<[string, JsonObject]>([
    ['op merge', { op: 'merge', path: 'active', value: true }],
    ['op missing', { path: 'active', value: true }],
    ['op a number', { op: 1, path: 'active', value: true }],
    ['op empty', { op: '', path: 'active', value: true }],
    ['op "copy"', { op: 'copy', path: 'active', value: true }],
  ])('bad op (%s) -> 400 invalidSyntax', (_label, op) => {
    expect(expectPatchError(patchOf(op), 'invalidSyntax').detail).toBe(
      'Operations[0].op must be add, replace or remove',
    );
  });

  it.each<[string, unknown]>([
    ['Operations missing', { schemas: [PATCH_OP] }],
    ['Operations empty', { schemas: [PATCH_OP], Operations: [] }],
    ['Operations an object', { schemas: [PATCH_OP], Operations: { op: 'replace', path: 'active', value: false } }],
    ['Operations null', { schemas: [PATCH_OP], Operations: null }],
    ['an operation that is a string', { schemas: [PATCH_OP], Operations: ['replace'] }],
    ['an operation that is null', { schemas: [PATCH_OP], Operations: [null] }],
    [
      'a wrong schema (the core User)',
      { schemas: [CORE], Operations: [{ op: 'replace', path: 'active', value: false }] },
    ],
    [
      'a wrong schema (BulkRequest)',
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      },
    ],
    ['schemas a string', { schemas: PATCH_OP, Operations: [{ op: 'replace', path: 'active', value: false }] }],
    ['body null', null],
    ['body an array', [{ op: 'replace', path: 'active', value: false }]],
    ['body a string', 'Operations'],
    [
      `${MAX_OPERATIONS + 1} operations`,
      patchOf(...Array.from({ length: MAX_OPERATIONS + 1 }, () => ({ op: 'replace', path: 'active', value: false }))),
    ],
  ])('%s -> 400 invalidSyntax', (_label, patchBody) => {
    expectPatchError(patchBody, 'invalidSyntax');
  });

  it('the operations limit is 100, and 100 operations are accepted', () => {
    expect(MAX_OPERATIONS).toBe(100);
    const ops = Array.from({ length: 100 }, (_, i) => ({ op: 'replace', path: 'name.givenName', value: `Name${i}` }));
    expect(patched(...ops).givenName).toBe('Name99');
  });
});

// ---- simple core paths --------------------------------------------------------------------

describe('simple paths', () => {
  it.each<[string, JsonObject[], Partial<IdentityAttributes>]>([
    ['Replace path active "False"', [{ op: 'Replace', path: 'active', value: 'False' }], { active: false }],
    [
      'Replace path active "FALSE" then "True"',
      [
        { op: 'Replace', path: 'active', value: 'FALSE' },
        { op: 'Replace', path: 'active', value: 'True' },
      ],
      {},
    ],
    ['replace path active, boolean false', [{ op: 'replace', path: 'active', value: false }], { active: false }],
    [
      'Replace userName',
      [{ op: 'Replace', path: 'userName', value: 'anne@corp.example' }],
      { userName: 'anne@corp.example' },
    ],
    ['Replace externalId', [{ op: 'Replace', path: 'externalId', value: 'E-2002' }], { externalId: 'E-2002' }],
  ])('%s', (_label, ops, change) => {
    expect(patched(...ops)).toEqual({ ...CURRENT, ...change });
  });

  it.each<[string, string]>([
    ['plain', 'userName'],
    ['any case', 'USERNAME'],
    ['core URN', `${CORE}:userName`],
    ['core URN in upper case', `${CORE.toUpperCase()}:UserName`],
    ['core URN and name in upper case', `${CORE.toUpperCase()}:USERNAME`],
    ['surrounding spaces', '  userName '],
  ])('replace of userName by a %s path', (_label, path) => {
    expect(patched({ op: 'replace', path, value: 'anne@corp.example' })).toEqual({
      ...CURRENT,
      userName: 'anne@corp.example',
    });
  });
});

// ---- sub-attributes -----------------------------------------------------------------------

describe('sub-attributes', () => {
  it.each<[string, JsonObject, Partial<IdentityAttributes>]>([
    ['Replace name.familyName', { op: 'Replace', path: 'name.familyName', value: 'Holm' }, { familyName: 'Holm' }],
    ['Add name.givenName', { op: 'Add', path: 'name.givenName', value: 'Anne' }, { givenName: 'Anne' }],
    [
      'Replace core-URN-prefixed name.givenName',
      { op: 'Replace', path: `${CORE}:name.givenName`, value: 'Anne' },
      { givenName: 'Anne' },
    ],
  ])('%s', (_label, op, change) => {
    expect(patched(op)).toEqual({ ...CURRENT, ...change });
  });

  it.each<[string, JsonObject, Partial<IdentityAttributes>]>([
    [
      'replace with one listed and one unlisted sub-attribute',
      { op: 'replace', path: 'name', value: { familyName: 'Holm', middleName: 'M' } },
      { familyName: 'Holm' },
    ],
    [
      'replace with both sub-attributes',
      { op: 'replace', path: 'name', value: { givenName: 'Anne', familyName: 'Holm' } },
      { givenName: 'Anne', familyName: 'Holm' },
    ],
    [
      'add, path and sub-attribute names in other case',
      { op: 'add', path: 'NAME', value: { GivenName: 'Anne', FamilyName: 'Holm' } },
      { givenName: 'Anne', familyName: 'Holm' },
    ],
    ['add with one sub-attribute', { op: 'add', path: 'name', value: { familyName: 'Holm' } }, { familyName: 'Holm' }],
  ])('name with an object value merges sub-attributes; unlisted ones are ignored (%s)', (_label, op, change) => {
    expect(patched(op)).toEqual({ ...CURRENT, ...change });
  });

  it.each<[string, string]>([
    ['name.familyName', 'name.familyName'],
    ['NAME.GIVENNAME', 'name.givenName'],
  ])('remove of the sub-attribute %s removes it (and the PUT rules reject it)', (path, named) => {
    const user = applyPatch(current(), patchOf({ op: 'remove', path }));
    const name = JSON.parse(JSON.stringify(user.name)) as JsonObject;
    expect(Object.keys(name)).toHaveLength(1);
    const err = errorOf(() => toIdentityAttributes(user));
    expect({ status: err.status, scimType: err.scimType, detail: err.detail }).toEqual({
      status: 400,
      scimType: 'invalidValue',
      detail: `${named} is required`,
    });
  });
});

// ---- extension URN paths ------------------------------------------------------------------

describe('extension URN paths', () => {
  it.each<[string, JsonObject, Partial<IdentityAttributes>]>([
    [
      'Replace by URN path, value in upper case',
      { op: 'Replace', path: `${EXT}:affiliationType`, value: 'ENGAGEMENT' },
      { affiliationType: 'engagement' },
    ],
    [
      'Replace by URN path, value capitalised',
      { op: 'Replace', path: `${EXT}:affiliationType`, value: 'Engagement' },
      { affiliationType: 'engagement' },
    ],
    [
      'Add, URN and name in upper case',
      { op: 'Add', path: `${EXT.toUpperCase()}:PERSONALPHONE`, value: '+4522113344' },
      { personalPhone: '+4522113344' },
    ],
  ])('%s', (_label, op, change) => {
    expect(patched(op)).toEqual({ ...CURRENT, ...change });
  });

  it.each<[string, Partial<IdentityAttributes>]>([
    ['not yet set', {}],
    ['already set', { directoryUserPrincipalName: 'anna@corp.example' }],
  ])('Replace directoryUserPrincipalName (%s)', (_label, overrides) => {
    const op = { op: 'Replace', path: `${EXT}:directoryUserPrincipalName`, value: 'anna.b@corp.example' };
    expect(patchedFrom(overrides, op)).toEqual({ ...CURRENT, directoryUserPrincipalName: 'anna.b@corp.example' });
  });

  it('the extension URN as path with an object value merges, keeping other attributes', () => {
    expect(
      patched({
        op: 'replace',
        path: EXT,
        value: { affiliationType: 'other', birthDate: '1991-02-03', nationality: 'de' },
      }),
    ).toEqual({
      ...CURRENT,
      affiliationType: 'other',
      birthDate: '1991-02-03',
      nationality: 'DE',
    });
  });

  it('remove of an optional extension attribute clears it', () => {
    const result = patched({ op: 'Remove', path: `${EXT}:birthDate` });
    expect(result).not.toHaveProperty('birthDate');
    const { birthDate: _removed, ...rest } = CURRENT;
    expect(result).toEqual(rest);
  });

  it('null as the value of an optional attribute clears it', () => {
    const { nationality: _removed, ...rest } = CURRENT;
    expect(patched({ op: 'replace', path: `${EXT}:nationality`, value: null })).toEqual(rest);
  });
});

// ---- whole multi-valued attributes (Okta) -------------------------------------------------

describe('whole lists', () => {
  it.each<[string, JsonObject]>([
    ['all upper or all lower', { TYPE: 'IDENTITYCARD', IssuingCountry: 'FI', documentnumber: 'F-6' }],
    ['capitalised', { Type: 'IDENTITYCARD', IssuingCountry: 'FI', DocumentNumber: 'F-6' }],
  ])(
    'replace of identityDocumentReferences replaces the whole list, member names in any case (%s)',
    (_label, second) => {
      const result = patched({
        op: 'replace',
        path: `${EXT}:identityDocumentReferences`,
        value: [{ type: 'passport', issuingCountry: 'no', documentNumber: 'N-5' }, second],
      });
      expect(result.identityDocumentReferences).toEqual([
        { type: 'Passport', issuingCountry: 'NO', documentNumber: 'N-5' },
        { type: 'IdentityCard', issuingCountry: 'FI', documentNumber: 'F-6' },
      ]);
      expect(result.personalNumbers).toEqual(CURRENT.personalNumbers);
    },
  );

  it.each<[string, unknown, IdentityAttributes['personalNumbers']]>([
    ['a list', [{ type: 'dkcpr', value: '020290-4321' }], [{ type: 'DkCpr', value: '0202904321' }]],
    ['an empty list', [], []],
    ['null', null, []],
  ])('replace of personalNumbers with %s', (_label, value, expected) => {
    expect(patched({ op: 'replace', path: `${EXT}:personalNumbers`, value }).personalNumbers).toEqual(expected);
  });

  it('replace of identityDocumentReferences with an empty list', () => {
    expect(
      patched({ op: 'replace', path: `${EXT}:identityDocumentReferences`, value: [] }).identityDocumentReferences,
    ).toEqual([]);
  });

  it('add of document items appends them; an item already present is not added twice', () => {
    const result = patched({
      op: 'add',
      path: `${EXT}:identityDocumentReferences`,
      value: [
        { type: 'Passport', issuingCountry: 'FI', documentNumber: 'F-1' },
        { type: 'passport', issuingCountry: 'dk', documentNumber: 'P-1' },
      ],
    });
    expect(result.identityDocumentReferences).toEqual([
      ...CURRENT.identityDocumentReferences,
      { type: 'Passport', issuingCountry: 'FI', documentNumber: 'F-1' },
    ]);
  });

  it.each<[string, unknown]>([
    ['an object', { type: 'DkCpr', value: '020290-4321' }],
    ['an object with a lower-case type', { type: 'dkcpr', value: '0202904321' }],
    ['a list', [{ type: 'DkCpr', value: '020290-4321' }]],
    ['a list with a lower-case type', [{ type: 'dkcpr', value: '0202904321' }]],
  ])('add of a personal number (%s) whose type exists replaces it: one per type', (_label, value) => {
    expect(patched({ op: 'add', path: `${EXT}:personalNumbers`, value }).personalNumbers).toEqual([
      { type: 'DkCpr', value: '0202904321' },
    ]);
  });

  it('add of personalNumbers to an empty list', () => {
    expect(
      patchedFrom(
        { personalNumbers: [] },
        { op: 'add', path: `${EXT}:personalNumbers`, value: { type: 'DkCpr', value: '0202904321' } },
      ).personalNumbers,
    ).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });
});

// ---- value-path filters -------------------------------------------------------------------

describe('value-path filters', () => {
  it.each<[string, string]>([
    ['add', 'add'],
    ['replace (Entra sends replace for new items too)', 'Replace'],
  ])('%s on personalNumbers[type eq "DkCpr"].value with no match creates the item', (_label, op) => {
    const result = patchedFrom(
      { personalNumbers: [] },
      { op, path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '311299-4321' },
    );
    expect(result.personalNumbers).toEqual([{ type: 'DkCpr', value: '3112994321' }]);
  });

  it('add with an "and" filter and no match creates the item from both eq values, appended', () => {
    const result = patched({
      op: 'add',
      path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "NO"].documentNumber`,
      value: 'N-1',
    });
    expect(result.identityDocumentReferences).toEqual([
      ...CURRENT.identityDocumentReferences,
      { type: 'Passport', issuingCountry: 'NO', documentNumber: 'N-1' },
    ]);
  });

  it.each<[string, string, string, IdentityAttributes['identityDocumentReferences']]>([
    ['exact case', 'Passport', 'DK', [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'D-1' }]],
    [
      'another case: the item gets the canonical type',
      'identitycard',
      'de',
      [{ type: 'IdentityCard', issuingCountry: 'DE', documentNumber: 'D-1' }],
    ],
  ])('add with an "and" filter on an empty list creates the item (%s)', (_label, type, country, expected) => {
    const result = patchedFrom(
      { identityDocumentReferences: [] },
      {
        op: 'add',
        path: `${EXT}:identityDocumentReferences[type eq "${type}" and issuingCountry eq "${country}"].documentNumber`,
        value: 'D-1',
      },
    );
    expect(result.identityDocumentReferences).toEqual(expected);
  });

  it.each<[string, string]>([
    ['exact type', 'DkCpr'],
    ['type in upper case', 'DKCPR'],
    ['type in lower case', 'dkcpr'],
  ])('replace on a matching value path (%s) changes the matching item', (_label, type) => {
    expect(
      patched({ op: 'replace', path: `${EXT}:personalNumbers[type eq "${type}"].value`, value: '020290-4321' })
        .personalNumbers,
    ).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it.each<[string, string]>([
    ['exact case', 'SE'],
    ['issuingCountry in lower case', 'se'],
  ])('replace on an "and" filter changes only the item matching both (%s)', (_label, country) => {
    const result = patched({
      op: 'replace',
      path: `${EXT}:identityDocumentReferences[type eq "IdentityCard" and issuingCountry eq "${country}"].documentNumber`,
      value: 'ID-3',
    });
    expect(result.identityDocumentReferences).toEqual([
      CURRENT.identityDocumentReferences[0],
      { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-3' },
    ]);
  });

  it('replace on identityDocumentReferences[type eq "Passport"].documentNumber', () => {
    const result = patched({
      op: 'replace',
      path: `${EXT}:identityDocumentReferences[type eq "Passport"].documentNumber`,
      value: 'P-2',
    });
    expect(result.identityDocumentReferences).toEqual([
      { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-2' },
      CURRENT.identityDocumentReferences[1],
    ]);
  });

  it('the list paths need no URN', () => {
    expect(
      patched({ op: 'replace', path: 'identityDocumentReferences[type eq "Passport"].documentNumber', value: 'P-2' })
        .identityDocumentReferences[0]?.documentNumber,
    ).toBe('P-2');
    expect(patched({ op: 'remove', path: 'PersonalNumbers[Type eq "DkCpr"]' }).personalNumbers).toEqual([]);
    expect(patched({ op: 'remove', path: 'personalNumbers[type eq "DkCpr"]' }).personalNumbers).toEqual([]);
  });

  it('a CPR filter value matches with or without the dash', () => {
    expect(patched({ op: 'remove', path: `${EXT}:personalNumbers[value eq "010190-1234"]` }).personalNumbers).toEqual(
      [],
    );
  });

  it('a value path without sub-attribute and an object value merges into the matching item', () => {
    const result = patched({
      op: 'replace',
      path: `${EXT}:identityDocumentReferences[type eq "Passport"]`,
      value: { DocumentNumber: 'P-2', issuingCountry: 'no' },
    });
    expect(result.identityDocumentReferences).toEqual([
      { type: 'Passport', issuingCountry: 'NO', documentNumber: 'P-2' },
      CURRENT.identityDocumentReferences[1],
    ]);
  });

  it.each<[string, unknown]>([
    ['an object', { value: '0202904321' }],
    ['a list', [{ value: '0202904321' }]],
  ])('a value path without sub-attribute and no match creates the item from filter and %s', (_label, value) => {
    expect(
      patchedFrom({ personalNumbers: [] }, { op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"]`, value })
        .personalNumbers,
    ).toEqual([{ type: 'DkCpr', value: '0202904321' }]);
  });

  it.each<[string, string, IdentityAttributes['identityDocumentReferences']]>([
    [
      'by type',
      `${EXT}:identityDocumentReferences[type eq "Passport"]`,
      [{ type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' }],
    ],
    [
      'by type, lower case',
      `${EXT}:identityDocumentReferences[type eq "identitycard"]`,
      [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' }],
    ],
    [
      'by two conditions',
      `${EXT}:identityDocumentReferences[type eq "IdentityCard" and issuingCountry eq "SE"]`,
      [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' }],
    ],
    [
      'by documentNumber',
      `${EXT}:identityDocumentReferences[documentNumber eq "ID-2"]`,
      [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-1' }],
    ],
    [
      'documentNumber is case-exact',
      `${EXT}:identityDocumentReferences[documentNumber eq "id-2"]`,
      CURRENT.identityDocumentReferences,
    ],
    [
      'with no match: no change',
      `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "FI"]`,
      CURRENT.identityDocumentReferences,
    ],
    ['the whole list', `${EXT}:identityDocumentReferences`, []],
  ])('remove documents %s', (_label, path, expected) => {
    expect(patched({ op: 'remove', path }).identityDocumentReferences).toEqual(expected);
  });

  it('remove of a personalNumbers item by filter', () => {
    const result = patched({ op: 'Remove', path: `${EXT}:personalNumbers[type eq "DkCpr"]` });
    expect(result.personalNumbers).toEqual([]);
    expect(result.identityDocumentReferences).toEqual(CURRENT.identityDocumentReferences);
  });

  it('remove of a required sub-attribute of an item leaves the item without it, and validation fails naming it', () => {
    const user = applyPatch(
      current(),
      patchOf({ op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "Passport"].documentNumber` }),
    );
    const docs = (user[EXT] as { identityDocumentReferences: JsonObject[] }).identityDocumentReferences;
    expect(JSON.parse(JSON.stringify(docs))).toEqual([
      { type: 'Passport', issuingCountry: 'DK' },
      { type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'ID-2' },
    ]);
    const err = errorOf(() => toIdentityAttributes(user));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toBe(`${EXT}:identityDocumentReferences[0].documentNumber is required`);
  });
});

// ---- no-path object values ----------------------------------------------------------------

describe('no-path object values', () => {
  it.each<[string, JsonObject[], Partial<IdentityAttributes>]>([
    ['{"op":"Replace","value":{"active":"False"}}', [{ op: 'Replace', value: { active: 'False' } }], { active: false }],
    [
      'active "False" then "True"',
      [
        { op: 'Replace', value: { active: 'False' } },
        { op: 'Replace', value: { active: 'True' } },
      ],
      {},
    ],
  ])('%s', (_label, ops, change) => {
    expect(patched(...ops)).toEqual({ ...CURRENT, ...change });
  });

  it('a no-path value with plain, dotted, core-URN, extension-URN and ignored keys', () => {
    const result = patched({
      op: 'Replace',
      value: {
        ACTIVE: 'false',
        'name.givenName': 'Anne',
        'NAME.FAMILYNAME': 'Holm',
        [`${CORE}:userName`]: 'anne@corp.example',
        [`${EXT}:affiliationType`]: 'Other',
        [`${EXT}:birthDate`]: '1991-02-03',
        [`${EXT.toLowerCase()}:nationality`]: 'no',
        emails: [{ type: 'work', value: 'x@corp.example' }],
        'emails[type eq "work"].value': 'x@corp.example',
        [ENTERPRISE]: { department: 'HR' },
      },
    });
    expect(result).toEqual({
      ...CURRENT,
      active: false,
      givenName: 'Anne',
      familyName: 'Holm',
      userName: 'anne@corp.example',
      affiliationType: 'other',
      birthDate: '1991-02-03',
      nationality: 'NO',
    });
  });

  it('a no-path value with the extension URN holding an object merges into the extension', () => {
    const result = patched({
      op: 'Add',
      value: {
        externalId: 'E-2',
        [EXT.toUpperCase()]: { AffiliationType: 'Enrollment', personalEmail: 'anna@home.example', nationality: 'se' },
      },
    });
    expect(result).toEqual({
      ...CURRENT,
      externalId: 'E-2',
      affiliationType: 'enrollment',
      personalEmail: 'anna@home.example',
      nationality: 'SE',
    });
  });

  it('replace of a whole list through a no-path extension object', () => {
    const result = patched({
      op: 'replace',
      value: {
        [EXT]: { identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-9' }] },
      },
    });
    expect(result.identityDocumentReferences).toEqual([
      { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P-9' },
    ]);
  });

  it.each<[string, JsonObject]>([
    ['a string', { op: 'replace', value: 'x' }],
    ['an array', { op: 'add', value: [{ active: false }] }],
    ['missing', { op: 'add' }],
  ])('a no-path value that is %s -> 400 invalidSyntax', (_label, op) => {
    expectPatchError(patchOf(op), 'invalidSyntax');
  });
});

// ---- remove rules -------------------------------------------------------------------------

describe('remove rules', () => {
  it.each<[string, JsonObject]>([
    ['no path member', { op: 'remove' }],
    ['null path', { op: 'Remove', path: null }],
    ['empty path', { op: 'remove', path: '' }],
    ['blank path', { op: 'REMOVE', path: '  ' }],
    ['no path, with a value', { op: 'remove', value: { active: false } }],
  ])('remove with %s -> 400 noTarget', (_label, op) => {
    expectPatchError(patchOf(op), 'noTarget');
  });

  it.each<[string, string, string]>([
    ['userName', 'userName', 'userName is required'],
    ['externalId', 'externalId', 'externalId is required'],
    ['name', 'name', 'name is required'],
    ['name.givenName', 'name.givenName', 'name.givenName is required'],
    ['affiliationType', `${EXT}:affiliationType`, `${EXT}:affiliationType is required`],
    ['the whole extension', EXT, `${EXT} is required`],
  ])('remove of %s then toIdentityAttributes -> invalidValue naming it', (_label, path, detail) => {
    const user = applyPatch(current(), patchOf({ op: 'remove', path }));
    const err = errorOf(() => toIdentityAttributes(user));
    expect({ status: err.status, scimType: err.scimType, detail: err.detail }).toEqual({
      status: 400,
      scimType: 'invalidValue',
      detail,
    });
  });

  it('remove of userName leaves the result without userName', () => {
    expect(applyPatch(current(), patchOf({ op: 'remove', path: 'userName' })).userName).toBeUndefined();
  });

  it('remove of active leaves the default true', () => {
    expect(patchedFrom({ active: false }, { op: 'remove', path: 'active' }).active).toBe(true);
  });
});

// ---- mutability: read-only attributes -----------------------------------------------------

describe('mutability: read-only attributes', () => {
  it.each<[string, JsonObject]>([
    ['id', { op: 'replace', path: 'id', value: 'x' }],
    ['ID', { op: 'replace', path: 'ID', value: 'x' }],
    ['core-URN id', { op: 'replace', path: `${CORE}:id`, value: 'x' }],
    ['meta', { op: 'remove', path: 'meta' }],
    ['meta.version', { op: 'replace', path: 'meta.version', value: 'W/"9"' }],
    ['meta.lastModified', { op: 'replace', path: 'meta.lastModified', value: '2020-01-01T00:00:00Z' }],
    ['schemas', { op: 'add', path: 'schemas', value: ['x'] }],
    ['<URN>:directoryLinkStatus', { op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'linked' }],
    ['<URN>:directoryLinkSource', { op: 'remove', path: `${EXT}:directoryLinkSource` }],
    ['<URN>:DIRECTORYLINKEDUSERID', { op: 'add', path: `${EXT}:DIRECTORYLINKEDUSERID`, value: 'x' }],
    ['directoryLinkStatus without URN', { op: 'replace', path: 'directoryLinkStatus', value: 'linked' }],
    ['meta in a no-path value', { op: 'replace', value: { meta: { version: 'W/"1"' } } }],
    ['id alone in a no-path value', { op: 'replace', value: { id: 'x' } }],
    ['id beside another key in a no-path value', { op: 'add', value: { active: true, id: 'x' } }],
    [
      'a read-only attribute in a no-path extension object',
      { op: 'replace', value: { [EXT]: { directoryLinkStatus: 'linked' } } },
    ],
    [
      'a flattened read-only key in a no-path value (directoryLinkedUserId)',
      { op: 'replace', value: { [`${EXT}:directoryLinkedUserId`]: 'x' } },
    ],
    [
      'a flattened read-only key in a no-path value (directoryLinkStatus)',
      { op: 'replace', value: { [`${EXT}:directoryLinkStatus`]: 'linked' } },
    ],
    [
      'a read-only attribute in an extension-URN path value',
      { op: 'add', path: EXT, value: { directoryLinkSource: 'manual' } },
    ],
  ])('%s -> 400 mutability', (_label, op) => {
    expect(expectPatchError(patchOf(op), 'mutability').detail).toContain('read-only');
  });
});

// ---- ignored core attributes --------------------------------------------------------------

describe('ignored core attributes', () => {
  it.each<[string, JsonObject[]]>([
    [
      'Add emails[type eq "work"].value',
      [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'anna@corp.example' }],
    ],
    [
      'Replace phoneNumbers[type eq "mobile"].value',
      [{ op: 'Replace', path: 'phoneNumbers[type eq "mobile"].value', value: '+4511111111' }],
    ],
    ['Remove emails[type eq "work"]', [{ op: 'Remove', path: 'emails[type eq "work"]' }]],
    [
      'Replace displayName and title',
      [
        { op: 'Replace', path: 'displayName', value: 'Anna B' },
        { op: 'Replace', path: 'title', value: 'CTO' },
      ],
    ],
    ['Replace name.middleName', [{ op: 'Replace', path: 'name.middleName', value: 'M' }]],
    ['Add enterprise manager', [{ op: 'Add', path: `${ENTERPRISE}:manager`, value: 'boss' }]],
    ['Add enterprise department', [{ op: 'Add', path: `${ENTERPRISE}:department`, value: 'HR' }]],
    [
      'constructor and prototype in a no-path value',
      [{ op: 'add', value: { constructor: { prototype: { polluted: 1 } }, prototype: { polluted: 1 } } }],
    ],
  ])('%s is ignored', (_label, ops) => {
    expect(patched(...ops)).toEqual(CURRENT);
  });

  it('a path of exactly the maximum length is parsed', () => {
    const path = `emails${'x'.repeat(MAX_PATH_LENGTH - 6)}`;
    expect(path).toHaveLength(MAX_PATH_LENGTH);
    expect(patched({ op: 'replace', path, value: 'x' })).toEqual(CURRENT);
  });
});

// ---- atomicity and purity -----------------------------------------------------------------

describe('atomicity', () => {
  it.each<[string, JsonObject[], string]>([
    [
      'read-only id',
      [
        { op: 'replace', path: 'userName', value: 'changed@corp.example' },
        { op: 'replace', path: 'id', value: 'x' },
      ],
      'mutability',
    ],
    [
      'read-only meta.version',
      [
        { op: 'replace', path: 'userName', value: 'x@corp.example' },
        { op: 'replace', path: 'meta.version', value: 'x' },
      ],
      'mutability',
    ],
    ['a bad op', [{ op: 'remove', path: `${EXT}:personalNumbers[type eq "DkCpr"]` }, { op: 'bogus' }], 'invalidSyntax'],
  ])('a PATCH that fails halfway (%s) fails whole: current is not changed', (_label, ops, scimType) => {
    const user = identityToScimInput(CURRENT);
    const before = JSON.stringify(user);
    const err = errorOf(() => applyPatch(user, patchOf(...ops)));
    expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType });
    expect(JSON.stringify(user)).toBe(before);
  });
});

describe('purity', () => {
  const OPS: Array<[string, JsonObject[]]> = [
    [
      'no-path replace',
      [
        {
          op: 'Replace',
          value: { active: 'False', name: { givenName: 'Anne', familyName: 'Holm' }, [EXT]: { nationality: 'se' } },
        },
      ],
    ],
    [
      'name sub-attributes',
      [
        { op: 'replace', path: 'name.familyName', value: 'Holm' },
        { op: 'remove', path: 'name.givenName' },
      ],
    ],
    [
      'value paths: item objects and sub-attributes',
      [
        {
          op: 'add',
          path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "NO"].documentNumber`,
          value: 'N-1',
        },
        {
          op: 'replace',
          path: `${EXT}:identityDocumentReferences[type eq "Passport"]`,
          value: { documentNumber: 'P-2' },
        },
        { op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "IdentityCard"].documentNumber` },
        { op: 'replace', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '0202904321' },
      ],
    ],
    [
      'value paths: "and" filters and whole items',
      [
        {
          op: 'add',
          path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "NO"].documentNumber`,
          value: 'N-1',
        },
        {
          op: 'replace',
          path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "DK"].documentNumber`,
          value: 'P-2',
        },
        { op: 'remove', path: `${EXT}:identityDocumentReferences[type eq "IdentityCard"]` },
        { op: 'replace', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '0202904321' },
      ],
    ],
    [
      'whole lists',
      [
        { op: 'add', path: `${EXT}:personalNumbers`, value: [{ type: 'dkcpr', value: '020290-4321' }] },
        {
          op: 'replace',
          path: `${EXT}:identityDocumentReferences`,
          value: [{ type: 'passport', issuingCountry: 'dk', documentNumber: 'x' }],
        },
      ],
    ],
    ['remove of the extension', [{ op: 'remove', path: EXT }]],
  ];

  it.each(OPS)('%s: current and body are frozen and unchanged; the result is a new object', (_label, ops) => {
    const user = identityToScimInput(CURRENT);
    const patchBody = patchOf(...ops);
    const userBefore = JSON.stringify(user);
    const bodyBefore = JSON.stringify(patchBody);
    const out = applyPatch(deepFreeze(user), deepFreeze(patchBody));
    expect(JSON.stringify(user)).toBe(userBefore);
    expect(JSON.stringify(patchBody)).toBe(bodyBefore);
    expect(out).not.toBe(user);
  });

  it('changing the result does not change current', () => {
    const user = identityToScimInput(CURRENT);
    const before = JSON.stringify(user);
    const out = applyPatch(user, patchOf({ op: 'replace', path: 'active', value: false }));
    const ext = out[EXT] as { identityDocumentReferences: JsonObject[]; personalNumbers: JsonObject[] };
    (out.name as JsonObject).givenName = 'changed';
    (ext.identityDocumentReferences[0] as JsonObject).documentNumber = 'changed';
    (ext.personalNumbers[0] as JsonObject).value = 'changed';
    expect(JSON.stringify(user)).toBe(before);
  });

  it('the same PATCH applied twice gives the same result', () => {
    const ops = patchOf(
      { op: 'add', path: `${EXT}:personalNumbers`, value: { type: 'DkCpr', value: '0202904321' } },
      {
        op: 'add',
        path: `${EXT}:identityDocumentReferences`,
        value: { type: 'Passport', issuingCountry: 'FI', documentNumber: 'F-1' },
      },
      { op: 'replace', value: { active: 'false' } },
    );
    const once = toIdentityAttributes(applyPatch(current(), ops));
    expect(toIdentityAttributes(applyPatch(identityToScimInput(once), ops))).toEqual(once);
  });
});

// ---- errors: paths, and details that never echo values ------------------------------------

describe('invalid paths', () => {
  it.each<[string, string]>([
    ['missing closing bracket', `${EXT}:personalNumbers[type eq "DkCpr".value`],
    ['missing closing bracket, no sub-attribute', `${EXT}:personalNumbers[type eq "DkCpr"`],
    ['missing closing bracket, no sub-attribute, no URN', 'personalNumbers[type eq "DkCpr"'],
    ['missing closing bracket on an ignored attribute', 'emails[type eq "work".value'],
    ['extra closing bracket', `${EXT}:personalNumbers[type eq "DkCpr"]]`],
    ['nested bracket', `${EXT}:personalNumbers[type[eq "DkCpr"]`],
    ['unquoted filter value', `${EXT}:personalNumbers[type eq DkCpr].value`],
    ['unsupported operator co', `${EXT}:personalNumbers[type co "Dk"]`],
    ['unsupported operator ne', `${EXT}:personalNumbers[type ne "DkCpr"]`],
    ['or', `${EXT}:identityDocumentReferences[type eq "Passport" or type eq "IdentityCard"]`],
    ['trailing and', `${EXT}:personalNumbers[type eq "DkCpr" and]`],
    ['empty filter', `${EXT}:personalNumbers[]`],
    ['unterminated string', `${EXT}:personalNumbers[type eq "DkCpr]`],
    ['invalid escape', `${EXT}:personalNumbers[type eq "Dk\\qCpr"]`],
    ['unknown filter sub-attribute', `${EXT}:personalNumbers[kind eq "DkCpr"]`],
    ['junk after the filter', `${EXT}:personalNumbers[type eq "DkCpr"]value`],
    ['two sub-attributes', `${EXT}:personalNumbers[type eq "DkCpr"].value.x`],
    ['sub-attribute of a list without filter', `${EXT}:personalNumbers.value`],
    ['filter on a simple extension attribute', `${EXT}:birthDate[type eq "x"]`],
    ['sub-attribute of a simple extension attribute', `${EXT}:birthDate.year`],
    ['filter on a single-valued core attribute', 'userName[value eq "x"]'],
    ['sub-attribute of a simple core attribute', 'active.value'],
    ['three segments', 'name.givenName.first'],
    ['leading dot', '.givenName'],
    ['space inside', 'user Name'],
    ['the extension URN followed by a colon only', `${EXT}:`],
    ['the core URN alone', CORE],
    ['a lone bracket', '['],
    ['too long', `name.${'g'.repeat(MAX_PATH_LENGTH)}`],
  ])('%s -> 400 invalidPath', (_label, path) => {
    expectPatchError(patchOf({ op: 'replace', path, value: 'x' }), 'invalidPath');
  });

  it.each<[string, unknown]>([
    ['an array', ['active']],
    ['a number', 42],
  ])('a path that is %s -> 400 invalidPath', (_label, path) => {
    expectPatchError(patchOf({ op: 'replace', path, value: false }), 'invalidPath');
  });
});

describe('errors never echo values', () => {
  it.each<[string, JsonObject, string]>([
    ['by path', { op: 'add', path: `${EXT}:affiliatonType`, value: 'Qx7-value' }, 'affiliatonType'],
    [
      'in a no-path extension object',
      { op: 'add', value: { [EXT]: { favouriteColour: 'Qx7-value' } } },
      'favouriteColour',
    ],
    ['as a flattened no-path key', { op: 'add', value: { [`${EXT}:cprNumber`]: 'Qx7-value' } }, 'cprNumber'],
    ['in an extension-URN path value', { op: 'replace', path: EXT, value: { nickName: 'Qx7-value' } }, 'nickName'],
    [
      'as a list item key',
      {
        op: 'add',
        path: `${EXT}:personalNumbers`,
        value: [{ type: 'DkCpr', value: '0101901234', issuer: 'Qx7-value' }],
      },
      'issuer',
    ],
  ])('unknown service-extension attribute %s -> 400 invalidSyntax naming it, not the value', (_label, op, named) => {
    expect(expectPatchError(patchOf(op), 'invalidSyntax', 'Qx7').detail).toContain(named);
  });

  it('an unknown sub-attribute after the filter is rejected like in a PUT', () => {
    expectPatchError(
      patchOf({ op: 'add', path: `${EXT}:identityDocumentReferences[type eq "Passport"].expiry`, value: 'Qx7' }),
      'invalidSyntax',
      'Qx7',
    );
  });

  it('a value path without sub-attribute needs object values', () => {
    expectPatchError(
      patchOf({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"]`, value: '0202904321' }),
      'invalidValue',
      '0202904321',
    );
  });

  it('a value-path change whose result is invalid fails validation without the value', () => {
    const user = applyPatch(
      current(),
      patchOf({ op: 'replace', path: `${EXT}:personalNumbers[type eq "DkCpr"].value`, value: '3213999999' }),
    );
    const err = errorOf(() => toIdentityAttributes(user));
    expect(err.scimType).toBe('invalidValue');
    expect(err.detail).toContain(`${EXT}:personalNumbers[0].value`);
    expect(err.detail).not.toContain('3213999999');
  });

  it('invalidPath details do not repeat filter values', () => {
    expectPatchError(
      patchOf({ op: 'remove', path: `${EXT}:personalNumbers[value eq "0101901234" or value eq "0202904321"]` }),
      'invalidPath',
      '0101901234',
      '0202904321',
    );
    expectPatchError(
      patchOf({ op: 'remove', path: `${EXT}:personalNumbers[value eq "0101901234"` }),
      'invalidPath',
      '0101901234',
    );
  });
});

// ---- prototype pollution ------------------------------------------------------------------

describe('prototype pollution', () => {
  it.each<[string, string]>([
    ['no-path __proto__', '{"op":"add","value":{"__proto__":{"polluted":1}}}'],
    ['no-path constructor.prototype', '{"op":"add","value":{"constructor.prototype":{"polluted":1}}}'],
    ['no-path __proto__ under the extension', `{"op":"add","value":{"${EXT}":{"__proto__":{"polluted":1}}}}`],
    [
      'extension path with __proto__ in the value',
      `{"op":"replace","path":"${EXT}","value":{"__proto__":{"polluted":1}}}`,
    ],
    ['path __proto__', '{"op":"add","path":"__proto__","value":{"polluted":1}}'],
    ['path __proto__.polluted', '{"op":"add","path":"__proto__.polluted","value":1}'],
    ['path constructor.prototype', '{"op":"add","path":"constructor.prototype","value":{"polluted":1}}'],
    ['path prototype', '{"op":"replace","path":"prototype","value":{"polluted":1}}'],
    ['path <URN>:__proto__', `{"op":"add","path":"${EXT}:__proto__","value":{"polluted":1}}`],
    ['name with __proto__', '{"op":"add","path":"name","value":{"__proto__":{"polluted":1},"givenName":"Anne"}}'],
    [
      'new list item with __proto__',
      `{"op":"add","path":"${EXT}:personalNumbers[type eq \\"DkCpr\\"]","value":{"__proto__":{"polluted":1},"value":"0202904321"}}`,
    ],
    [
      'matched list item with __proto__',
      `{"op":"replace","path":"${EXT}:identityDocumentReferences[type eq \\"Passport\\"]","value":{"__proto__":{"polluted":1}}}`,
    ],
    [
      'list item sub-attribute constructor',
      `{"op":"replace","path":"${EXT}:identityDocumentReferences[type eq \\"Passport\\"].constructor","value":{"prototype":{"polluted":1}}}`,
    ],
  ])('%s never reaches Object.prototype', (_label, opJson) => {
    const op = JSON.parse(opJson) as JsonObject;
    for (const run of [
      () => applyPatch(current({ personalNumbers: [] }), patchOf(op)),
      () => toIdentityAttributes(applyPatch(current({ personalNumbers: [] }), patchOf(op))),
    ]) {
      try {
        run();
      } catch (err) {
        expect(err).toBeInstanceOf(ScimError);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('a no-path __proto__ key is not an attribute name (RFC 7643 ATTRNAME starts with a letter) -> invalidPath', () => {
    expectPatchError(
      patchOf(JSON.parse('{"op":"add","value":{"__proto__":{"userName":"x"}}}') as JsonObject),
      'invalidPath',
    );
    expect(({} as Record<string, unknown>).userName).toBeUndefined();
  });

  it('__proto__ under the extension in a no-path value -> invalidSyntax', () => {
    expectPatchError(
      patchOf(JSON.parse(`{"op":"add","value":{"${EXT}":{"__proto__":{"polluted":1}}}}`) as JsonObject),
      'invalidSyntax',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

// ---- parsePatchPath -----------------------------------------------------------------------

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
    [EXT.toUpperCase(), { scope: 'ext', attribute: '' }],
    [EXT.toLowerCase(), { scope: 'ext', attribute: '' }],
    [`${EXT}:BirthDate`, { scope: 'ext', attribute: 'birthDate' }],
    [`${EXT}:BIRTHDATE`, { scope: 'ext', attribute: 'birthDate' }],
    [
      `${EXT}:personalNumbers[TYPE EQ "DkCpr"].VALUE`,
      {
        scope: 'ext',
        attribute: 'personalNumbers',
        filter: { conditions: [{ attribute: 'type', value: 'DkCpr' }] },
        sub: 'value',
      },
    ],
    [
      `${EXT}:PersonalNumbers[Type eq "DkCpr"].Value`,
      {
        scope: 'ext',
        attribute: 'personalNumbers',
        filter: { conditions: [{ attribute: 'type', value: 'DkCpr' }] },
        sub: 'value',
      },
    ],
    [
      'personalNumbers[type eq "DkCpr"]',
      { scope: 'ext', attribute: 'personalNumbers', filter: { conditions: [{ attribute: 'type', value: 'DkCpr' }] } },
    ],
    [
      `${EXT}:identityDocumentReferences[type EQ "Passport" AND issuingCountry eq "DK"].documentNumber`,
      {
        scope: 'ext',
        attribute: 'identityDocumentReferences',
        filter: {
          conditions: [
            { attribute: 'type', value: 'Passport' },
            { attribute: 'issuingcountry', value: 'DK' },
          ],
        },
        sub: 'documentnumber',
      },
    ],
    [
      'identityDocumentReferences[type eq "Passport" AND documentNumber eq "a \\"b\\" ]c"]',
      {
        scope: 'ext',
        attribute: 'identityDocumentReferences',
        filter: {
          conditions: [
            { attribute: 'type', value: 'Passport' },
            { attribute: 'documentnumber', value: 'a "b" ]c' },
          ],
        },
      },
    ],
    [
      `${EXT}:identityDocumentReferences[documentNumber eq "a \\"q\\" ]b"]`,
      {
        scope: 'ext',
        attribute: 'identityDocumentReferences',
        filter: { conditions: [{ attribute: 'documentnumber', value: 'a "q" ]b' }] },
      },
    ],
    ['emails[type eq "work"].value', { scope: 'ignored', attribute: '' }],
    ['displayName', { scope: 'ignored', attribute: '' }],
    ['name.middleName', { scope: 'ignored', attribute: '' }],
    [`${ENTERPRISE}:manager`, { scope: 'ignored', attribute: '' }],
    [`${ENTERPRISE}:manager.value`, { scope: 'ignored', attribute: '' }],
  ])('%s', (path, expected) => {
    expect(parsePatchPath(path)).toStrictEqual(expected);
  });

  it.each<[string, string]>([
    ['id', 'mutability'],
    ['meta.lastModified', 'mutability'],
    [`${EXT}:directoryLinkStatus`, 'mutability'],
    ['directoryLinkedUserId', 'mutability'],
    [`${EXT}:nickName`, 'invalidSyntax'],
    ['', 'invalidPath'],
    [`${EXT}:personalNumbers[type eq "DkCpr"`, 'invalidPath'],
    ['x'.repeat(MAX_PATH_LENGTH + 1), 'invalidPath'],
  ])('%s -> %s', (path, scimType) => {
    const err = errorOf(() => parsePatchPath(path));
    expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType });
  });
});

// ---- regressions --------------------------------------------------------------------------

describe('regressions: fixed PATCH and input bugs', () => {
  /** The user the bugs were found with: no personal numbers and a single passport. */
  const ONE_PASSPORT: Partial<IdentityAttributes> = {
    personalNumbers: [],
    identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' }],
  };

  it('issuingCountry filters ignore case', () => {
    const r = patchedFrom(ONE_PASSPORT, {
      op: 'replace',
      path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "dk"].documentNumber`,
      value: 'P2',
    });
    expect(r.identityDocumentReferences).toEqual([{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P2' }]);
  });

  it('replace of name with one sub-attribute keeps the other', () => {
    expect(patchedFrom(ONE_PASSPORT, { op: 'replace', path: 'name', value: { givenName: 'NEW' } })).toMatchObject({
      givenName: 'NEW',
      familyName: 'Berg',
    });
    expect(patchedFrom(ONE_PASSPORT, { op: 'replace', value: { name: { givenName: 'NEW' } } })).toMatchObject({
      givenName: 'NEW',
      familyName: 'Berg',
    });
  });

  it('prototype member names are unknown attributes like any other', () => {
    const user = {
      externalId: 'e',
      userName: 'u',
      name: { givenName: 'G', familyName: 'F' },
      constructor: 1,
      [EXT]: { affiliationType: 'other', personalNumbers: [{ type: 'DkCpr', value: '0101901234', constructor: 1 }] },
    };
    expect(() => canonicalizeUser(user)).toThrow(expect.objectContaining({ scimType: 'invalidSyntax' }));
    expect(Object.keys(canonicalizeUser({ externalId: 'e', constructor: 1 }))).toEqual(['externalId']);
    const value = JSON.parse('{"__proto__": {"x": 1}, "value": "0101901234"}') as JsonObject;
    expect(() =>
      applyPatch(current(ONE_PASSPORT), patchOf({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"]`, value })),
    ).toThrow(expect.objectContaining({ scimType: 'invalidSyntax' }));
  });

  it('a stray closing bracket is invalidPath', () => {
    expectPatchError(patchOf({ op: 'replace', path: 'personalNumbers]', value: 'x' }), 'invalidPath');
    expectPatchError(patchOf({ op: 'replace', path: `${EXT}:personalNumbers]`, value: 'x' }), 'invalidPath');
  });
});
