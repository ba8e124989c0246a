/**
 * The import client as an operator runs it (importCli, the code behind `npm run import`), against the
 * in-process stack recorded in a stack file as `npm start` records it: --help, --local following the
 * record, problems by CSV line and column, --report, --dry-run and the default delete guard.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_TENANT_ID } from '../../devhost/devData';
import { recordOf, writeStackRecord } from '../../devhost/stackRecord';
import { describeProblem, importCli, runImport } from '../../scripts/importClient';

import { setFaultInjector } from '../../devhost/cosmos/faults';
import { StoreError } from '../../lib/store/errors';
import { DEV_CLIENTS, SERVICE_SCOPE } from '../../devhost/devData';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

describe('import client: operator behaviour', () => {
  let stack: TestStack;
  let dir: string;
  let stackFile: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cli-'));
    stackFile = path.join(dir, '.local', 'stack.json');
    writeStackRecord(stackFile, recordOf(stack));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const cli = async (argv: string[], file = stackFile) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await importCli(
      argv,
      {},
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        stackFile: file,
        progress: () => undefined,
      },
    );
    return { code, out, err: err.join('\n') };
  };
  const csv = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const identitiesOf = async (source: string) =>
    (
      await services()
        .store.collection<{ id: string; pk: string }>('identities')
        .queryPartitionPage(partitionKey(DEV_TENANT_ID, customSourceKey(source)), 'SELECT c.id', '', [], {
          maxItemCount: 100,
        })
    ).items.length;

  it('--help prints usage, options and examples and exits 0; an unknown flag exits 2 with a hint', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.out.join('\n')).toMatch(/usage: npm run import/);
    expect(help.out.join('\n')).toMatch(/--dry-run[\s\S]*--allow-deletes[\s\S]*--report[\s\S]*examples:/);
    const unknown = await cli(['--local', '--in-memroy']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--help/);
  });

  it('--local follows the stack recorded on other ports, without flags or env', async () => {
    const file = csv('recorded.csv', ['externalId,affiliationType,firstName,lastName', 'R1,employment,F,L']);
    const r = await cli(['--local', '--source', 'Recorded', '--file', file]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(`import ${JSON.stringify({ created: 1, updated: 0, deleted: 0, unchanged: 0 })}`);
  });

  it('refuses to guess the default ports when the recorded stack on other ports no longer runs', async () => {
    const stale = path.join(dir, 'stale', 'stack.json');
    writeStackRecord(stale, { ...recordOf(stack), pid: 2 ** 30 });
    const r = await cli(['--local', '--source', 'X', '--file', 'none.csv'], stale);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no longer running[\s\S]*will not guess/);
  });

  it('lists every problem of the set by CSV line and column, a bad enum among them, never a value; nothing is sent', async () => {
    const file = csv('problems.csv', [
      'externalId,affiliationType,firstName,lastName,birthDate,cpr,passportNumber,passportCountry,personalEmail',
      'P1,employment,Anna,Berg,1990-01-01,0101901234,,,',
      'P2,SECRETARYSHIP,Bo,Ek,,,,,',
      'P3,enrollment,Carl,Dahl,,9999999999,DOC-SECRET-1,ZZ,',
      'P1,other,Dora,,,,,,not-an-address',
    ]);
    const r = await cli(['--local', '--source', 'Problems', '--file', file]);
    expect(r.code).toBe(1);
    const listed = r.err.split('\n').slice(1);
    expect(r.err.split('\n')[0]).toMatch(/^BAD_USER_INPUT: .*checked before sending/);
    expect(listed).toEqual([
      '  line 3, column affiliationType: must be EMPLOYMENT, ENROLLMENT, ENGAGEMENT or OTHER',
      '  line 4, column cpr: must be a valid CPR number',
      '  line 4, column passportCountry: must be an ISO 3166-1 alpha-2 country code',
      '  line 5, column externalId: occurs more than once (also at line 2)',
      '  line 5, column lastName: must not be empty',
      '  line 5, column personalEmail: must be an email address',
    ]);
    for (const value of ['SECRETARYSHIP', '9999999999', 'DOC-SECRET', 'ZZ', 'not-an-address', 'Dora'])
      expect(r.err).not.toContain(value);
    expect(await identitiesOf('Problems')).toBe(0);
  });

  it('maps the field paths of a service answer to lines and columns too', () => {
    const lines = [2, 3, 5];
    expect(
      describeProblem(
        { field: 'identities[2].identityDocumentReferences[0].documentNumber', problem: 'must be present' },
        lines,
      ),
    ).toBe('line 5, column passportNumber: must be present');
    expect(describeProblem({ field: 'input.source', problem: 'must not be empty' }, lines)).toBe(
      'input.source: must not be empty',
    );
    expect(describeProblem({ field: 'identities[0].firstName', problem: 'must not be empty' }, undefined)).toBe(
      'identities[0].firstName: must not be empty',
    );
  });

  it('--report writes the rows that were not associated and why (unknown UPN, conflict), by line', async () => {
    const known = stack.directory.createUser(DEV_TENANT_ID, 'report.known@dev.example.com');
    const taken = stack.directory.createUser(DEV_TENANT_ID, 'report.taken@dev.example.com');
    const first = csv('taken.csv', [
      'externalId,affiliationType,firstName,lastName,userPrincipalName',
      `T1,employment,F,L,${taken.userPrincipalName}`,
    ]);
    expect((await cli(['--local', '--source', 'ReportOther', '--file', first])).code).toBe(0);
    const file = csv('report.csv', [
      'externalId,affiliationType,firstName,lastName,userPrincipalName',
      `A1,employment,F,L,${known.userPrincipalName}`,
      'A2,employment,F,L,',
      'A3,employment,F,L,nobody.here@dev.example.com',
      `A4,employment,F,L,${taken.userPrincipalName}`,
    ]);
    const report = path.join(dir, 'not-associated.csv');
    const r = await cli(['--local', '--source', 'Report', '--file', file, '--report', report]);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(report, 'utf8').trim().split('\n')).toEqual([
      'line,externalId,userPrincipalName,reason',
      '4,A3,nobody.here@dev.example.com,unknown userPrincipalName',
      `5,A4,${taken.userPrincipalName},conflict`,
    ]);
  });

  it('--report lists as not done the pairs that kept failing, and the client still fails with the code', async () => {
    const user = stack.directory.createUser(DEV_TENANT_ID, 'report.stuck@dev.example.com');
    const file = csv('stuck.csv', [
      'externalId,affiliationType,firstName,lastName,userPrincipalName',
      `S1,employment,F,L,${user.userPrincipalName}`,
    ]);
    setFaultInjector((op, container, target) => {
      if (container === 'links' && op === 'create' && target?.id === user.id)
        throw new StoreError('unavailable', 'injected: store unavailable', 20);
    });
    const report = path.join(dir, 'stuck-report.csv');
    try {
      await expect(
        runImport({
          service: stack.base,
          source: 'ReportStuck',
          file,
          tenant: DEV_TENANT_ID,
          clientId: DEV_CLIENTS.admin.clientId,
          secret: DEV_CLIENTS.admin.secret,
          authority: stack.idp.url,
          scope: SERVICE_SCOPE,
          pollMs: 20,
          progress: () => undefined,
          reportFile: report,
        }),
      ).rejects.toThrow(/^ASSOCIATION_INCOMPLETE: /);
    } finally {
      setFaultInjector(undefined);
    }
    expect(fs.readFileSync(report, 'utf8').trim().split('\n')).toEqual([
      'line,externalId,userPrincipalName,reason',
      `2,S1,${user.userPrincipalName},not done`,
    ]);
  });

  it('--dry-run prints the counts the import would write and writes nothing; it is recorded as a dry run', async () => {
    const file = csv('dry.csv', [
      'externalId,affiliationType,firstName,lastName,userPrincipalName',
      'D1,employment,F,L,report.known@dev.example.com',
      'D2,enrollment,F,L,',
    ]);
    const r = await cli(['--local', '--source', 'DryCli', '--file', file, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      'dry run: nothing was written; the counts are what the import would do',
      `import ${JSON.stringify({ created: 2, updated: 0, deleted: 0, unchanged: 0 })}`,
      expect.stringMatching(/^run \S+$/),
    ]);
    expect(await identitiesOf('DryCli')).toBe(0);
    const runId = r.out[2]!.slice('run '.length);
    expect(await services().runs.get(DEV_TENANT_ID, runId)).toMatchObject({ dryRun: true, status: 'completed' });
  });

  it('refuses by default a set that would delete more than 20% of the source (nothing written); --allow-deletes lifts it', async () => {
    const rows = (n: number) => [
      'externalId,affiliationType,firstName,lastName',
      ...Array.from({ length: n }, (_, i) => `G${i},other,F,L`),
    ];
    expect((await cli(['--local', '--source', 'Truncated', '--file', csv('full.csv', rows(10))])).code).toBe(0);
    const truncated = csv('truncated.csv', rows(7));
    const refused = await cli(['--local', '--source', 'Truncated', '--file', truncated]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^IMPORT_DELETE_LIMIT_EXCEEDED: [\s\S]*--allow-deletes/);
    expect(await identitiesOf('Truncated')).toBe(10);
    const allowed = await cli(['--local', '--source', 'Truncated', '--file', truncated, '--allow-deletes']);
    expect(allowed.code).toBe(0);
    expect(allowed.out[0]).toBe(`import ${JSON.stringify({ created: 0, updated: 0, deleted: 3, unchanged: 7 })}`);
  });
});
