import {
  AFFILIATION_TYPES,
  ATTRIBUTE,
  DOCUMENT_TYPES,
  IDENTITY_ATTRIBUTES,
  OPTIONAL_ATTRIBUTES,
  PERSONAL_NUMBER_TYPES,
  SENSITIVE_ATTRIBUTES,
  VALUE_FORMATS,
  canonicalAttributes,
  changedAttributes,
  graphqlEnumName,
  modelEnumValue,
  oneOfGraphqlNames,
} from '../../../lib/identities/attributes';
import type { AttributeRow, IdentityAttributes } from '../../../lib/identities/attributes';

const anna: IdentityAttributes = {
  externalId: 'e-1',
  userName: 'anna.berg',
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  birthDate: '1990-01-01',
  nationality: 'DK',
  personalEmail: 'anna@home.example',
  personalPhone: '+4512345678',
  personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
  identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1234567' }],
  directoryUserPrincipalName: 'anna@corp.example',
};

const minimal: IdentityAttributes = {
  externalId: 'e-2',
  givenName: 'Bo',
  familyName: 'Dahl',
  active: true,
  affiliationType: 'other',
  personalNumbers: [],
  identityDocumentReferences: [],
};

describe('the attribute table', () => {
  it('names each attribute once, with one SCIM path, GraphQL field and import field', () => {
    const names = IDENTITY_ATTRIBUTES.map((r) => r.name);
    const paths = IDENTITY_ATTRIBUTES.map((r) => r.scim.path);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(paths).size).toBe(paths.length);
    const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
    for (const column of ['graphql', 'importField', 'updateField'] as const) {
      const fields = rows.flatMap((r) => r[column] ?? []);
      expect(new Set(fields).size).toBe(fields.length);
    }
  });

  it('keeps sensitive attributes out of GraphQL answers except as the kinds stored', () => {
    expect(SENSITIVE_ATTRIBUTES).toEqual(['personalNumbers', 'identityDocumentReferences']);
    expect(ATTRIBUTE.personalNumbers.graphql).toBe('personalNumberTypes');
    expect(ATTRIBUTE.identityDocumentReferences.graphql).toBe('identityDocumentTypes');
  });

  it('derives the optional attributes, the enumerations and the limits', () => {
    expect(OPTIONAL_ATTRIBUTES).toEqual(
      expect.arrayContaining([
        'userName',
        'birthDate',
        'nationality',
        'personalEmail',
        'personalPhone',
        'directoryUserPrincipalName',
      ]),
    );
    for (const always of ['externalId', 'givenName', 'familyName', 'active', 'affiliationType', 'personalNumbers'])
      expect(OPTIONAL_ATTRIBUTES).not.toContain(always);
    expect(AFFILIATION_TYPES).toEqual(['employment', 'enrollment', 'engagement', 'other']);
    expect(PERSONAL_NUMBER_TYPES).toEqual(['DkCpr']);
    expect(DOCUMENT_TYPES).toEqual(['Passport', 'IdentityCard']);
  });

  it('every format refuses with a fixed reason, never the value', () => {
    for (const [name, format] of Object.entries(VALUE_FORMATS)) {
      const r = format.normalize('zz-secret-value-zz');
      expect({ name, ok: r.ok }).toEqual({ name, ok: false });
      if (!r.ok) expect(r.reason).not.toContain('secret');
      expect(format.scimProblem).not.toContain('secret');
    }
  });

  it('maps enumerations between the model and GraphQL, and words them', () => {
    const values = ATTRIBUTE.affiliationType.values;
    expect(graphqlEnumName(values, 'enrollment')).toBe('ENROLLMENT');
    expect(modelEnumValue(values, 'ENGAGEMENT')).toBe('engagement');
    expect(modelEnumValue(values, 'engagement')).toBeUndefined();
    expect(oneOfGraphqlNames(values)).toBe('must be EMPLOYMENT, ENROLLMENT, ENGAGEMENT or OTHER');
    expect(oneOfGraphqlNames(ATTRIBUTE.personalNumbers.items[0].values)).toBe('must be DK_CPR');
  });
});

describe('canonicalAttributes', () => {
  it('is equal for equal attributes, whatever the order of keys, and absent equals undefined', () => {
    const reordered = Object.fromEntries(Object.entries(anna).reverse()) as IdentityAttributes;
    expect(canonicalAttributes(reordered)).toBe(canonicalAttributes(anna));
    expect(canonicalAttributes({ ...minimal, birthDate: undefined })).toBe(canonicalAttributes(minimal));
  });

  it('leaves out trailing absent values (a row added at the end keeps the strings of attributes without it)', () => {
    expect(canonicalAttributes({ ...anna, directoryUserPrincipalName: undefined })).toBe(
      canonicalAttributes(anna).replace(/,"anna@corp\.example"\]$/, ']'),
    );
  });

  it('differs when any attribute differs, and the content hash form leaves out userName and the UPN', () => {
    expect(canonicalAttributes({ ...anna, personalEmail: 'x@y.example' })).not.toBe(canonicalAttributes(anna));
    const other = { ...anna, userName: 'other', directoryUserPrincipalName: undefined };
    expect(canonicalAttributes(other)).not.toBe(canonicalAttributes(anna));
    expect(canonicalAttributes(other, 'contentHash')).toBe(canonicalAttributes(anna, 'contentHash'));
  });
});

describe('changedAttributes', () => {
  it('names nothing when nothing changed', () => {
    expect(changedAttributes(anna, { ...anna })).toEqual([]);
  });

  it('names each changed attribute by its SCIM path without schema URN, in table order', () => {
    const after: IdentityAttributes = {
      ...anna,
      familyName: 'Holm',
      active: false,
      nationality: undefined,
      personalNumbers: [{ type: 'DkCpr', value: '0101901235' }],
      externalId: 'e-9',
    };
    expect(changedAttributes(anna, after)).toEqual([
      'externalId',
      'name.familyName',
      'active',
      'nationality',
      'personalNumbers',
    ]);
  });

  it('names an attribute that was added or removed, and a list item that changed in any field', () => {
    expect(changedAttributes(minimal, { ...minimal, personalEmail: 'bo@home.example', userName: 'bo' })).toEqual([
      'userName',
      'personalEmail',
    ]);
    const docs = [{ type: 'Passport' as const, issuingCountry: 'DK', documentNumber: 'P1' }];
    const before = { ...minimal, identityDocumentReferences: docs };
    const after = { ...minimal, identityDocumentReferences: [{ ...docs[0]!, issuingCountry: 'SE' }] };
    expect(changedAttributes(before, after)).toEqual(['identityDocumentReferences']);
    expect(changedAttributes(before, minimal)).toEqual(['identityDocumentReferences']);
  });

  it('without a previous version names every attribute present (an empty list is not present)', () => {
    expect(changedAttributes(undefined, anna)).toEqual([
      'externalId',
      'userName',
      'affiliationType',
      'name.givenName',
      'name.familyName',
      'active',
      'birthDate',
      'nationality',
      'personalEmail',
      'personalPhone',
      'personalNumbers',
      'identityDocumentReferences',
      'directoryUserPrincipalName',
    ]);
    expect(changedAttributes(undefined, minimal)).toEqual([
      'externalId',
      'affiliationType',
      'name.givenName',
      'name.familyName',
      'active',
    ]);
  });

  it('never holds a value', () => {
    const after = { ...anna, personalNumbers: [{ type: 'DkCpr' as const, value: '0202902345' }], givenName: 'Zq' };
    const names = changedAttributes(anna, after).join(' ');
    for (const value of ['0202902345', '0101901234', 'Zq', 'Anna']) expect(names).not.toContain(value);
  });
});
