import { startTestStack, call, type TestStack } from '../support/stack';
import { runOps } from '../../scripts/ops';
import { opsTarget } from '../../scripts/opsTarget';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import type { IdentityDoc } from '../../lib/identities/model';
import { newIdentityDoc } from '../../lib/identities/rules';
import { customSourceKey } from '../../lib/imports/importer';
import { tenantIdentities } from '../../lib/store/queries/identities';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordOf, writeStackRecord } from '../../devhost/stackRecord';

describe('operator commands: tenants and runs', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('registers, lists and removes a tenant against the store; a registered tenant is then accepted', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const token = await stack.token(DEV_CLIENTS.otherAdmin);
    const gql = () =>
      call<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${stack.base}/graphql`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
      });
    expect((await gql()).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');

    expect(await runOps(['tenant', 'register', UNREGISTERED_TENANT_ID.toUpperCase()], env)).toEqual({
      code: 0,
      out: [`registered ${UNREGISTERED_TENANT_ID}`],
    });
    expect((await runOps(['tenant', 'register', UNREGISTERED_TENANT_ID], env)).out).toEqual([
      `${UNREGISTERED_TENANT_ID} was already registered`,
    ]);
    const listed = await runOps(['tenant', 'list'], env);
    expect(listed.out.map((l) => l.split('\t')[0])).toEqual([DEV_TENANT_ID, UNREGISTERED_TENANT_ID].sort());
    services().tenants.clearCache();
    expect((await gql()).body.errors).toBeUndefined();

    expect((await runOps(['tenant', 'remove', UNREGISTERED_TENANT_ID], env)).out).toEqual([
      `removed ${UNREGISTERED_TENANT_ID}`,
    ]);
    services().tenants.clearCache();
    expect((await gql()).body.errors?.[0]?.extensions?.code).toBe('AUTH_NOT_AUTHENTICATED');
  });

  it('works with no settings against the local stack (its port from DEV_COSMOS_PORT), and says so on stderr', async () => {
    const port = new URL(stack.env.COSMOS_ENDPOINT ?? '').port;
    const listed = await runOps(['tenant', 'list'], { DEV_COSMOS_PORT: port });
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => l.split('\t')[0])).toContain(DEV_TENANT_ID);
    expect(listed.notes).toEqual([
      `No COSMOS_ENDPOINT set: using the local stack of \`npm start\` at http://localhost:${port}`,
    ]);
  });

  it('works with only the local endpoint set (plain http on loopback takes the local key)', async () => {
    const listed = await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT });
    expect(listed.code).toBe(0);
    expect(listed.out.map((l) => l.split('\t')[0])).toContain(DEV_TENANT_ID);
    expect(listed.notes).toBeUndefined();
  });

  it('refuses plain http to anything but loopback, without repeating the value', async () => {
    for (const endpoint of ['http://cosmos-secretive.example.com:8081', 'http://10.1.2.3:8081', 'ftp://127.0.0.1/']) {
      const refused = await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: endpoint });
      expect(refused.code).toBe(2);
      expect(refused.out.join('\n')).toMatch(/COSMOS_ENDPOINT/);
      expect(refused.out.join('\n')).not.toContain(new URL(endpoint).host || 'ftp://');
    }
    expect((await runOps(['tenant', 'list'], { COSMOS_ENDPOINT: 'not a url' })).code).toBe(2);
  });

  it('reaches an Azure account over https with COSMOS_KEY or, without it, the signed-in identity', () => {
    expect(opsTarget({ COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/' }).store).toEqual({
      endpoint: 'https://cosmos-abc.documents.azure.com:443',
      key: undefined,
      database: 'business-identities',
    });
    expect(
      opsTarget({
        COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
        COSMOS_KEY: 'k',
        COSMOS_DATABASE: 'd',
      }).store,
    ).toEqual({ endpoint: 'https://cosmos-abc.documents.azure.com:443', key: 'k', database: 'd' });
    expect(opsTarget({ COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/' }).note).toBeUndefined();
  });

  it('lists the recent import and association runs of a custom source, newest first', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const token = await stack.token(DEV_CLIENTS.admin);
    const importSet = (identities: unknown[]) =>
      call<{ data?: { importBusinessIdentities: { runId: string } } }>(`${stack.base}/graphql`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { runId } }',
          variables: { i: { source: 'Ops Source', identities } },
        }),
      });
    const first = (
      await importSet([{ externalId: 'O1', affiliationType: 'EMPLOYMENT', firstName: 'F', lastName: 'L' }])
    ).body.data!.importBusinessIdentities.runId;
    await importSet([{ externalId: 'O1', affiliationType: 'EMPLOYMENT', firstName: '', lastName: 'L' }]);
    const listed = await runOps(['runs', DEV_TENANT_ID.toUpperCase(), 'Ops Source'], env);
    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(2);
    expect(listed.out[0]).toMatch(
      new RegExp(
        `^\\S+\\timport\\trejected\\t${DEV_CLIENTS.admin.clientId}\\t\\S+\\t\\S+\\tsubmitted=1\\t-\\tBAD_USER_INPUT: `,
      ),
    );
    expect(listed.out[1]).toMatch(
      new RegExp(
        `^${first.replace(/[.]/g, '\\.')}\\timport\\tcompleted\\t.*\\tcreated=1 updated=0 deleted=0 unchanged=0$`,
      ),
    );
    expect((await runOps(['runs', DEV_TENANT_ID, 'Ops Source', '1'], env)).out).toHaveLength(1);
    // A dry run is listed as one.
    await call(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { runId } }',
        variables: {
          i: {
            source: 'Ops Source',
            dryRun: true,
            identities: [{ externalId: 'O2', affiliationType: 'EMPLOYMENT', firstName: 'F', lastName: 'L' }],
          },
        },
      }),
    });
    expect((await runOps(['runs', DEV_TENANT_ID, 'Ops Source', '1'], env)).out[0]).toMatch(
      /^\S+\timport \(dry run\)\tcompleted\t.*\tcreated=1 updated=0 deleted=1 unchanged=0$/,
    );
    expect((await runOps(['runs', DEV_TENANT_ID, 'Nothing Here'], env)).out).toEqual([
      'no runs of that source in the last 90 days',
    ]);
    for (const argv of [
      ['runs', 'x', 'S'],
      ['runs', DEV_TENANT_ID, 'manual'],
      ['runs', DEV_TENANT_ID],
      ['runs', DEV_TENANT_ID, 'S', '0'],
      ['runs', DEV_TENANT_ID, 'S', '101'],
    ]) {
      expect((await runOps(argv, env)).code).toBe(2);
    }
  });

  it('--help prints the commands, the target and examples, and exits 0', async () => {
    for (const argv of [['--help'], ['-h'], ['integration', '--help']]) {
      const help = await runOps(argv, {});
      expect(help.code).toBe(0);
      expect(help.out.join('\n')).toMatch(/usage: npm run ops[\s\S]*integration create[\s\S]*examples:/);
    }
    const none = await runOps([], {});
    expect(none.code).toBe(2);
    expect(none.out[0]).toMatch(/^A command is needed\nusage:/);
  });

  it('follows the stack recorded by `npm start` without flags or env; refuses a gone stack on other ports', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-record-'));
    try {
      const stackFile = path.join(dir, 'stack.json');
      writeStackRecord(stackFile, recordOf(stack));
      const listed = await runOps(['tenant', 'list'], {}, { stackFile });
      expect(listed.code).toBe(0);
      expect(listed.out.map((l) => l.split('\t')[0])).toContain(DEV_TENANT_ID);
      expect(listed.notes?.[0]).toMatch(/recorded in \.local\/stack\.json/);
      writeStackRecord(stackFile, { ...recordOf(stack), pid: 2 ** 30 });
      const refused = await runOps(['tenant', 'list'], {}, { stackFile });
      expect(refused.code).toBe(2);
      expect(refused.out[0]).toMatch(/no longer running[\s\S]*will not guess/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists, creates, disables and enables SCIM integrations; a disabled one is refused at once', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const clientId = 'a1b2c3d4-0000-4000-8000-00000000abcd';
    const created = await runOps(['integration', 'create', DEV_TENANT_ID, clientId, 'Ops provisioning'], env);
    expect(created.code).toBe(0);
    expect(created.out[0]).toMatch(new RegExp(`^created \\S+\tenabled\t${clientId}\tOps provisioning\tcreated `));
    const id = created.out[0]!.split('\t')[0]!.slice('created '.length);
    const listed = await runOps(['integration', 'list', DEV_TENANT_ID], env);
    expect(listed.out.some((l) => l.startsWith(`${id}\tenabled\t${clientId}`))).toBe(true);
    expect((await runOps(['integration', 'disable', DEV_TENANT_ID, id], env)).out[0]).toMatch(
      new RegExp(`^disabled ${id}\tdisabled\t`),
    );
    expect((await services().integrations.get(DEV_TENANT_ID, id))?.enabled).toBe(false);
    expect((await runOps(['integration', 'enable', DEV_TENANT_ID, id], env)).out[0]).toMatch(
      new RegExp(`^enabled ${id}\tenabled\t`),
    );
    const again = await runOps(['integration', 'create', DEV_TENANT_ID, clientId.toUpperCase(), 'Twice'], env);
    expect(again.code).toBe(1);
    expect(again.out[0]).toMatch(/^SCIM_INTEGRATION_CLIENT_ID_TAKEN: /);
    const missing = await runOps(['integration', 'disable', DEV_TENANT_ID, 'no-such-integration'], env);
    expect(missing.code).toBe(1);
    expect(missing.out.join('\n')).not.toContain('no-such-integration');
    for (const argv of [
      ['integration', 'list'],
      ['integration', 'list', 'not-a-guid'],
      ['integration', 'create', DEV_TENANT_ID, 'not-a-guid', 'Name'],
      ['integration', 'create', DEV_TENANT_ID, clientId],
      ['integration', 'disable', DEV_TENANT_ID],
      ['integration', 'rename', DEV_TENANT_ID, id],
    ])
      expect((await runOps(argv, env)).code).toBe(2);
  });

  it('refuses bad arguments with exit code 2', async () => {
    expect((await runOps(['tenant', 'register', 'not-a-guid'], {})).code).toBe(2);
    expect((await runOps(['nonsense'], {})).code).toBe(2);
    expect(await runOps(['backfill-upn-keys', 'not-a-guid'], {})).toEqual({
      code: 2,
      out: ['The tenant id must be a GUID'],
    });
    for (const max of ['0', '100001', '1.5', 'many'])
      expect(await runOps(['backfill-upn-keys', DEV_TENANT_ID, max], {})).toEqual({
        code: 2,
        out: ['The max must be a whole number from 1 to 100000'],
      });
    expect((await runOps(['backfill-upn-keys', DEV_TENANT_ID, '5', 'x'], {})).code).toBe(2);
  });

  it('backfills UPN keys of a tenant in bounded runs, each run going on with what is left', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const identities = services().store.collection<IdentityDoc>('identities');
    const tenantId = '0b5e1c4a-3f7d-4e2b-9a61-7c8d9e0f1a2b';
    for (let i = 0; i < 3; i++) {
      const { upnKeys: _keys, ...older } = newIdentityDoc({
        id: `old-${i}`,
        tenantId,
        sourceKind: 'custom',
        sourceKey: customSourceKey('HR'),
        attributes: {
          externalId: `old-${i}`,
          givenName: 'Old',
          familyName: 'Doc',
          active: true,
          affiliationType: 'employment',
          personalNumbers: [],
          identityDocumentReferences: [],
          directoryUserPrincipalName: `Old.${i}@Corp.Example`,
        },
        now: '2026-01-01T00:00:00.000Z',
      });
      await identities.create(older);
    }
    expect(await runOps(['backfill-upn-keys', tenantId.toUpperCase(), '2'], env)).toEqual({
      code: 0,
      out: ['read 3 identities, gave 2 their UPN keys', 'stopped after 2 writes: run the command again'],
    });
    expect(await runOps(['backfill-upn-keys', tenantId, '2'], env)).toEqual({
      code: 0,
      out: ['read 3 identities, gave 1 their UPN keys', 'done: every identity has its UPN keys'],
    });
    const stored = await identities.all(tenantIdentities(tenantId));
    expect(stored.map((d) => d.upnKeys).sort()).toEqual([
      ['old.0@corp.example'],
      ['old.1@corp.example'],
      ['old.2@corp.example'],
    ]);
    expect(stored.every((d) => d.version === 1 && d.lastModified === '2026-01-01T00:00:00.000Z')).toBe(true);
  });
});
