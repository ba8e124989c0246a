/**
 * The reference client's staged upload against a small stand-in of the staged import contract
 * (tests/support/fakeStagedService.ts): parts within both bounds, `run <id>` before the counts, --no-wait,
 * an interrupted upload resumed without sending a part twice, an expired one started over, retries of a
 * part, missing parts sent again, token renewal, bounded association requests. The same behaviour against
 * the real service: tests/integration/importClientStaged.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCli, importRunFromArgs, resultLines, runImport, type ImportRun } from '../../../scripts/importClient';
import { startFakeStagedService, type FakeStagedService } from '../../support/fakeStagedService';

const TENANT = '11111111-1111-4111-8111-111111111111';
/** A value of every row, to show that no progress line or error repeats one. */
const SECRET_NAME = 'Zelda';

describe('the import client uploads a large set as a staged import', () => {
  let fake: FakeStagedService;
  let dir: string;
  beforeEach(async () => {
    fake = await startFakeStagedService();
  });
  afterEach(async () => fake.close());
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'staged-client-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const people = (name: string, n: number, o: { upn?: (i: number) => string; firstName?: string } = {}) => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      [
        `externalId,affiliationType,firstName,lastName${o.upn ? ',userPrincipalName' : ''}`,
        ...Array.from(
          { length: n },
          (_, i) => `E${i},employment,${o.firstName ?? SECRET_NAME},Berg${i}${o.upn ? `,${o.upn(i)}` : ''}`,
        ),
      ].join('\n'),
    );
    return file;
  };

  const lines: string[] = [];
  const run = async (file: string, extra: Partial<ImportRun> = {}) => {
    const out: string[] = [];
    const result = await runImport({
      service: fake.url,
      authority: fake.url,
      tenant: TENANT,
      clientId: 'client',
      secret: 'secret',
      scope: 'api://service/.default',
      source: 'HR',
      file,
      partSize: 100,
      pollMs: 20,
      progress: (l) => lines.push(l),
      onRun: (id) => out.push(`run ${id}`),
      ...extra,
    });
    return { result, out: [...out, ...resultLines(result)] };
  };
  const cli = async (argv: string[], signal?: AbortSignal) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await importCli(
      [
        '--service',
        fake.url,
        '--authority',
        fake.url,
        '--tenant',
        TENANT,
        '--client-id',
        'client',
        '--client-secret-env',
        'IMPORT_SECRET',
        '--scope',
        'api://service/.default',
        '--source',
        'HR',
        ...argv,
      ],
      { IMPORT_SECRET: 'secret' },
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        progress: (l) => lines.push(l),
        ...(signal ? { signal } : {}),
      },
    );
    return { code, out, err: err.join('\n') };
  };
  const sequencesSent = () => fake.partsReceived.map((p) => p.sequence);

  it('sends parts of at most --part-size, prints the run id before the counts, and follows the run to its end', async () => {
    lines.length = 0;
    const file = people('thousand.csv', 1_000);
    const { result, out } = await run(file);
    expect(fake.operations.filter((o) => o === 'importBusinessIdentities')).toEqual([]);
    expect(sequencesSent().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(fake.partsReceived.every((p) => p.identities === 100)).toBe(true);
    const runId = [...fake.runs.keys()][0];
    expect(out).toEqual([
      `run ${runId}`,
      `import ${JSON.stringify({ created: 1000, updated: 0, deleted: 0, unchanged: 0 })}`,
    ]);
    expect(result.staged).toEqual({ parts: 10, partsSent: 10, partsResumed: 0 });
    expect(lines).toContain('uploading 1000 identities in 10 parts to source HR');
    expect(lines).toContain('uploaded 1000 of 1000 identities (100%)');
    expect(lines).toContain(`run ${runId} is queued`);
    expect(lines).toContain('applied 1000 of 1000 identities (100%)');
    expect(lines.join('\n')).not.toContain(SECRET_NAME);
    // The upload is done: nothing is left to resume.
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.import-resume.json'))).toEqual([]);

    // The same file again: every identity unchanged.
    expect((await run(file)).result.import).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 1000 });
  });

  it("takes fewer identities per part when the service's maxIdentitiesPerPart is lower, and keeps every body within --max-body-bytes", async () => {
    fake.maxIdentitiesPerPart = 40;
    const file = people('bytes.csv', 300, { firstName: 'x'.repeat(120) });
    await run(file, { partSize: 100 });
    expect(fake.partsReceived.map((p) => p.identities).sort((a, b) => b - a)).toEqual([40, 40, 40, 40, 40, 40, 40, 20]);
    fake.maxIdentitiesPerPart = 2_000;
    fake.partsReceived.length = 0;
    await run(file, { partSize: 2_000, maxBodyBytes: 16 * 1024, source: 'Bytes' });
    // Cut by bytes: about 40 identities of ~170 bytes fill 16 KiB (less room for the query).
    expect(fake.partsReceived.length).toBeGreaterThan(4);
    expect(Math.max(...fake.partsReceived.map((p) => p.bodyBytes))).toBeLessThanOrEqual(16 * 1024);
  });

  it('sends a set of one part in one importBusinessIdentities request as before', async () => {
    lines.length = 0;
    const file = people('small.csv', 50);
    await expect(run(file)).rejects.toThrow(/GRAPHQL_VALIDATION_FAILED/);
    expect(fake.operations).toEqual(['importBusinessIdentities']);
  });

  it('--no-wait prints the run id and returns; the run goes on without the client', async () => {
    const file = people('nowait.csv', 300, { upn: (i) => `u${i}@example.com` });
    const r = await cli(['--file', file, '--part-size', '100', '--no-wait']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const runId = [...fake.runs.keys()][0];
    expect(r.out).toEqual([`run ${runId}`]);
    expect(fake.operations).not.toContain('importRun');
    expect(fake.operations).not.toContain('associateBusinessIdentities');
    expect(fake.runs.get(runId!)?.status).toBe('QUEUED');
    expect(lines).toContain('300 association pairs not sent (run again without --no-wait to associate them)');
  });

  /** A run of another import of the source, being applied: the fake's startImport refuses while it is named. */
  const otherRun = (): string => {
    const id = 'a1b2c3d4-0000-4000-8000-00000000abcd';
    fake.runs.set(id, { id, status: 'RUNNING', source: 'HR', dryRun: false, identities: [], looks: 1 });
    fake.faults.inProgressAtStart = id;
    return id;
  };

  it('exits at once naming the running run when startImport answers IMPORT_IN_PROGRESS: nothing is uploaded', async () => {
    const file = people('busy.csv', 300);
    const running = otherRun();
    const r = await cli(['--file', file, '--part-size', '100']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`IMPORT_IN_PROGRESS: another import of source HR is being applied as run ${running}`);
    expect(r.err).toContain('--follow-running');
    expect(r.err).not.toContain(SECRET_NAME);
    expect(fake.operations).toEqual(['startImport']);
    expect(fake.partsReceived).toEqual([]);
  });

  it('--follow-running follows the running run to its end, then uploads the set', async () => {
    lines.length = 0;
    const file = people('follow.csv', 300);
    const running = otherRun();
    const { out } = await run(file, { followRunning: true });
    expect(fake.runs.get(running)?.status).toBe('COMPLETED');
    expect(lines).toContain(
      `another import of source HR is being applied as run ${running}; following it (--follow-running)`,
    );
    expect(fake.operations.indexOf('importRun')).toBeLessThan(fake.operations.indexOf('addImportPart'));
    expect(sequencesSent().sort((a, b) => a - b)).toEqual([1, 2, 3]);
    const own = [...fake.runs.keys()].find((id) => id !== running);
    expect(out).toEqual([
      `run ${own}`,
      `import ${JSON.stringify({ created: 300, updated: 0, deleted: 0, unchanged: 0 })}`,
    ]);
    const args = ['--service', fake.url, '--tenant', TENANT, '--client-id', 'c', '--client-secret-env', 'S'];
    const parsed = importRunFromArgs(
      [...args, '--scope', 's', '--source', 'HR', '--file', file, '--follow-running'],
      { S: 'x' },
      {},
    );
    expect(parsed).toMatchObject({ followRunning: true });
  });

  it('stops following the run on Ctrl+C (exit 130); the run goes on without the client', async () => {
    const file = people('stop-following.csv', 300);
    const interrupt = new AbortController();
    const out: string[] = [];
    const err: string[] = [];
    const stopped = await importCli(
      [
        ...['--service', fake.url, '--authority', fake.url, '--tenant', TENANT, '--client-id', 'client'],
        ...['--client-secret-env', 'S', '--scope', 'api://service/.default', '--source', 'HR'],
        ...['--file', file, '--part-size', '100'],
      ],
      { S: 'secret' },
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        progress: (l) => {
          if (l.endsWith(' is queued')) interrupt.abort();
        },
        signal: interrupt.signal,
      },
    );
    expect(stopped).toBe(130);
    const runId = [...fake.runs.keys()][0];
    expect(out).toEqual([`run ${runId}`]);
    expect(err.at(-1)).toBe(
      `stopped following run ${runId}; the service goes on applying it (importRun, or npm run ops -- runs)`,
    );
  });

  it('resumes an interrupted upload: only the parts the service does not hold are sent', async () => {
    lines.length = 0;
    const file = people('resume.csv', 1_000);
    const interrupt = new AbortController();
    fake.onPart = () => {
      if (fake.partsReceived.length === 3) interrupt.abort();
    };
    const first = await cli(['--file', file, '--part-size', '100', '--no-wait'], interrupt.signal);
    expect(first.code).toBe(130);
    const held = fake.partsReceived.length;
    expect(held).toBeGreaterThanOrEqual(3);
    expect(held).toBeLessThan(10);
    expect(first.err).toBe(
      `interrupted after ${held} of 10 parts were uploaded; run the same command again to resume the upload`,
    );
    expect(fake.operations).not.toContain('completeImport');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.resume.csv.'))).toHaveLength(1);

    fake.onPart = undefined;
    const { result } = await run(file);
    expect(lines).toContain(`resuming the upload: the service holds ${held} of 10 parts`);
    expect(fake.operations.filter((o) => o === 'startImport')).toHaveLength(1);
    // Every part was sent once, over both runs.
    expect(sequencesSent().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(result.staged).toEqual({ parts: 10, partsSent: 10 - held, partsResumed: held });
    expect(result.import).toEqual({ created: 1000, updated: 0, deleted: 0, unchanged: 0 });
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.resume.csv.'))).toEqual([]);
  });

  it('starts over when the interrupted upload expired, or when the file changed', async () => {
    lines.length = 0;
    const file = people('expired.csv', 500);
    const interrupt = new AbortController();
    fake.onPart = () => interrupt.abort();
    expect((await cli(['--file', file, '--part-size', '100'], interrupt.signal)).code).toBe(130);
    fake.onPart = undefined;
    fake.imports.clear();
    fake.partsReceived.length = 0;
    await run(file);
    expect(lines).toContain('starting the upload over: the interrupted upload expired or is unknown to the service');
    expect(sequencesSent().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);

    const again = new AbortController();
    fake.onPart = () => again.abort();
    expect((await cli(['--file', file, '--part-size', '100'], again.signal)).code).toBe(130);
    fake.onPart = undefined;
    fs.appendFileSync(file, '\nE500,employment,Anna,Dahl');
    await run(file);
    expect(lines).toContain(
      'starting the upload over: the file, source or options changed since the interrupted upload',
    );
    expect(fake.operations.filter((o) => o === 'startImport')).toHaveLength(4);
  });

  it('sends a part again after SERVICE_BUSY (its wait) and after a broken connection; missing parts before completing', async () => {
    lines.length = 0;
    fake.faults = { busyOnPart: 2, dropOnPart: 3, forgetPartAtCompletion: 4 };
    const { result } = await run(people('faults.csv', 500));
    expect(result.import).toEqual({ created: 500, updated: 0, deleted: 0, unchanged: 0 });
    expect(lines).toContain('the service is busy; sending part 2 again in 1 s');
    expect(lines).toContainEqual(expect.stringMatching(/^the connection failed; sending part 3 again in 0\.0 s$/));
    expect(lines).toContain('the service misses 1 of 5 parts; sending them again');
    // Parts 2 and 3 were stored once, when sent again; part 4 twice (the service lost it once).
    expect(sequencesSent().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 4, 5]);
  });

  it("maps a part's refused identity to its CSV line and column, never its value", async () => {
    fake.faults = { badInputOnPart: { sequence: 3, index: 7 } };
    const failed = await run(people('refused.csv', 500)).then(
      () => new Error('not refused'),
      (e: unknown) => e as Error,
    );
    // Identity 207 of the set is on line 209 (the header is line 1).
    expect(failed.message).toBe(
      'BAD_USER_INPUT: The input is not valid\n  line 209, column firstName: must not be empty',
    );
  });

  it("fails with the run's code when the run is rejected, with the hint for the delete guard", async () => {
    await run(people('full.csv', 500));
    const refused = await run(people('truncated.csv', 300)).then(
      () => new Error('not refused'),
      (e: unknown) => e as Error,
    );
    expect(refused.message).toMatch(/^IMPORT_DELETE_LIMIT_EXCEEDED: import run \S+ rejected[\s\S]*--allow-deletes/);
    expect((await run(people('truncated.csv', 300), { maxDeletedRatio: null })).result.import).toEqual({
      created: 0,
      updated: 0,
      deleted: 200,
      unchanged: 300,
    });
  });

  it('renews its token before it expires: no request of a long upload and run carries an expired token', async () => {
    // Tokens of 0.4 s (the client renews at half a short token's lifetime), so the test takes under a second.
    fake.tokenLifetimeS = 0.4;
    fake.looksPerRun = 14;
    const startedAt = Date.now();
    const { result } = await run(people('tokens.csv', 500), { pollMs: 50 });
    expect(result.import?.created).toBe(500);
    // The upload and its run outlasted a token.
    expect(Date.now() - startedAt).toBeGreaterThan(600);
    expect(fake.expiredTokenUses).toBe(0);
    expect(fake.tokensIssued).toBeGreaterThanOrEqual(3);
  });

  it('associates in requests of at most --association-chunk pairs and --max-body-bytes, and adds up the counts', async () => {
    const file = people('associate.csv', 1_000, { upn: (i) => `${'u'.repeat(900)}${i}@example.com` });
    const { result } = await run(file, { associationChunk: 300, maxBodyBytes: 128 * 1024 });
    expect(result.associate).toEqual({
      associated: 1000,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 0,
      conflictingUserPrincipalNames: 0,
    });
    expect(fake.associations.reduce((n, a) => n + a.pairs, 0)).toBe(1000);
    expect(Math.max(...fake.associations.map((a) => a.pairs))).toBeLessThanOrEqual(300);
    expect(Math.max(...fake.associations.map((a) => a.bodyBytes))).toBeLessThanOrEqual(128 * 1024);
    // ~930 bytes a pair: the body bound cuts before the pair count does.
    expect(fake.associations.length).toBeGreaterThan(Math.ceil(1000 / 300));
  });
});
