import type { IdentityAttributes, IdentityDoc } from '../../../lib/identities/model';
import {
  attributesOf,
  hasSensitiveData,
  IDENTITY_LIMITS,
  inactiveSinceAfter,
  newIdentityDoc,
  nextIdentityVersion,
  withLinkBookkeeping,
  withoutSensitiveData,
  withUpnKeys,
} from '../../../lib/identities/rules';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';
const T2 = '2026-03-01T00:00:00.000Z';

const attributes = (over: Partial<IdentityAttributes> = {}): IdentityAttributes => ({
  externalId: 'e-1',
  userName: 'Anna@Corp.Example',
  givenName: 'Anna',
  familyName: 'Berg',
  active: true,
  affiliationType: 'employment',
  birthDate: '1990-01-01',
  nationality: 'DK',
  personalEmail: 'anna@mail.example',
  personalPhone: '+4512345678',
  personalNumbers: [{ type: 'DkCpr', value: '0101901234' }],
  identityDocumentReferences: [],
  directoryUserPrincipalName: 'anna@corp.example',
  ...over,
});

const created = (over: Partial<IdentityAttributes> = {}): IdentityDoc =>
  newIdentityDoc({
    id: 'id-1',
    tenantId: 't',
    sourceKind: 'scim',
    sourceKey: 'int-1',
    attributes: attributes(over),
    now: T0,
  });

describe('IDENTITY_LIMITS', () => {
  it('holds the limits every API applies, by the attribute (or item field) each bounds', () => {
    expect(IDENTITY_LIMITS).toMatchObject({
      externalId: 256,
      userName: 256,
      givenName: 128,
      familyName: 128,
      personalEmail: 200,
      documentNumber: 64,
      directoryUserPrincipalName: 1024,
      personalNumbers: 10,
      identityDocumentReferences: 20,
    });
  });
});

describe('sensitive data', () => {
  it('is held while personal numbers or document references hold anything, and retention leaves neither', () => {
    const withDocument = attributes({
      personalNumbers: [],
      identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1' }],
    });
    expect(hasSensitiveData(attributes())).toBe(true);
    expect(hasSensitiveData(withDocument)).toBe(true);
    const purged = withoutSensitiveData(withDocument);
    expect(hasSensitiveData(purged)).toBe(false);
    expect(purged).toEqual({ ...withDocument, personalNumbers: [], identityDocumentReferences: [] });
  });
});

describe('inactiveSinceAfter', () => {
  it('is absent while active', () => {
    expect(inactiveSinceAfter(undefined, true, T1)).toBeUndefined();
    expect(inactiveSinceAfter({ active: false, inactiveSince: T0 }, true, T1)).toBeUndefined();
  });
  it('is the time of the write when the identity is created inactive or turns inactive', () => {
    expect(inactiveSinceAfter(undefined, false, T1)).toBe(T1);
    expect(inactiveSinceAfter({ active: true }, false, T1)).toBe(T1);
  });
  it('is kept while the identity stays inactive', () => {
    expect(inactiveSinceAfter({ active: false, inactiveSince: T0 }, false, T1)).toBe(T0);
  });
});

describe('newIdentityDoc', () => {
  it('builds the first version with keys, flags and times', () => {
    const doc = created();
    expect(doc).toMatchObject({
      pk: 't|int-1',
      externalIdKey: 'e-1',
      userNameKey: 'anna@corp.example',
      link: { status: 'notAsserted' },
      created: T0,
      lastModified: T0,
      version: 1,
      hasSensitive: true,
    });
    expect(doc).not.toHaveProperty('inactiveSince');
    expect(doc).not.toHaveProperty('contentHash');
  });
  it('gives an identity without userName a key that cannot collide, and an inactive one inactiveSince', () => {
    const doc = created({ userName: undefined, active: false });
    expect(doc.userNameKey).toBe('\u0000ext:e-1');
    expect(doc.inactiveSince).toBe(T0);
  });
});

describe('nextIdentityVersion', () => {
  it('replaces the attributes, removes optional ones left out and recomputes keys and flags', () => {
    const current = { ...created(), _etag: 'etag-1' };
    const next = nextIdentityVersion(
      current,
      {
        attributes: {
          externalId: 'e-2',
          givenName: 'Anne',
          familyName: 'Berg',
          active: true,
          affiliationType: 'other',
          personalNumbers: [],
          identityDocumentReferences: [],
        },
      },
      T1,
    );
    expect(next).toMatchObject({
      externalId: 'e-2',
      externalIdKey: 'e-2',
      userNameKey: '\u0000ext:e-2',
      givenName: 'Anne',
      affiliationType: 'other',
      hasSensitive: false,
      version: 2,
      created: T0,
      lastModified: T1,
      link: { status: 'notAsserted' },
    });
    for (const key of [
      'userName',
      'birthDate',
      'nationality',
      'personalEmail',
      'personalPhone',
      'directoryUserPrincipalName',
      '_etag',
    ])
      expect(next).not.toHaveProperty(key);
  });

  it('sets inactiveSince when the identity turns inactive, keeps it, and drops it when active again', () => {
    const inactive = nextIdentityVersion(created(), { attributes: attributes({ active: false }) }, T1);
    expect(inactive.inactiveSince).toBe(T1);
    const still = nextIdentityVersion(inactive, { attributes: attributes({ active: false, givenName: 'A' }) }, T2);
    expect(still.inactiveSince).toBe(T1);
    const active = nextIdentityVersion(still, { attributes: attributes() }, T2);
    expect(active).not.toHaveProperty('inactiveSince');
  });

  it('a link-only change keeps the attributes and inactiveSince', () => {
    const inactive = created({ active: false });
    const link = { status: 'linked', source: 'manual', userId: 'u-1' } as const;
    const next = nextIdentityVersion(inactive, { link }, T1);
    expect(next).toEqual({ ...inactive, link, lastModified: T1, version: 2 });
  });

  it('carries the import content hash', () => {
    expect(nextIdentityVersion(created(), { attributes: attributes(), contentHash: 'h2' }, T1).contentHash).toBe('h2');
  });

  it('a version with the attributes as stored changes only the version and lastModified', () => {
    for (const current of [created(), created({ active: false, userName: undefined, birthDate: undefined })]) {
      const next = nextIdentityVersion(current, { attributes: attributesOf(current) }, T1);
      expect(next).toEqual({ ...current, version: 2, lastModified: T1 });
    }
  });

  it('does not change the current version', () => {
    const current = created();
    const copy = structuredClone(current);
    nextIdentityVersion(current, { attributes: attributes({ givenName: 'X', active: false }) }, T1);
    expect(current).toEqual(copy);
  });
});

describe('UPN keys', () => {
  it('every new identity has the keys of its asserted and linked UPNs, deduplicated; none without a UPN', () => {
    expect(created({ directoryUserPrincipalName: 'Anna.Berg@Corp.Example' }).upnKeys).toEqual([
      'anna.berg@corp.example',
    ]);
    expect(created({ directoryUserPrincipalName: undefined }).upnKeys).toEqual([]);
    const linked = newIdentityDoc({
      id: 'id-1',
      tenantId: 't',
      sourceKind: 'custom',
      sourceKey: 'hr',
      attributes: attributes({ directoryUserPrincipalName: undefined }),
      now: T0,
      link: { status: 'linked', source: 'manual', userId: 'u-1', userPrincipalName: 'Anna.B@Corp.Example' },
    });
    expect(linked.upnKeys).toEqual(['anna.b@corp.example']);
  });

  it('each next version has the keys of its UPNs as they are now (new attributes, a new link, both)', () => {
    const current = created({ directoryUserPrincipalName: 'Anna@Corp.Example' });
    const renamed = nextIdentityVersion(
      current,
      { attributes: attributes({ directoryUserPrincipalName: 'AB@X.Example' }) },
      T1,
    );
    expect(renamed.upnKeys).toEqual(['ab@x.example']);
    const link = {
      status: 'pending',
      source: 'asserted',
      lookedUpUpn: 'AB@X.Example',
      upnKey: 'ab@x.example',
    } as const;
    expect(nextIdentityVersion(renamed, { link }, T2).upnKeys).toEqual(['ab@x.example']);
    const linked = { status: 'linked', source: 'manual', userId: 'u', userPrincipalName: 'Other@X.Example' } as const;
    expect(nextIdentityVersion(renamed, { link: linked }, T2).upnKeys).toEqual(['ab@x.example', 'other@x.example']);
    const dropped = nextIdentityVersion(
      renamed,
      { attributes: attributes({ directoryUserPrincipalName: undefined }) },
      T2,
    );
    expect(dropped.upnKeys).toEqual([]);
  });

  it('folds only A-Z: a look-alike letter stays as it is', () => {
    expect(created({ directoryUserPrincipalName: '\u212Aarl@Corp.Example' }).upnKeys).toEqual([
      '\u212Aarl@corp.example',
    ]);
  });

  it('a stored identity without keys gets them, nothing else changes; bookkeeping of the link keeps the version', () => {
    const { upnKeys: _none, ...stored } = created({ directoryUserPrincipalName: 'Anna@Corp.Example' });
    expect(withUpnKeys(stored)).toEqual({ ...stored, upnKeys: ['anna@corp.example'] });
    const marked = withLinkBookkeeping({ ...stored, _etag: 'e' } as IdentityDoc, {
      status: 'pending',
      lookUpOwed: true,
    });
    expect(marked).toEqual({
      ...stored,
      link: { status: 'pending', lookUpOwed: true },
      upnKeys: ['anna@corp.example'],
    });
  });
});
