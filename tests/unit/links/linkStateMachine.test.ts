import {
  afterAssociationClaim,
  afterBackgroundCheck,
  afterLookup,
  afterManualClaim,
  associationAction,
  manualLinkAction,
  saveAction,
  unlinked,
  withoutAssertion,
} from '../../../lib/links/linkStateMachine';
import type { DirectoryLink } from '../../../lib/identities/model';

const ALICE = 'aaaa0000-0000-4000-8000-00000000a11c';
const BOB = 'bbbb0000-0000-4000-8000-0000000000b0';
const linkedAsserted = (userId: string, upn: string): DirectoryLink => ({
  status: 'linked',
  source: 'asserted',
  userId,
  lookedUpUpn: upn,
});
const linkedManual = (userId: string): DirectoryLink => ({ status: 'linked', source: 'manual', userId });

describe('spec §3.3 directoryLinkStatus', () => {
  it('any → linked (asserted) when the user exists and is not linked elsewhere; object id kept', () => {
    for (const previous of [
      undefined,
      { status: 'notAsserted' } as DirectoryLink,
      { status: 'pending', lookedUpUpn: 'x@y' } as DirectoryLink,
    ]) {
      expect(saveAction(previous, 'alice@dev.example.com')).toBe('lookUp');
      const t = afterLookup(previous, 'alice@dev.example.com', { kind: 'found', userId: ALICE }, 'claimed');
      expect(t.link).toEqual(linkedAsserted(ALICE, 'alice@dev.example.com'));
      expect(t.effects).toEqual([]);
    }
  });

  it('any → pending when no directory user has the UPN yet', () => {
    const t = afterLookup(undefined, 'new@dev.example.com', { kind: 'notFound' }, undefined);
    expect(t.link).toEqual({ status: 'pending', lookedUpUpn: 'new@dev.example.com', upnKey: 'new@dev.example.com' });
  });

  it('pending → linked by the background search once the user exists', () => {
    const previous: DirectoryLink = { status: 'pending', lookedUpUpn: 'new@dev.example.com' };
    expect(afterBackgroundCheck(previous, 'new@dev.example.com', { kind: 'found', userId: BOB }, 'claimed')).toEqual(
      linkedAsserted(BOB, 'new@dev.example.com'),
    );
    expect(afterBackgroundCheck(previous, 'new@dev.example.com', { kind: 'notFound' }, undefined).status).toBe(
      'pending',
    );
  });

  it('any → conflict when the user is linked to a different identity; stays conflict until that link is removed', () => {
    const t = afterLookup(undefined, 'alice@dev.example.com', { kind: 'found', userId: ALICE }, 'heldByOther');
    expect(t.link).toEqual({
      status: 'conflict',
      lookedUpUpn: 'alice@dev.example.com',
      conflictUserId: ALICE,
      upnKey: 'alice@dev.example.com',
    });
    expect(
      afterBackgroundCheck(t.link, 'alice@dev.example.com', { kind: 'found', userId: ALICE }, 'heldByOther').status,
    ).toBe('conflict');
    expect(afterBackgroundCheck(t.link, 'alice@dev.example.com', { kind: 'found', userId: ALICE }, 'claimed')).toEqual(
      linkedAsserted(ALICE, 'alice@dev.example.com'),
    );
  });

  it('any → notAsserted when saved without a UPN and there is no manual link', () => {
    expect(withoutAssertion(undefined)).toEqual({ link: { status: 'notAsserted' }, effects: [] });
    expect(withoutAssertion({ status: 'pending', lookedUpUpn: 'x@y' }).link).toEqual({ status: 'notAsserted' });
  });

  it('a different UPN moves the link: the old claim is released; look-up only when the value changes', () => {
    const previous = linkedAsserted(ALICE, 'alice@dev.example.com');
    expect(saveAction(previous, 'ALICE@dev.example.com')).toBe('keep');
    expect(saveAction(previous, 'bob@dev.example.com')).toBe('lookUp');
    const t = afterLookup(previous, 'bob@dev.example.com', { kind: 'found', userId: BOB }, 'claimed');
    expect(t.link.userId).toBe(BOB);
    expect(t.effects).toEqual([{ kind: 'releaseClaim', userId: ALICE }]);
    const toPending = afterLookup(previous, 'nobody@dev.example.com', { kind: 'notFound' }, undefined);
    expect(toPending.effects).toEqual([{ kind: 'releaseClaim', userId: ALICE }]);
  });

  it('a pending or conflict link carries the lower-case UPN it waits for (matched against directory changes)', () => {
    expect(afterLookup(undefined, 'Mixed.Case@Dev.Example.com', { kind: 'notFound' }, undefined).link.upnKey).toBe(
      'mixed.case@dev.example.com',
    );
    expect(
      afterLookup(undefined, 'A@Dev.Example.com', { kind: 'found', userId: ALICE }, 'heldByOther').link.upnKey,
    ).toBe('a@dev.example.com');
    expect(
      afterLookup(undefined, 'A@Dev.Example.com', { kind: 'found', userId: ALICE }, 'claimed').link.upnKey,
    ).toBeUndefined();
  });

  it('a pending or conflict identity is not looked up again on every save', () => {
    expect(saveAction({ status: 'pending', lookedUpUpn: 'x@y.z' }, 'x@y.z')).toBe('keep');
    expect(saveAction({ status: 'conflict', lookedUpUpn: 'x@y.z', conflictUserId: ALICE }, 'X@Y.Z')).toBe('keep');
  });

  it('UPN removed → no link; the asserted claim is released and audited', () => {
    const t = withoutAssertion(linkedAsserted(ALICE, 'alice@dev.example.com'));
    expect(t.link).toEqual({ status: 'notAsserted' });
    expect(t.effects).toEqual([
      { kind: 'releaseClaim', userId: ALICE },
      { kind: 'audit', action: 'link.assertedRemoved' },
    ]);
  });

  it('saved without a UPN while a manual link exists → linked (manual), kept', () => {
    const manual = linkedManual(ALICE);
    expect(withoutAssertion(manual)).toEqual({ link: manual, effects: [] });
  });

  it('linked (manual) then saved with a UPN → linked (asserted), manual link replaced and audited', () => {
    const manual = linkedManual(ALICE);
    expect(saveAction(manual, 'bob@dev.example.com')).toBe('lookUp');
    const t = afterLookup(manual, 'bob@dev.example.com', { kind: 'found', userId: BOB }, 'claimed');
    expect(t.link).toEqual(linkedAsserted(BOB, 'bob@dev.example.com'));
    expect(t.effects).toEqual([
      { kind: 'releaseClaim', userId: ALICE },
      { kind: 'audit', action: 'link.manualReplacedByAsserted' },
    ]);
    const same = afterLookup(manual, 'alice@dev.example.com', { kind: 'found', userId: ALICE }, 'claimed');
    expect(same.effects).toEqual([{ kind: 'audit', action: 'link.manualReplacedByAsserted' }]);
    expect(same.link.source).toBe('asserted');
  });
});

describe('spec §3.4 association pairs', () => {
  const pending: DirectoryLink = { status: 'pending', lookedUpUpn: 'x@dev.example.com' };

  it('a pair whose identity links to the user already is unchanged, whatever the source of the link', () => {
    expect(associationAction(linkedAsserted(ALICE, 'a@dev.example.com'), ALICE)).toBe('unchanged');
    expect(associationAction(linkedManual(ALICE), ALICE)).toBe('unchanged');
    for (const previous of [{ status: 'notAsserted' } as DirectoryLink, pending, linkedManual(BOB)])
      expect(associationAction(previous, ALICE)).toBe('claim');
  });

  it('a user another identity holds is a conflict; nothing changes', () => {
    expect(afterAssociationClaim(pending, ALICE, 'heldByOther')).toBe('conflict');
  });

  it('a claimed user becomes an asserted link, audited as link.associated', () => {
    expect(afterAssociationClaim({ status: 'notAsserted' }, ALICE, 'claimed')).toEqual({
      link: { status: 'linked', source: 'asserted', userId: ALICE },
      effects: [{ kind: 'audit', action: 'link.associated' }],
    });
  });

  it('linking to another user releases the user linked before', () => {
    expect(afterAssociationClaim(linkedManual(BOB), ALICE, 'claimed')).toEqual({
      link: { status: 'linked', source: 'asserted', userId: ALICE },
      effects: [
        { kind: 'releaseClaim', userId: BOB },
        { kind: 'audit', action: 'link.associated' },
      ],
    });
  });
});

describe('administrator links and unlinks', () => {
  it('a manual link to the user the identity has a manual link to already changes nothing', () => {
    expect(manualLinkAction(linkedManual(ALICE), ALICE)).toBe('keep');
    // An asserted link to the same user becomes manual; any other link is replaced.
    expect(manualLinkAction(linkedAsserted(ALICE, 'a@dev.example.com'), ALICE)).toBe('claim');
    expect(manualLinkAction(linkedManual(BOB), ALICE)).toBe('claim');
    expect(manualLinkAction({ status: 'conflict', conflictUserId: ALICE }, ALICE)).toBe('claim');
  });

  it('a user another identity holds is refused', () => {
    expect(afterManualClaim({ status: 'notAsserted' }, ALICE, 'heldByOther')).toBe('heldByOther');
  });

  it('a claimed user becomes a manual link; the user linked before is released; audited as link.manualLinked', () => {
    expect(afterManualClaim(linkedAsserted(BOB, 'b@dev.example.com'), ALICE, 'claimed')).toEqual({
      link: { status: 'linked', source: 'manual', userId: ALICE },
      effects: [
        { kind: 'releaseClaim', userId: BOB },
        { kind: 'audit', action: 'link.manualLinked' },
      ],
    });
    // The same user, asserted before: kept claimed, now manual.
    expect(afterManualClaim(linkedAsserted(ALICE, 'a@dev.example.com'), ALICE, 'claimed')).toEqual({
      link: { status: 'linked', source: 'manual', userId: ALICE },
      effects: [{ kind: 'audit', action: 'link.manualLinked' }],
    });
  });

  it('unlinking a linked identity leaves no assertion and releases its user; anything else is left as it is', () => {
    for (const previous of [linkedManual(ALICE), linkedAsserted(ALICE, 'a@dev.example.com')])
      expect(unlinked(previous)).toEqual({
        link: { status: 'notAsserted' },
        effects: [
          { kind: 'releaseClaim', userId: ALICE },
          { kind: 'audit', action: 'link.unlinked' },
        ],
      });
    for (const previous of [
      { status: 'notAsserted' } as DirectoryLink,
      { status: 'pending', lookedUpUpn: 'x@dev.example.com' } as DirectoryLink,
      { status: 'conflict', lookedUpUpn: 'x@dev.example.com', conflictUserId: ALICE } as DirectoryLink,
    ])
      expect(unlinked(previous)).toBeUndefined();
  });
});
