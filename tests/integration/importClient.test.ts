import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../lib/devhost/devData';
import { csvFields, runImport } from '../../scripts/importClient';

describe('reference import client', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-client-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const run = (file: string, secret = DEV_CLIENTS.admin.secret) =>
    runImport({ service: stack.base, source: 'Nightly', file, tenant: DEV_TENANT_ID, clientId: DEV_CLIENTS.admin.clientId, secret, authority: stack.idp.url, scope: SERVICE_SCOPE });

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
    expect(result.associate).toEqual({ associated: 1, unchanged: 0, unknownExternalIds: 0, unknownUserPrincipalNames: 0, conflictingUserPrincipalNames: 0 });
    expect((await run(file)).import).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: 2 });
  });

  it('associates in parts and adds up the counts of every part', async () => {
    const file = path.join(dir, 'parts.csv');
    const upns = [1, 2, 3, 4, 5].map((i) => `part.${i}@dev.example.com`);
    for (const upn of upns.slice(0, 4)) stack.directory.createUser(DEV_TENANT_ID, upn);
    fs.writeFileSync(file, ['externalId,affiliationType,firstName,lastName,userPrincipalName', ...upns.map((upn, i) => `Q${i},employment,F,L,${upn}`)].join('\n'));
    const runParts = () => runImport({ service: stack.base, source: 'Parts', file, tenant: DEV_TENANT_ID, clientId: DEV_CLIENTS.admin.clientId, secret: DEV_CLIENTS.admin.secret, authority: stack.idp.url, scope: SERVICE_SCOPE, associationChunk: 2 });
    expect((await runParts()).associate).toEqual({ associated: 4, unchanged: 0, unknownExternalIds: 0, unknownUserPrincipalNames: 1, conflictingUserPrincipalNames: 0 });
    expect((await runParts()).associate).toEqual({ associated: 0, unchanged: 4, unknownExternalIds: 0, unknownUserPrincipalNames: 1, conflictingUserPrincipalNames: 0 });
  });

  it('fails with the error code and field, without values, on a rejected set; and on a bad secret', async () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, JSON.stringify([{ externalId: 'X', affiliationType: 'EMPLOYMENT', firstName: '', lastName: 'L', personalNumbers: [{ type: 'DK_CPR', value: '9999999999' }] }]));
    await expect(run(file)).rejects.toThrow(/BAD_USER_INPUT[\s\S]*identities\[0\]\.firstName/);
    await expect(run(file)).rejects.not.toThrow(/9999999999/);
    await expect(run(file, 'wrong')).rejects.toThrow(/token request failed \(HTTP 401\)/);
  });

  it('splits quoted CSV fields', () => {
    expect(csvFields('a,"b, c","d ""e"""')).toEqual(['a', 'b, c', 'd "e"']);
  });
});
