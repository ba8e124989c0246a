import { contentHash, validateImportSet, type ImportIdentityInput } from '../../../lib/imports/importInput';
import { DomainError } from '../../../lib/util/domainError';

const person = (extra: Partial<ImportIdentityInput> = {}): ImportIdentityInput => ({
  externalId: 'H1',
  affiliationType: 'EMPLOYMENT',
  firstName: 'Bob',
  lastName: 'Dahl',
  ...extra,
});

/** The problems of a refused one-identity set, as `field: problem`. */
function problemsOf(input: ImportIdentityInput): string[] {
  try {
    validateImportSet([input]);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    expect(err.code).toBe('BAD_USER_INPUT');
    return err.problems.map((p) => `${p.field}: ${p.problem}`);
  }
  throw new Error('the set was accepted');
}

describe('validateImportSet', () => {
  it('maps an identity to attributes in their stored form: active, enumerations, normalised formats', () => {
    const [valid] = validateImportSet([
      person({
        birthDate: '1985-05-05',
        nationality: 'dk',
        personalEmail: 'Bob.Dahl@Example.org',
        personalPhone: '+4511111111',
        personalNumbers: [{ type: 'DK_CPR', value: '050585-1234' }],
        identityDocumentReferences: [{ type: 'IDENTITY_CARD', issuingCountry: 'se', documentNumber: 'X1' }],
      }),
    ]);
    expect(valid?.attributes).toEqual({
      externalId: 'H1',
      affiliationType: 'employment',
      givenName: 'Bob',
      familyName: 'Dahl',
      active: true,
      birthDate: '1985-05-05',
      nationality: 'DK',
      personalEmail: 'Bob.Dahl@Example.org',
      personalPhone: '+4511111111',
      personalNumbers: [{ type: 'DkCpr', value: '0505851234' }],
      identityDocumentReferences: [{ type: 'IdentityCard', issuingCountry: 'SE', documentNumber: 'X1' }],
    });
  });

  it('leaves out optional attributes sent as null', () => {
    const [valid] = validateImportSet([person({ birthDate: null, nationality: null, personalNumbers: null })]);
    expect(valid?.attributes).toEqual({
      externalId: 'H1',
      affiliationType: 'employment',
      givenName: 'Bob',
      familyName: 'Dahl',
      active: true,
      personalNumbers: [],
      identityDocumentReferences: [],
    });
  });

  it('names every problem by index and field, in table order, never with the value', () => {
    const problems = problemsOf(
      person({
        externalId: 'x'.repeat(257),
        affiliationType: 'employment',
        firstName: '   ',
        lastName: 'y'.repeat(129),
        birthDate: '1985-02-30',
        nationality: 'XX',
        personalEmail: 'not-an-address',
        personalPhone: '0045 1234',
        personalNumbers: [
          { type: 'DK_CPR', value: '3213991234' },
          { type: 'DK_CPR', value: '0101901234' },
          { type: 'SE_PNR', value: '0101901234' },
        ],
        identityDocumentReferences: [{ type: 'VISA', issuingCountry: 'QQ', documentNumber: ' ' }],
      }),
    );
    expect(problems).toEqual([
      'identities[0].externalId: must be at most 256 characters',
      'identities[0].affiliationType: must be EMPLOYMENT, ENROLLMENT, ENGAGEMENT or OTHER',
      'identities[0].firstName: must not be empty',
      'identities[0].lastName: must be at most 128 characters',
      'identities[0].birthDate: must be a date YYYY-MM-DD',
      'identities[0].nationality: must be an ISO 3166-1 alpha-2 country code',
      'identities[0].personalEmail: must be an email address',
      'identities[0].personalPhone: must be an E.164 number (+, country code, number, no spaces)',
      'identities[0].personalNumbers[0].value: must be a valid CPR number',
      'identities[0].personalNumbers[1].type: only one personal number per type',
      'identities[0].personalNumbers[2].type: must be DK_CPR',
      'identities[0].identityDocumentReferences[0].type: must be PASSPORT or IDENTITY_CARD',
      'identities[0].identityDocumentReferences[0].issuingCountry: must be an ISO 3166-1 alpha-2 country code',
      'identities[0].identityDocumentReferences[0].documentNumber: must be present',
    ]);
    const shown = problems.join(' ');
    for (const value of ['3213991234', '0101901234', 'not-an-address', '0045 1234', 'XX', 'QQ'])
      expect(shown).not.toContain(value);
  });

  it('applies the length limits of email addresses and document numbers', () => {
    expect(
      problemsOf(
        person({
          externalId: '',
          personalEmail: `${'q'.repeat(188)}@home.example`,
          identityDocumentReferences: [{ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: 'P'.repeat(65) }],
        }),
      ),
    ).toEqual([
      'identities[0].externalId: must not be empty',
      'identities[0].personalEmail: must be at most 200 characters',
      'identities[0].identityDocumentReferences[0].documentNumber: must be at most 64 characters',
    ]);
  });

  it('refuses more document references than SCIM allows (20)', () => {
    const document = (n: number) => ({ type: 'PASSPORT', issuingCountry: 'DK', documentNumber: `P${n}` });
    const twenty = Array.from({ length: 20 }, (_, n) => document(n));
    expect(validateImportSet([person({ identityDocumentReferences: twenty })])).toHaveLength(1);
    expect(problemsOf(person({ identityDocumentReferences: [...twenty, document(20)] }))).toEqual([
      'identities[0].identityDocumentReferences: must have at most 20 items',
    ]);
  });
});

describe('contentHash', () => {
  // Stored hashes compare with these: a change here makes the next import rewrite every identity once.
  it('is the hash that imports have stored so far', () => {
    expect(
      contentHash({
        externalId: 'e-1',
        givenName: 'Anna',
        familyName: 'Berg',
        active: true,
        affiliationType: 'employment',
        birthDate: '1990-01-01',
        nationality: 'DK',
        personalEmail: 'anna@mail.example',
        personalPhone: '+4512345678',
        personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
        identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' }],
      }),
    ).toBe('auFsve8BbyxMS-pKCQy6ct');
    expect(
      contentHash({
        externalId: 'e-2',
        givenName: 'B',
        familyName: 'C',
        active: true,
        affiliationType: 'other',
        personalNumbers: [],
        identityDocumentReferences: [],
      }),
    ).toBe('TiZmaSzZUaNGaM6GnQynWl');
  });
});
