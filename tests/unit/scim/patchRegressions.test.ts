import { applyPatch } from '../../../lib/scim/patch';
import { canonicalizeUser, toIdentityAttributes, identityToScimInput } from '../../../lib/scim/userInput';
const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
const base = () => identityToScimInput({ externalId: 'e', userName: 'u', givenName: 'G', familyName: 'F', active: true, affiliationType: 'employment', personalNumbers: [], identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' }] });
const P = (...Operations: unknown[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations });
describe('fixed PATCH and input bugs', () => {
  it('issuingCountry filters ignore case', () => {
    const r = toIdentityAttributes(applyPatch(base(), P({ op: 'replace', path: `${EXT}:identityDocumentReferences[type eq "Passport" and issuingCountry eq "dk"].documentNumber`, value: 'P2' })));
    expect(r.identityDocumentReferences).toEqual([{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P2' }]);
  });
  it('replace of name with one sub-attribute keeps the other', () => {
    expect(toIdentityAttributes(applyPatch(base(), P({ op: 'replace', path: 'name', value: { givenName: 'NEW' } })))).toMatchObject({ givenName: 'NEW', familyName: 'F' });
    expect(toIdentityAttributes(applyPatch(base(), P({ op: 'replace', value: { name: { givenName: 'NEW' } } })))).toMatchObject({ givenName: 'NEW', familyName: 'F' });
  });
  it('prototype member names are unknown attributes like any other', () => {
    const user = { externalId: 'e', userName: 'u', name: { givenName: 'G', familyName: 'F' }, constructor: 1, [EXT]: { affiliationType: 'other', personalNumbers: [{ type: 'DkCpr', value: '0101901234', constructor: 1 }] } };
    expect(() => canonicalizeUser(user)).toThrow(expect.objectContaining({ scimType: 'invalidSyntax' }));
    expect(Object.keys(canonicalizeUser({ externalId: 'e', constructor: 1 }))).toEqual(['externalId']);
    expect(() => applyPatch(base(), P({ op: 'add', path: `${EXT}:personalNumbers[type eq "DkCpr"]`, value: JSON.parse('{"__proto__": {"x": 1}, "value": "0101901234"}') }))).toThrow(expect.objectContaining({ scimType: 'invalidSyntax' }));
  });
  it('a stray closing bracket is invalidPath', () => {
    expect(() => applyPatch(base(), P({ op: 'replace', path: 'personalNumbers]', value: 'x' }))).toThrow(expect.objectContaining({ scimType: 'invalidPath' }));
    expect(() => applyPatch(base(), P({ op: 'replace', path: `${EXT}:personalNumbers]`, value: 'x' }))).toThrow(expect.objectContaining({ scimType: 'invalidPath' }));
  });
});
