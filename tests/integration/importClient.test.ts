import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';
import {
  importRunFromArgs as parseImportArgs,
  readCsv,
  resultLines,
  runImport,
  UsageError,
  type ImportRun,
} from '../../scripts/importClient';
import { setFaultInjector, type FaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

/**
 * Holds the identity writes of the store until `released()` says so (an event of the test, never a time):
 * each is throttled and retried after RETRY_AFTER_MS, inside the importer's retry budget (five waits), so
 * the import runs on, slowly. Resolves when the first write was held (the import then holds its source's lease).
 */
const RETRY_AFTER_MS = 500;
function holdIdentityWrites(
  released: () => boolean,
  options: { then?: () => void; also?: FaultInjector } = {},
): Promise<void> {
  return new Promise((held) => {
    setFaultInjector((op, container, target) => {
      options.also?.(op, container, target);
      if (container !== 'identities' || (op !== 'create' && op !== 'replace')) return;
      if (!released()) {
        held();
        throw new StoreError('throttled', 'injected: held', RETRY_AFTER_MS);
      }
      options.then?.();
    });
  });
}

describe('reference import client', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-client-'));
  });
  afterEach(() => setFaultInjector(undefined));
  afterAll(async () => {
    setFaultInjector(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const progress: string[] = [];
  /** How often the client has said its request timed out (it then follows the run). */
  const timeouts = (of: 'import' | 'association' = 'import') =>
    progress.filter((l) => l.startsWith('the request timed out') && l.endsWith(`following the ${of}'s run`)).length;
  const run = (file: string, secret = DEV_CLIENTS.admin.secret) =>
    runImport({
      service: stack.base,
      source: 'Nightly',
      file,
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret,
      authority: stack.idp.url,
      scope: SERVICE_SCOPE,
      progress: (l) => progress.push(l),
    });

  it('imports a CSV file and associates the rows that name a user', async () => {
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,birthDate,nationality,cpr,passportNumber,passportCountry,userPrincipalName',
        'N1,employment,"Berg, Anna",Berg,1990-01-01,DK,010190-1234,P1,DK,carol@dev.example.com',
        'N2,enrollment,Bo,Ek,,,,,,',
      ].join('\n'),
    );
    const result = await run(file);
    expect(result.import).toEqual({ created: 2, updated: 0, deleted: 0, unchanged: 0 });
    expect(result.associate).toEqual({
      associated: 1,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 0,
      conflictingUserPrincipalNames: 0,
    });
    expect((await run(file)).import).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 2 });
  });

  it('associates in parts and adds up the counts of every part', async () => {
    const file = path.join(dir, 'parts.csv');
    const upns = [1, 2, 3, 4, 5].map((i) => `part.${i}@dev.example.com`);
    for (const upn of upns.slice(0, 4)) stack.directory.createUser(DEV_TENANT_ID, upn);
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,userPrincipalName',
        ...upns.map((upn, i) => `Q${i},employment,F,L,${upn}`),
      ].join('\n'),
    );
    const runParts = () =>
      runImport({
        service: stack.base,
        source: 'Parts',
        file,
        tenant: DEV_TENANT_ID,
        clientId: DEV_CLIENTS.admin.clientId,
        secret: DEV_CLIENTS.admin.secret,
        authority: stack.idp.url,
        scope: SERVICE_SCOPE,
        associationChunk: 2,
      });
    expect((await runParts()).associate).toEqual({
      associated: 4,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 1,
      conflictingUserPrincipalNames: 0,
    });
    expect((await runParts()).associate).toEqual({
      associated: 0,
      unchanged: 4,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 1,
      conflictingUserPrincipalNames: 0,
    });
  });

  it('fails with the error code and field, without values, on a rejected set; and on a bad secret', async () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          externalId: 'X',
          affiliationType: 'EMPLOYMENT',
          firstName: '',
          lastName: 'L',
          personalNumbers: [{ type: 'DK_CPR', value: '9999999999' }],
        },
      ]),
    );
    await expect(run(file)).rejects.toThrow(/BAD_USER_INPUT[\s\S]*identities\[0\]\.firstName/);
    await expect(run(file)).rejects.not.toThrow(/9999999999/);
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(
      good,
      JSON.stringify([{ externalId: 'X', affiliationType: 'OTHER', firstName: 'F', lastName: 'L' }]),
    );
    await expect(run(good, 'wrong')).rejects.toThrow(/token request failed \(HTTP 401\)/);
    await expect(client('Nightly', good, { service: `${stack.base}/elsewhere` })).rejects.toThrow(
      /^the service answered HTTP 404 without a GraphQL result/,
    );
  });

  it('reports progress: rows read, the upload and each association part', async () => {
    progress.length = 0;
    await run(path.join(dir, 'people.csv'));
    expect(progress).toEqual([
      'read 2 identities',
      'uploading 2 identities to source Nightly',
      expect.stringMatching(/^imported in \d+\.\d s$/),
      'associating part 1 of 1 (1 pairs)',
    ]);
  });

  const rowsOf = (name: string, content: string | Buffer, delimiter?: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return readCsv(file, { delimiter, progress: () => undefined });
  };

  it('parses RFC 4180: quoted delimiters, doubled quotes, line breaks inside quotes, CRLF', async () => {
    const rows = await rowsOf(
      'rfc.csv',
      'externalId,affiliationType,firstName,lastName\r\nA1,employment,"Berg, Anna","O\'Neil ""Jr"""\r\nA2,enrollment,"Two\r\nLines",Ek\r\n\r\n',
    );
    expect(rows).toEqual([
      { externalId: 'A1', affiliationType: 'EMPLOYMENT', firstName: 'Berg, Anna', lastName: 'O\'Neil "Jr"' },
      { externalId: 'A2', affiliationType: 'ENROLLMENT', firstName: 'Two\r\nLines', lastName: 'Ek' },
    ]);
  });

  it('reads spreadsheet exports: UTF-8 BOM and ; as delimiter (detected, or given)', async () => {
    const text = 'externalId;affiliationType;firstName;lastName;cpr\nB1;employment;Åse, M.;Øster;0101901234\n';
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    const expected = [
      {
        externalId: 'B1',
        affiliationType: 'EMPLOYMENT',
        firstName: 'Åse, M.',
        lastName: 'Øster',
        personalNumbers: [{ type: 'DK_CPR', value: '0101901234' }],
      },
    ];
    expect(await rowsOf('bom.csv', withBom)).toEqual(expected);
    expect(await rowsOf('given.csv', withBom, ';')).toEqual(expected);
  });

  it('refuses a malformed CSV or a missing column by line and code, without the file content', async () => {
    const bad = await rowsOf(
      'bad-quote.csv',
      'externalId,affiliationType,firstName,lastName\nC1,employment,"SECRET-VALUE"x,L\n',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as Error).message).toMatch(/line 2/);
    expect((bad as Error).message).not.toContain('SECRET');
    await expect(rowsOf('no-column.csv', 'externalId,firstName,lastName\nD1,F,L\n')).rejects.toThrow(
      /lacks the column\(s\) affiliationType/,
    );
  });

  const people = (name: string, n: number) => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName',
        ...Array.from({ length: n }, (_, i) => `T${i},employment,F${i},L${i}`),
      ].join('\n'),
    );
    return file;
  };
  const client = (source: string, file: string, extra: Partial<ImportRun> = {}) =>
    runImport({
      service: stack.base,
      source,
      file,
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret: DEV_CLIENTS.admin.secret,
      authority: stack.idp.url,
      scope: SERVICE_SCOPE,
      pollMs: 50,
      progress: (l) => progress.push(l),
      ...extra,
    });

  it("when its request times out, follows the run to its end and prints the run's true counts", async () => {
    const file = people('slow.csv', 40);
    progress.length = 0;
    void holdIdentityWrites(() => timeouts() > 0);
    const result = await client('Slow', file, { timeoutMs: 500 });
    expect(progress).toContainEqual(
      expect.stringMatching(/^the request timed out after \d+\.\d s; following the import's run$/),
    );
    expect(progress).toContainEqual(`following run ${result.importRunId}`);
    const run = await services().runs.get(DEV_TENANT_ID, result.importRunId);
    expect(run).toMatchObject({
      status: 'completed',
      importCounts: { created: 40, updated: 0, deleted: 0, unchanged: 0 },
    });
    expect(result.import).toEqual(run!.importCounts);
    expect(resultLines(result)).toEqual([
      `import ${JSON.stringify({ created: 40, updated: 0, deleted: 0, unchanged: 0 })}`,
      `run ${result.importRunId}`,
    ]);

    // Another source's runs started meanwhile by the same client are not mistaken for its own.
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}\nT40,employment,F,L`);
    const timedOutBefore = timeouts();
    const slowHeld = holdIdentityWrites(() => timeouts() > timedOutBefore);
    const [again] = await Promise.all([
      client('Slow', file, { timeoutMs: 500 }),
      slowHeld.then(() => client('Other', people('other.csv', 2))),
    ]);
    expect(again.import).toEqual({ created: 1, updated: 0, deleted: 0, unchanged: 40 });
    expect((await services().runs.get(DEV_TENANT_ID, again.importRunId))?.importCounts).toEqual(again.import);
  });

  it('finds its own run by its correlation id, not a run the same credentials started just before it elsewhere', async () => {
    const file = people('own-run.csv', 5);
    progress.length = 0;
    let heldOther = false;
    let otherFirstWrite: string | undefined;
    let mineHoldsTheSource = false;
    let aRunEnded = false;
    let otherBegan: () => void = () => undefined;
    const otherHeld = new Promise<void>((r) => (otherBegan = r));
    // The other process's first write (its run pointer) is throttled until this client holds the source, so its
    // run record is written late, after this client's request began; this client's identity writes are held
    // until its request timed out and the other run was refused (its record ended).
    void holdIdentityWrites(
      () => {
        mineHoldsTheSource = true;
        return timeouts() > 0 && aRunEnded;
      },
      {
        also: (op, container, target) => {
          if (container !== 'imports') return;
          if (op === 'replace' && target?.id.startsWith('run-')) aRunEnded = true;
          if (op !== 'create' || (otherFirstWrite !== undefined && target?.id !== otherFirstWrite)) return;
          otherFirstWrite ??= target?.id;
          if (mineHoldsTheSource) return;
          heldOther = true;
          otherBegan();
          throw new StoreError('throttled', 'injected: held', 1000);
        },
      },
    );
    const other = client('OwnRun', file, { progress: () => undefined });
    await otherHeld;
    const mine = await client('OwnRun', file, { timeoutMs: 400 });
    expect(heldOther).toBe(true);
    expect(progress).toContainEqual(
      expect.stringMatching(/^the request timed out after \d+\.\d s; following the import's run$/),
    );
    expect(mine.import).toEqual({ created: 5, updated: 0, deleted: 0, unchanged: 0 });
    const runs = await services().runs.list(partitionKey(DEV_TENANT_ID, customSourceKey('OwnRun')), 10);
    const mineRecorded = runs.find((r) => r.id === mine.importRunId);
    expect(mineRecorded).toMatchObject({
      status: 'completed',
      correlationId: expect.stringMatching(/^import-client-[a-z]{16}$/),
    });
    // The other run began first (an older id) and was refused while this one held the source.
    expect(runs.some((r) => r.id < mine.importRunId && r.status === 'rejected')).toBe(true);
    await other;
  });

  it('keeps following its run while looks at the run history are answered SERVICE_BUSY', async () => {
    const file = people('busy-store.csv', 10);
    progress.length = 0;
    let busyReads = 0;
    // Besides the held identity writes, the first three reads of a run record (importRun) are throttled.
    void holdIdentityWrites(() => timeouts() > 0, {
      also: (op, container, target) => {
        if (container === 'imports' && op === 'read' && target?.id.startsWith('run-') && busyReads < 3) {
          busyReads++;
          throw new StoreError('throttled', 'injected: busy', 10);
        }
      },
    });
    const result = await client('BusyStore', file, { timeoutMs: 500 });
    expect(busyReads).toBe(3);
    expect(result.import).toEqual({ created: 10, updated: 0, deleted: 0, unchanged: 0 });
  });

  it('when an association part times out, follows its run and adds up the counts the run reports', async () => {
    const file = path.join(dir, 'assoc-slow.csv');
    const upns = [1, 2, 3].map((i) => `slow.assoc.${i}@dev.example.com`);
    for (const upn of upns.slice(0, 2)) stack.directory.createUser(DEV_TENANT_ID, upn);
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,userPrincipalName',
        ...upns.map((upn, i) => `AS${i},employment,F,L,${upn}`),
      ].join('\n'),
    );
    progress.length = 0;
    // Claims (the links container) are throttled until the client's request timed out: each pair waits, inside its retries.
    setFaultInjector((op, container) => {
      if (container !== 'links' || op !== 'create') return;
      if (timeouts('association') === 0) throw new StoreError('throttled', 'injected: held', 1000);
    });
    const result = await client('SlowAssoc', file, { timeoutMs: 400, associationChunk: 2 });
    expect(result.associate).toEqual({
      associated: 2,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 1,
      conflictingUserPrincipalNames: 0,
    });
    expect(progress).toContainEqual(
      expect.stringMatching(/^the request timed out after \d+\.\d s; following the association's run$/),
    );
    const runs = await services().runs.list(partitionKey(DEV_TENANT_ID, customSourceKey('SlowAssoc')), 10);
    expect(runs.filter((r) => r.operation === 'association').map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('sends again, on their own, the pairs the service answers ASSOCIATION_INCOMPLETE for, and adds up the counts', async () => {
    const file = path.join(dir, 'assoc-incomplete.csv');
    const users = [1, 2, 3].map((i) => stack.directory.createUser(DEV_TENANT_ID, `incomplete.${i}@dev.example.com`));
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,userPrincipalName',
        ...users.map((u, i) => `AI${i},employment,F,L,${u.userPrincipalName}`),
      ].join('\n'),
    );
    progress.length = 0;
    // The claim of one user cannot be written through the service's own tries of the first send.
    const stuck = users[1]!;
    let failures = 0;
    setFaultInjector((op, container, target) => {
      if (container !== 'links' || op !== 'create' || target?.id !== stuck.id || failures >= 4) return;
      failures++;
      throw new StoreError('unavailable', 'injected: store unavailable', 20);
    });
    const result = await client('Incomplete', file);
    expect(failures).toBe(4);
    expect(result.associate).toEqual({
      associated: 3,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 0,
      conflictingUserPrincipalNames: 0,
    });
    expect(progress).toContainEqual('1 pair was not done; sending it again in 0.1 s');
    expect(progress.join('\n')).not.toContain('AI1');
    const runs = await services().runs.list(partitionKey(DEV_TENANT_ID, customSourceKey('Incomplete')), 10);
    expect(runs.filter((r) => r.operation === 'association').map((r) => r.status)).toEqual(['completed', 'failed']);
  });

  it("gives up after three sends of pairs that keep failing, with the service's code", async () => {
    const file = path.join(dir, 'assoc-stuck.csv');
    const user = stack.directory.createUser(DEV_TENANT_ID, 'stuck.for.good@dev.example.com');
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,userPrincipalName',
        `AS-STUCK,employment,F,L,${user.userPrincipalName}`,
      ].join('\n'),
    );
    setFaultInjector((op, container, target) => {
      if (container === 'links' && op === 'create' && target?.id === user.id)
        throw new StoreError('unavailable', 'injected: store unavailable', 20);
    });
    await expect(client('StuckForGood', file)).rejects.toThrow(/^ASSOCIATION_INCOMPLETE: /);
    const runs = await services().runs.list(partitionKey(DEV_TENANT_ID, customSourceKey('StuckForGood')), 10);
    expect(runs.filter((r) => r.operation === 'association')).toHaveLength(3);
  });

  it('answered IMPORT_IN_PROGRESS, follows the running import to its end, then sends its set again', async () => {
    const file = people('busy.csv', 30);
    progress.length = 0;
    // The first import's writes are held until the second client was told it runs.
    const held = holdIdentityWrites(() =>
      progress.some((l) => l.startsWith('another import of source Busy is running')),
    );
    const first = client('Busy', file, { progress: () => undefined });
    await held;
    const second = await client('Busy', file);
    const firstResult = await first;
    expect(second.followed).toEqual([
      {
        runId: firstResult.importRunId,
        status: 'COMPLETED',
        importCounts: { created: 30, updated: 0, deleted: 0, unchanged: 0 },
        failure: null,
      },
    ]);
    expect(second.import).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 30 });
    expect(progress).toContainEqual(
      `another import of source Busy is running (run ${firstResult.importRunId}); following it`,
    );
    expect(resultLines(second)[0]).toBe(`followed ${JSON.stringify(second.followed![0])}`);
  });

  it("fails with the run's error code when the run it follows fails", async () => {
    const file = people('fails.csv', 20);
    progress.length = 0;
    void holdIdentityWrites(() => timeouts() > 0, {
      then: () => {
        throw new StoreError('unavailable', 'injected fault', 1000);
      },
    });
    await expect(client('Fails', file, { timeoutMs: 500 })).rejects.toThrow(
      /^import run \S+ failed: STORE_UNAVAILABLE: /,
    );
  });

  it('reads its arguments with util.parseArgs; --local fills in the local stack', () => {
    const noStack = path.join(dir, 'no-stack.json');
    const importRunFromArgs = (argv: string[], env: Record<string, string | undefined>) =>
      parseImportArgs(argv, env, { stackFile: noStack });
    const local = importRunFromArgs(['--local', '--source', 'HR', '--file', 'people.csv'], {});
    expect(local).toMatchObject({
      service: 'http://localhost:7071',
      authority: 'http://127.0.0.1:7072',
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret: DEV_CLIENTS.admin.secret,
      scope: SERVICE_SCOPE,
      source: 'HR',
      file: 'people.csv',
    });
    const azure = importRunFromArgs(
      [
        '--service',
        'https://svc.example.com',
        '--source',
        'HR',
        '--file',
        'p.csv',
        '--tenant',
        't',
        '--client-id',
        'c',
        '--client-secret-env',
        'HR_SECRET',
        '--scope',
        's/.default',
        '--association-chunk',
        '500',
        '--delimiter',
        ';',
      ],
      { HR_SECRET: 'from-env' },
    );
    expect(azure).toMatchObject({
      service: 'https://svc.example.com',
      secret: 'from-env',
      authority: 'https://login.microsoftonline.com',
      scope: 's/.default',
      associationChunk: 500,
      delimiter: ';',
    });
    expect(azure.timeoutMs).toBeUndefined();
    expect(importRunFromArgs(['--local', '--source', 'HR', '--file', 'f', '--timeout', '0.5'], {}).timeoutMs).toBe(500);
    for (const argv of [
      ['--nonsense'],
      ['positional'],
      ['--source', 'HR'],
      [
        '--service',
        'https://s',
        '--source',
        'HR',
        '--file',
        'f',
        '--tenant',
        't',
        '--client-id',
        'c',
        '--client-secret-env',
        'HR_SECRET',
      ],
      ['--local', '--source', 'HR', '--file', 'f', '--association-chunk', '0'],
      ['--local', '--source', 'HR', '--file', 'f', '--delimiter', '|'],
      ['--local', '--source', 'HR', '--file', 'f', '--timeout', '0'],
      ['--local', '--source', 'HR', '--file', 'f', '--timeout', 'soon'],
    ]) {
      expect(() => importRunFromArgs(argv, {})).toThrow(UsageError);
    }
    expect(() =>
      importRunFromArgs(['--local', '--source', 'HR', '--file', 'f', '--client-secret-env', 'UNSET_VAR'], {}),
    ).toThrow(/not set/);
  });
});
