/**
 * The import client with a certificate credential (--certificate), against the in-process stack: it signs
 * a client assertion, the identity-provider stand-in checks it against the certificate registered on the
 * application, and the service accepts the token. A certificate the application does not have is refused
 * before anything is sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { selfSignedCertificate } from '../support/selfSignedCertificate';
import { DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';
import { HELP, importCli } from '../../scripts/importClient';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

const CERT_CLIENT_ID = 'aaaaaaaa-0000-4000-8000-0000000000c1';

describe('import client: certificate credential', () => {
  let stack: TestStack;
  let dir: string;
  const registered = selfSignedCertificate();
  const unregistered = selfSignedCertificate();
  beforeAll(async () => {
    stack = await startTestStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cert-'));
    stack.idp.addClient({
      tenantId: DEV_TENANT_ID,
      clientId: CERT_CLIENT_ID,
      roles: ['Admin'],
      certificates: [registered.certificatePem],
    });
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const cli = async (certificate: string, file: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await importCli(
      [
        '--service',
        stack.base,
        '--authority',
        stack.idp.url,
        '--tenant',
        DEV_TENANT_ID,
        '--client-id',
        CERT_CLIENT_ID,
        '--scope',
        SERVICE_SCOPE,
        '--certificate',
        certificate,
        '--source',
        'CertSource',
        '--file',
        file,
      ],
      {},
      { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => undefined },
    );
    return { code, out, err: err.join('\n') };
  };
  const people = () =>
    write('people.csv', 'externalId,affiliationType,firstName,lastName\nC1,employment,Anna,Berg\nC2,other,Bo,Ek\n');
  const identities = async () =>
    (
      await services()
        .store.collection<{ id: string; pk: string }>('identities')
        .queryPartitionPage(partitionKey(DEV_TENANT_ID, customSourceKey('CertSource')), 'SELECT c.id', '', [], {
          maxItemCount: 10,
        })
    ).items.length;

  it('--help names the certificate credential', () => {
    expect(HELP).toMatch(/--certificate <pem>\s+certificate credential/);
  });

  it('imports with a token got by a client assertion signed with the registered certificate', async () => {
    const r = await cli(write('client.pem', registered.pem), people());
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(`import ${JSON.stringify({ created: 2, updated: 0, deleted: 0, unchanged: 0 })}`);
    const runId = r.out[1]?.slice('run '.length) ?? '';
    expect(await services().runs.get(DEV_TENANT_ID, runId)).toMatchObject({
      clientId: CERT_CLIENT_ID,
      status: 'completed',
    });
  });

  it('is refused (AADSTS700027) with a certificate the application does not have, before anything is sent', async () => {
    const before = await identities();
    const r = await cli(
      write('other.pem', unregistered.pem),
      write('more.csv', 'externalId,affiliationType,firstName,lastName\nC3,other,Cy,Ek\n'),
    );
    expect(r.code).toBe(1);
    expect(r.err).toBe('token request failed (HTTP 401, AADSTS700027)');
    expect(await identities()).toBe(before);
  });

  it('refuses a certificate file without its key, or one it cannot read, as a usage error', async () => {
    const noKey = await cli(write('cert-only.pem', registered.certificatePem), people());
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/no usable private key/);
    const missing = await cli(path.join(dir, 'absent.pem'), people());
    expect(missing.code).toBe(2);
    expect(missing.err).toBe('The certificate file cannot be read');
  });
});
