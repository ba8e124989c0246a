import type { IdentityAttributes, IdentityDoc, IdentityHistoryEntry } from '../../../lib/identities/model';
import { newIdentityDoc, nextIdentityVersion } from '../../../lib/identities/rules';
import {
  appendEntry,
  byAdministrator,
  byBackground,
  byIntegration,
  byRun,
  linkChanged,
  MAX_HISTORY,
  readHistory,
  updateOperation,
  withChange,
} from '../../../lib/identities/history';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';
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

const created = (over: Partial<IdentityAttributes> = {}): IdentityDoc =>
  newIdentityDoc({
    id: 'id-1',
    tenantId: 't',
    sourceKind: 'scim',
    sourceKey: 'int-1',
    attributes: attributes(over),
    now: T0,
  });

const entry = (n: number): IdentityHistoryEntry => ({
  at: new Date(Date.parse(T0) + n).toISOString(),
  actor: { kind: 'integration', id: 'int-1' },
  operation: 'PATCH',
  changedAttributes: [`a${n}`],
});

describe('linkChanged', () => {
  it('is a change of status, source, linked user or conflicting user; back-off bookkeeping is not', () => {
    expect(linkChanged(undefined, { status: 'notAsserted' })).toBe(false);
    expect(linkChanged(undefined, { status: 'pending' })).toBe(true);
    expect(linkChanged({ status: 'pending' }, { status: 'pending', checks: 3, nextCheckAt: T1 })).toBe(false);
    expect(linkChanged({ status: 'pending' }, { status: 'linked', source: 'asserted', userId: 'u1' })).toBe(true);
    expect(
      linkChanged(
        { status: 'linked', source: 'manual', userId: 'u1' },
        { status: 'linked', source: 'asserted', userId: 'u1' },
      ),
    ).toBe(true);
    expect(
      linkChanged({ status: 'conflict', conflictUserId: 'u1' }, { status: 'conflict', conflictUserId: 'u2' }),
    ).toBe(true);
  });
});

describe('appendEntry', () => {
  it('keeps changes newest first', () => {
    const one = appendEntry({}, entry(1));
    const two = appendEntry(one, entry(2));
    expect(two.historyOmitted).toBe(0);
    expect(readHistory(two)).toEqual([entry(2), entry(1)]);
  });

  it(`keeps the last ${MAX_HISTORY} and counts the ones it drops`, () => {
    let doc: Pick<IdentityDoc, 'history' | 'historyOmitted'> = {};
    for (let n = 1; n <= MAX_HISTORY + 7; n++) doc = appendEntry(doc, entry(n));
    const history = readHistory(doc);
    expect(history).toHaveLength(MAX_HISTORY);
    expect(doc.historyOmitted).toBe(7);
    expect(history[0]).toEqual(entry(MAX_HISTORY + 7));
    expect(history[MAX_HISTORY - 1]).toEqual(entry(8));
  });
});

describe('the stored form', () => {
  const INTEGRATION = '0190f5a2-2222-7000-8000-000000000002';
  const change = (n: number, over: Partial<IdentityHistoryEntry> = {}): IdentityHistoryEntry => ({
    at: new Date(Date.parse(T0) + n * 3_600_000 + 123).toISOString(),
    actor: { kind: 'integration', id: INTEGRATION },
    operation: 'PATCH',
    changedAttributes: ['name.familyName'],
    ...over,
  });

  it('keeps each actor and attribute name once and each change as one short string', () => {
    let doc: Pick<IdentityDoc, 'history' | 'historyOmitted'> = {};
    doc = appendEntry(doc, change(0, { operation: 'CREATE', changedAttributes: ['externalId', 'personalNumbers'] }));
    doc = appendEntry(doc, change(1, { changedAttributes: ['personalNumbers', 'name.familyName'] }));
    doc = appendEntry(
      doc,
      change(2, {
        actor: { kind: 'background', id: 'directory-links' },
        operation: 'LINK_CHECK',
        changedAttributes: ['directoryLink'],
      }),
    );
    const t = (n: number) => (Date.parse(T0) + n * 3_600_000 + 123).toString(36);
    expect(doc.history).toEqual({
      a: ['b:directory-links', `i:${INTEGRATION}`],
      n: ['directoryLink', 'personalNumbers', 'name.familyName', 'externalId'],
      e: [`${t(2)} 0 K 0`, `${t(1)} 1 P 1.2`, `${t(0)} 1 C 3.1`],
    });
    expect(readHistory(doc)).toEqual([
      change(2, {
        actor: { kind: 'background', id: 'directory-links' },
        operation: 'LINK_CHECK',
        changedAttributes: ['directoryLink'],
      }),
      change(1, { changedAttributes: ['personalNumbers', 'name.familyName'] }),
      change(0, { operation: 'CREATE', changedAttributes: ['externalId', 'personalNumbers'] }),
    ]);
  });

  it('reads back every actor kind, operation and time exactly; an unknown operation or an inexact time as written', () => {
    const entries: IdentityHistoryEntry[] = [
      change(9, { actor: { kind: 'importRun', id: 'run 1:a' }, operation: 'IMPORT_CREATE', changedAttributes: [] }),
      change(8, { actor: { kind: 'administrator', id: 'admin-1' }, operation: 'ADMIN_UPDATE' }),
      ...['REPLACE', 'IMPORT_UPDATE', 'IMPORT_DEACTIVATE', 'DEACTIVATE', 'LINK', 'UNLINK', 'RETENTION'].map(
        (operation, n) => change(n, { operation }),
      ),
      change(7, { operation: 'SOMETHING_NEW', at: '2026-01-01T00:00:00Z', changedAttributes: ['a b', 'c.d'] }),
      change(7, { at: '1969-12-31T23:59:59.999Z' }),
    ];
    let doc: Pick<IdentityDoc, 'history' | 'historyOmitted'> = {};
    for (const e of [...entries].reverse()) doc = appendEntry(doc, e);
    expect(readHistory(doc)).toEqual(entries);
  });

  it(`holds a full history of ${MAX_HISTORY} changes in about 1 KB (the readable form took 8.5 KB)`, () => {
    let doc: Pick<IdentityDoc, 'history' | 'historyOmitted'> = {};
    doc = appendEntry(
      doc,
      change(0, {
        operation: 'CREATE',
        changedAttributes: ['externalId', 'userName', 'name.givenName', 'name.familyName', 'active', 'affiliationType'],
      }),
    );
    for (let n = 1; n < MAX_HISTORY; n++) doc = appendEntry(doc, change(n));
    expect(readHistory(doc)).toHaveLength(MAX_HISTORY);
    expect(Buffer.byteLength(JSON.stringify(doc.history))).toBeLessThan(1100);
  });

  it('reads a history stored in the readable form, and writes the compact form with the next change', () => {
    const stored: IdentityHistoryEntry[] = [
      change(2),
      change(1, { operation: 'CREATE', changedAttributes: ['externalId'] }),
    ];
    const doc = { history: JSON.parse(JSON.stringify(stored)) as IdentityHistoryEntry[], historyOmitted: 4 };
    expect(readHistory(doc)).toEqual(stored);
    const next = appendEntry(doc, change(3));
    expect(Array.isArray(next.history)).toBe(false);
    expect(next.historyOmitted).toBe(4);
    expect(readHistory(next)).toEqual([change(3), ...stored]);
    // A full readable history is bounded as before: the oldest change dropped and counted.
    const full = { history: Array.from({ length: MAX_HISTORY }, (_, n) => change(MAX_HISTORY - 1 - n)) };
    const after = appendEntry(full, change(MAX_HISTORY));
    expect(after.historyOmitted).toBe(1);
    expect(readHistory(after)).toEqual([change(MAX_HISTORY), ...full.history.slice(0, MAX_HISTORY - 1)]);
  });

  it('has no changes without a history, and leaves out a change it cannot read', () => {
    expect(readHistory({})).toEqual([]);
    const t = (Date.parse(T0) + 123).toString(36);
    expect(
      readHistory({
        history: {
          a: ['i:x', 'z:y', 'ix'],
          n: ['name.givenName'],
          e: [`${t} 0 P 0`, `${t} 1 P 0`, `${t} 2 P 0`, `${t} 5 P 0`, `${t} 0 P 7`, `${t} 0 P`, `${t} 0 P 0 extra`],
        },
      }),
    ).toEqual([
      {
        at: new Date(Date.parse(T0) + 123).toISOString(),
        actor: { kind: 'integration', id: 'x' },
        operation: 'PATCH',
        changedAttributes: ['name.givenName'],
      },
    ]);
  });
});

describe('withChange', () => {
  it('records a creation at its time, with every attribute it has and its link, never a value', () => {
    const doc = {
      ...created({ personalNumbers: [{ type: 'DkCpr', value: CPR }] }),
      link: { status: 'pending' as const },
    };
    const recorded = withChange(undefined, doc, { actor: byIntegration('int-1'), operation: 'CREATE' });
    expect(readHistory(recorded)).toEqual([
      {
        at: T0,
        actor: { kind: 'integration', id: 'int-1' },
        operation: 'CREATE',
        changedAttributes: [
          'externalId',
          'userName',
          'affiliationType',
          'name.givenName',
          'name.familyName',
          'active',
          'personalNumbers',
          'directoryLink',
        ],
      },
    ]);
    expect(recorded.historyOmitted).toBe(0);
    expect(JSON.stringify(recorded.history)).not.toContain(CPR);
    expect(JSON.stringify(recorded.history)).not.toContain('Anna');
    expect(JSON.stringify(readHistory(recorded))).not.toContain(CPR);
  });

  it('records an update at the new version’s lastModified, naming what changed; the history goes on with the next version', () => {
    const first = withChange(undefined, created(), { actor: byIntegration('int-1'), operation: 'CREATE' });
    const next = nextIdentityVersion(first, { attributes: { ...attributes(), givenName: 'Ann' } }, T1);
    const recorded = withChange(first, next, { actor: byIntegration('int-1'), operation: 'PATCH' });
    expect(readHistory(recorded).map((e) => [e.at, e.operation, e.changedAttributes])).toEqual([
      [T1, 'PATCH', ['name.givenName']],
      [T0, 'CREATE', ['externalId', 'userName', 'affiliationType', 'name.givenName', 'name.familyName', 'active']],
    ]);
    // A link-only version names the link.
    const linked = nextIdentityVersion(recorded, { link: { status: 'linked', source: 'manual', userId: 'u1' } }, T1);
    expect(
      readHistory(withChange(recorded, linked, { actor: byAdministrator({ id: 'admin-1' }), operation: 'LINK' }))[0],
    ).toEqual({
      at: T1,
      actor: { kind: 'administrator', id: 'admin-1' },
      operation: 'LINK',
      changedAttributes: ['directoryLink'],
    });
  });

  it('names the actors of runs and background work', () => {
    expect(byRun('run-1')).toEqual({ kind: 'importRun', id: 'run-1' });
    expect(byBackground('retention')).toEqual({ kind: 'background', id: 'retention' });
  });
});

describe('updateOperation', () => {
  it('is the deactivation when an active identity turns inactive, the update otherwise', () => {
    expect(updateOperation({ active: true }, { active: false }, 'ADMIN_UPDATE', 'DEACTIVATE')).toBe('DEACTIVATE');
    expect(updateOperation({ active: false }, { active: false }, 'ADMIN_UPDATE', 'DEACTIVATE')).toBe('ADMIN_UPDATE');
    expect(updateOperation({ active: true }, { active: true }, 'IMPORT_UPDATE', 'IMPORT_DEACTIVATE')).toBe(
      'IMPORT_UPDATE',
    );
  });
});

describe('the marks of the activity', () => {
  it("a run's change sets lastRunId and keeps activityAt; any other change sets activityAt", () => {
    const imported = withChange(undefined, created(), { actor: byRun('run-1'), operation: 'IMPORT_CREATE' });
    expect(imported).toMatchObject({ lastRunId: 'run-1' });
    expect(imported.activityAt).toBeUndefined();
    const linked = withChange(imported, nextIdentityVersion(imported, { attributes: attributes() }, T1), {
      actor: byAdministrator({ id: 'admin-1' }),
      operation: 'ADMIN_UPDATE',
    });
    expect(linked).toMatchObject({ lastRunId: 'run-1', activityAt: T1 });
    const later = '2026-03-01T00:00:00.000Z';
    const updated = withChange(
      linked,
      nextIdentityVersion(linked, { attributes: attributes({ givenName: 'A' }) }, later),
      {
        actor: byRun('run-2'),
        operation: 'IMPORT_UPDATE',
      },
    );
    expect(updated).toMatchObject({ lastRunId: 'run-2', activityAt: T1, lastModified: later });
  });
});

describe("an administrator's name", () => {
  it('is kept with the change in the stored form and read back; an id without a name reads as before', () => {
    const named = withChange(undefined, created(), {
      actor: byAdministrator({ id: 'oid-1', name: 'Ada | Lovelace' }),
      operation: 'CREATE',
    });
    const plain = withChange(named, nextIdentityVersion(named, { attributes: attributes({ givenName: 'B' }) }, T1), {
      actor: byAdministrator({ id: 'oid-1' }),
      operation: 'ADMIN_UPDATE',
    });
    expect(readHistory(plain).map((e) => e.actor)).toEqual([
      { kind: 'administrator', id: 'oid-1' },
      { kind: 'administrator', id: 'oid-1', name: 'Ada | Lovelace' },
    ]);
  });
});
