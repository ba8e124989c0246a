/**
 * lib/scim/patch: a PATCH that sets a read-only attribute to the value it holds is not a change
 * (spec §4.1 rule 5 refuses changing one): accepted and ignored. Changing or removing one stays
 * 400 mutability, and the detail never repeats the value sent.
 */
import { applyPatch } from '../../../lib/scim/patch';
import { EXT, identityToScimInput } from '../../../lib/scim/userInput';
import type { JsonObject } from '../../../lib/scim/userInput';
import { toScimUser } from '../../../lib/scim/userResource';
import { type IdentityDoc } from '../../../lib/identities/model';
import { newIdentityDoc } from '../../../lib/identities/rules';
import { errorOf } from '../../support/scimErrorOf';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER_ID = '0190d7a0-0000-7000-8000-00000000abcd';
const LINKED_USER = '5d7c3f1e-1111-4111-8111-000000000001';

const doc: IdentityDoc = {
  ...newIdentityDoc({
    id: USER_ID,
    tenantId: 't',
    sourceKind: 'scim',
    sourceKey: 'i',
    attributes: {
      externalId: 'E-1',
      userName: 'anna@corp.example',
      givenName: 'Anna',
      familyName: 'Berg',
      active: true,
      affiliationType: 'employment',
      personalNumbers: [],
      identityDocumentReferences: [],
      directoryUserPrincipalName: 'anna@corp.example',
    },
    now: '2026-01-02T03:04:05.000Z',
    link: { status: 'linked', source: 'asserted', userId: LINKED_USER, lookedUpUpn: 'anna@corp.example' },
  }),
  version: 3,
};
const resource = toScimUser(doc, '') as JsonObject;
const current = identityToScimInput(doc);
const patch = (...Operations: JsonObject[]) => applyPatch(current, { schemas: [PATCH_OP], Operations }, resource);

describe('PATCH of a read-only attribute to its current value', () => {
  it.each([
    ['id', { op: 'replace', path: 'id', value: USER_ID }],
    ['meta.version', { op: 'replace', path: 'meta.version', value: 'W/"3"' }],
    ['meta (sub-attributes given)', { op: 'add', path: 'meta', value: { resourceType: 'User', version: 'W/"3"' } }],
    ['directoryLinkStatus by URN path', { op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'LINKED' }],
    ['directoryLinkedUserId', { op: 'replace', path: `${EXT}:directoryLinkedUserId`, value: LINKED_USER }],
    [
      'the extension as a whole',
      { op: 'replace', path: EXT, value: { directoryLinkStatus: 'linked', affiliationType: 'employment' } },
    ],
    ['no path', { op: 'replace', value: { id: USER_ID, 'name.familyName': 'Berg' } }],
  ])('is accepted and changes nothing: %s', (_, op) => {
    expect(patch(op as JsonObject)).toEqual(current);
  });

  it('applies the other operations of the PATCH', () => {
    const out = patch(
      { op: 'replace', path: 'id', value: USER_ID },
      { op: 'replace', path: 'name.familyName', value: 'Holm' },
    );
    expect(out.name).toEqual({ givenName: 'Anna', familyName: 'Holm' });
  });

  it.each([
    ['a different id', { op: 'replace', path: 'id', value: 'other-id-SECRET' }],
    ['a different link status', { op: 'replace', path: `${EXT}:directoryLinkStatus`, value: 'pendingSECRET' }],
    ['a removal', { op: 'remove', path: `${EXT}:directoryLinkedUserId` }],
    ['a different meta.version', { op: 'replace', path: 'meta.version', value: 'W/"9-SECRET"' }],
    ['an absent link source set', { op: 'replace', path: `${EXT}:directoryLinkSource`, value: 'manualSECRET' }],
  ])('is still refused (400 mutability) for %s', (_, op) => {
    const err = errorOf(() => patch(op as JsonObject));
    expect({ status: err.status, scimType: err.scimType }).toEqual({ status: 400, scimType: 'mutability' });
    expect(err.detail).not.toContain('SECRET');
  });

  it('without the current User (no resource given) every read-only target is refused', () => {
    const err = errorOf(() =>
      applyPatch(current, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: USER_ID }] }),
    );
    expect(err.scimType).toBe('mutability');
  });
});
