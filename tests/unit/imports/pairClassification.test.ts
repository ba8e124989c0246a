import type { DirectoryLink } from '../../../lib/identities/model';
import { classifyPairs, type StoredLink } from '../../../lib/imports/pairClassification';

const ALICE = 'aaaa0000-0000-4000-8000-00000000a11c';
const BOB = 'bbbb0000-0000-4000-8000-0000000000b0';
const notAsserted: DirectoryLink = { status: 'notAsserted' };
const linkedTo = (userId: string): DirectoryLink => ({ status: 'linked', source: 'asserted', userId });

const storedOf = (...rows: Array<[string, DirectoryLink]>) => ({
  links: new Map<string, StoredLink>(rows.map(([externalId, link]) => [externalId, { id: `id-${externalId}`, link }])),
  unread: new Set<string>(),
});
const directoryOf = (users: Record<string, string>, unavailable: string[] = []) => ({
  users: new Map(Object.entries(users).map(([upn, id]) => [upn, { id }])),
  unavailable: new Set(unavailable),
});

describe('classifyPairs', () => {
  it('a pair whose identity exists and whose user is found, not linked to it, is to be linked', () => {
    const c = classifyPairs(
      [{ externalId: 'e1', userPrincipalName: 'Alice@Dev.Example.com' }],
      storedOf(['e1', notAsserted]),
      directoryOf({ 'alice@dev.example.com': ALICE }),
    );
    expect(c.toLink).toEqual([
      { pair: { externalId: 'e1', userPrincipalName: 'Alice@Dev.Example.com' }, identityId: 'id-e1', userId: ALICE },
    ]);
    expect(c).toMatchObject({ unchanged: 0, unknownExternalIds: [], unknownUserPrincipalNames: [], oneByOne: [] });
  });

  it('a pair whose identity links to the user already is unchanged', () => {
    const c = classifyPairs(
      [{ externalId: 'e1', userPrincipalName: 'alice@dev.example.com' }],
      storedOf(['e1', linkedTo(ALICE)]),
      directoryOf({ 'alice@dev.example.com': ALICE }),
    );
    expect(c.unchanged).toBe(1);
    expect(c.toLink).toEqual([]);
  });

  it('externalIds no identity has or can have are unknown, the impossible ones first', () => {
    const c = classifyPairs(
      [
        { externalId: 'missing', userPrincipalName: 'alice@dev.example.com' },
        { externalId: '', userPrincipalName: 'alice@dev.example.com' },
        { externalId: 'x'.repeat(257), userPrincipalName: 'alice@dev.example.com' },
      ],
      storedOf(),
      directoryOf({ 'alice@dev.example.com': ALICE }),
    );
    expect(c.unknownExternalIds).toEqual(['', 'x'.repeat(257), 'missing']);
  });

  it('UPNs the directory does not know, or that are not UPNs, are unknown, each once as sent', () => {
    const c = classifyPairs(
      [
        { externalId: 'e1', userPrincipalName: 'nobody@dev.example.com' },
        { externalId: 'e2', userPrincipalName: 'nobody@dev.example.com' },
        { externalId: 'e3', userPrincipalName: 'alice@localhost' },
      ],
      storedOf(['e1', notAsserted], ['e2', notAsserted], ['e3', notAsserted]),
      // Even an answer for a malformed UPN is not used.
      directoryOf({ 'alice@localhost': ALICE }),
    );
    expect(c.unknownUserPrincipalNames).toEqual(['nobody@dev.example.com', 'alice@localhost']);
    expect(c.toLink).toEqual([]);
  });

  it('pairs whose UPN the directory could not be asked about are sent again, never reported unknown', () => {
    const pair = { externalId: 'e1', userPrincipalName: 'Alice@dev.example.com' };
    const c = classifyPairs([pair], storedOf(['e1', notAsserted]), directoryOf({}, ['alice@dev.example.com']));
    expect(c.directoryUnavailable).toEqual([pair]);
    expect(c.unknownUserPrincipalNames).toEqual([]);
  });

  it('a user named by a second pair, and a pair whose link could not be read, are judged one by one', () => {
    const stored = storedOf(['e1', notAsserted], ['e2', linkedTo(BOB)]);
    stored.unread.add('e3');
    const c = classifyPairs(
      [
        { externalId: 'e1', userPrincipalName: 'alice@dev.example.com' },
        { externalId: 'e2', userPrincipalName: 'alice@dev.example.com' },
        { externalId: 'e3', userPrincipalName: 'alice@dev.example.com' },
      ],
      stored,
      directoryOf({ 'alice@dev.example.com': ALICE }),
    );
    expect(c.toLink.map((t) => t.pair.externalId)).toEqual(['e1']);
    expect(c.oneByOne).toEqual([
      { pair: { externalId: 'e2', userPrincipalName: 'alice@dev.example.com' }, identityId: 'id-e2' },
      { pair: { externalId: 'e3', userPrincipalName: 'alice@dev.example.com' } },
    ]);
  });
});
