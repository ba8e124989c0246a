/**
 * What a write changed, named by the attribute table (each attribute by its SCIM path without the URN): the
 * names an identity's history records.
 */
import { changedAttributes } from '../../../lib/identities/attributes';
import type { IdentityAttributes } from '../../../lib/identities/model';

const CPR = '0101901234';

const attributes = (over: Partial<IdentityAttributes> = {}): IdentityAttributes => ({
  externalId: 'e-1',
  userName: 'anna@corp.example',
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  personalNumbers: [],
  identityDocumentReferences: [],
  ...over,
});

describe('changedAttributes', () => {
  it('names what a new identity has, by its SCIM path without the URN', () => {
    expect(
      changedAttributes(
        undefined,
        attributes({
          birthDate: '1990-01-01',
          nationality: 'DK',
          personalEmail: 'a@mail.example',
          personalPhone: '+4512345678',
          personalNumbers: [{ type: 'DkCpr', value: CPR }],
          identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' }],
          directoryUserPrincipalName: 'anna@corp.example',
        }),
      ),
    ).toEqual([
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
    // Absent and empty attributes are not named.
    expect(changedAttributes(undefined, attributes({ userName: undefined }))).toEqual([
      'externalId',
      'affiliationType',
      'name.givenName',
      'name.familyName',
      'active',
    ]);
  });

  it('names only what differs between two versions; an empty list and an absent attribute are the same', () => {
    const before = attributes({ personalNumbers: [{ type: 'DkCpr', value: CPR }] });
    expect(changedAttributes(before, before)).toEqual([]);
    expect(changedAttributes(before, { ...before, givenName: 'Ann' })).toEqual(['name.givenName']);
    expect(changedAttributes(before, { ...before, userName: 'ANNA@corp.example', active: false })).toEqual([
      'userName',
      'active',
    ]);
    expect(changedAttributes(before, { ...before, personalNumbers: [{ type: 'DkCpr', value: '0101901235' }] })).toEqual(
      ['personalNumbers'],
    );
    expect(changedAttributes(before, { ...before, personalNumbers: [] })).toEqual(['personalNumbers']);
    expect(changedAttributes(before, { ...before, nationality: 'SE' })).toEqual(['nationality']);
    expect(changedAttributes({ ...before, nationality: 'SE' }, before)).toEqual(['nationality']);
  });
});
