import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  decideResume,
  fileHash,
  missingSequences,
  readResume,
  removeResume,
  resumeFileFor,
  writeResume,
  type ResumeState,
  type UploadKey,
} from '../../../../scripts/importClient/resumeState';

const KEY: UploadKey = {
  service: 'https://svc.example.com',
  tenant: '11111111-1111-4111-8111-111111111111',
  source: 'HR',
  fileHash: 'a'.repeat(64),
  partSize: 2_000,
  maxBodyBytes: 8 * 1024 * 1024,
  dryRun: false,
  maxDeletedRatio: 0.2,
};
const SAVED: ResumeState = {
  ...KEY,
  version: 1,
  importId: 'imp-1',
  partIdentities: 2_000,
  parts: 5,
  identities: 9_000,
  expiresAt: '2030-01-01T00:00:00.000Z',
};
const WANTED = { ...KEY, identities: 9_000 };

describe('resuming an interrupted upload', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('resumes the same file, source and options: only the parts the service does not hold are sent', () => {
    expect(decideResume(SAVED, WANTED, { importId: 'imp-1', source: 'HR', sequences: [1, 2, 4], runId: null })).toEqual(
      { resume: true, importId: 'imp-1', missing: [3, 5], received: 3 },
    );
    expect(decideResume(SAVED, WANTED, { importId: 'imp-1', source: 'HR', sequences: [] })).toMatchObject({
      resume: true,
      missing: [1, 2, 3, 4, 5],
    });
    expect(decideResume(SAVED, WANTED, { importId: 'imp-1', source: 'HR', sequences: [5, 1, 2, 3, 4] })).toMatchObject({
      resume: true,
      missing: [],
    });
  });

  it('starts over when the file, the source, the target or an option changed', () => {
    for (const change of [
      { fileHash: 'b'.repeat(64) },
      { source: 'Students' },
      { service: 'https://other.example.com' },
      { tenant: '22222222-2222-4222-8222-222222222222' },
      { partSize: 500 },
      { maxBodyBytes: 1_000_000 },
      { dryRun: true },
      { maxDeletedRatio: null },
      { identities: 9_001 },
    ])
      expect(
        decideResume(SAVED, { ...WANTED, ...change }, { importId: 'imp-1', source: 'HR', sequences: [1] }),
      ).toEqual({ resume: false, reason: 'the file, source or options changed since the interrupted upload' });
    // The tenant is a GUID: its case does not matter.
    expect(
      decideResume(SAVED, { ...WANTED, tenant: KEY.tenant.toUpperCase() }, { ...view(), sequences: [1] }),
    ).toMatchObject({ resume: true });
  });

  const view = () => ({ importId: 'imp-1', source: 'HR', sequences: [1] as number[] });

  it('starts over when the service no longer holds the import, completed it, or holds something else', () => {
    expect(decideResume(SAVED, WANTED, null)).toEqual({
      resume: false,
      reason: 'the interrupted upload expired or is unknown to the service',
    });
    expect(decideResume(SAVED, WANTED, { ...view(), runId: 'run-1' })).toEqual({
      resume: false,
      reason: 'the earlier upload was completed',
    });
    expect(decideResume(SAVED, WANTED, { ...view(), source: 'Other' })).toMatchObject({ resume: false });
    expect(decideResume(SAVED, WANTED, { ...view(), sequences: [1, 6] })).toMatchObject({ resume: false });
    expect(decideResume(undefined, WANTED, undefined)).toEqual({ resume: false });
  });

  it('lists the missing sequences in order', () => {
    expect(missingSequences(6, [6, 2, 2, 3])).toEqual([1, 4, 5]);
    expect(missingSequences(0, [])).toEqual([]);
  });

  it('keeps its state in a small file beside the data file (or in --state-dir), written whole, without personal values', async () => {
    const data = path.join(dir, 'people.csv');
    fs.writeFileSync(data, 'externalId,affiliationType,firstName,lastName\nE1,employment,Anna,Berg\n');
    const file = resumeFileFor({ file: data, service: KEY.service, tenant: KEY.tenant, source: 'HR' });
    expect(path.dirname(file)).toBe(dir);
    expect(path.basename(file)).toMatch(/^\.people\.csv\.[0-9a-f]{12}\.import-resume\.json$/);
    expect(resumeFileFor({ file: data, service: KEY.service, tenant: KEY.tenant, source: 'Students' })).not.toBe(file);
    expect(
      path.dirname(
        resumeFileFor({
          file: data,
          stateDir: path.join(dir, 'state'),
          service: KEY.service,
          tenant: KEY.tenant,
          source: 'HR',
        }),
      ),
    ).toBe(path.join(dir, 'state'));

    const hash = await fileHash(data);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    fs.appendFileSync(data, 'E2,employment,Bo,Ek\n');
    expect(await fileHash(data)).not.toBe(hash);

    const { version: _v, ...state } = SAVED;
    writeResume(file, state);
    expect(readResume(file)).toEqual(SAVED);
    const text = fs.readFileSync(file, 'utf8');
    for (const value of ['Anna', 'Berg', 'E1']) expect(text).not.toContain(value);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    fs.writeFileSync(file, '{ not json');
    expect(readResume(file)).toBeUndefined();
    fs.writeFileSync(file, JSON.stringify({ ...SAVED, version: 99 }));
    expect(readResume(file)).toBeUndefined();
    removeResume(file);
    expect(fs.existsSync(file)).toBe(false);
    expect(readResume(file)).toBeUndefined();
  });
});
