import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, zipApp } from '../../scripts/package';
import { readZip } from '../../scripts/zip';
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';
import { userBody } from '../support/scim';

describe('production package', () => {
  let dir: string;
  let stack: TestStack | undefined;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'package-'));
  });
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('zips a bundle whose functions load in the dev host and serve requests', async () => {
    const { dir: appDir, inputs } = await buildApp(path.join(dir, 'app'));
    // The bundle holds the functions and lib/, and nothing of the local stack, the tools or the tests.
    expect(inputs.filter((f) => /^(devhost|scripts|tests)\//.test(f))).toEqual([]);
    expect(inputs).toEqual(expect.arrayContaining(['functions/scimUsersCreate.ts', 'lib/services.ts']));
    expect(inputs.filter((f) => f.startsWith('lib/')).length).toBeGreaterThan(50);
    // azd deploys the folder itself: the source map stays beside it.
    expect(fs.readdirSync(appDir).sort()).toEqual([
      'console-app',
      'host.json',
      'index.js',
      'package.json',
      'schema.graphql',
    ]);
    expect(fs.existsSync(path.join(dir, 'index.js.map'))).toBe(true);
    const zipPath = path.join(dir, 'package.zip');
    zipApp(appDir, zipPath);

    const entries = readZip(fs.readFileSync(zipPath));
    const names = entries.map((e) => e.name).sort();
    expect(names.filter((n) => !n.startsWith('console-app/'))).toEqual([
      'host.json',
      'index.js',
      'package.json',
      'schema.graphql',
    ]);
    // The administrator console ships built: index.html and hashed assets.
    expect(names).toContain('console-app/index.html');
    expect(names.some((n) => /^console-app\/assets\/[\w-]+-[\w-]{8}\.js$/.test(n))).toBe(true);
    const extracted = path.join(dir, 'extracted');
    fs.mkdirSync(extracted);
    for (const e of entries) {
      fs.mkdirSync(path.dirname(path.join(extracted, e.name)), { recursive: true });
      fs.writeFileSync(path.join(extracted, e.name), e.data);
    }
    const host = JSON.parse(fs.readFileSync(path.join(extracted, 'host.json'), 'utf8')) as {
      extensions: { http: { routePrefix: string } };
      logging: { applicationInsights: { samplingSettings: { excludedTypes: string } } };
    };
    expect(host.extensions.http.routePrefix).toBe('');
    // Requests and exceptions are never sampled out of Application Insights.
    expect(host.logging.applicationInsights.samplingSettings.excludedTypes.split(';').sort()).toEqual([
      'Exception',
      'Request',
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(extracted, 'package.json'), 'utf8')).main).toBe('index.js');

    stack = await startTestStack({ functions: { dir: extracted, extension: '.js' } });
    expect(stack.host.functions.http.sort()).toEqual(
      [
        'activityExport',
        'console',
        'graphql',
        'health',
        'scimFallback',
        'scimResourceTypes',
        'scimSchemas',
        'scimServiceProviderConfig',
        'scimUsersCreate',
        'scimUsersDelete',
        'scimUsersGet',
        'scimUsersList',
        'scimUsersPatch',
        'scimUsersReplace',
      ].sort(),
    );
    expect(stack.host.functions.timers.sort()).toEqual([
      'measureBackgroundQueue',
      'resolvePendingLinks',
      'resumeImports',
      'retention',
    ]);
    const token = await stack.token(DEV_CLIENTS.scim);
    // The catch-all is part of the bundle, so unknown SCIM paths are SCIM Errors in Azure too.
    expect((await call(`${stack.base}/scim/v2/Groups`, { token })).body).toMatchObject({
      status: '404',
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    });
    const consolePage = await call(`${stack.base}/console/`);
    expect(consolePage.status).toBe(200);
    expect(consolePage.text).toContain('<div id="root">');
    expect(consolePage.headers.get('content-security-policy')).toContain("script-src 'self'");
    const created = await call(`${stack.base}/scim/v2/Users`, { method: 'POST', token, json: userBody() });
    expect(created.status).toBe(201);
    const graphql = await call<{ data: { scimIntegrations: unknown[] } }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
    });
    expect(graphql.body.data.scimIntegrations.length).toBeGreaterThanOrEqual(2);
    // An import of 1,500 (every GraphQL request runs in the functions' own process: the bundle is all there is).
    const identities = Array.from({ length: 1500 }, (_, i) => ({
      externalId: `pkg-${i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'Packaged',
      lastName: `P${i}`,
    }));
    const body = JSON.stringify({
      query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      variables: { i: { source: 'Packaged', identities } },
    });
    const imported = await call<{ data: { importBusinessIdentities: { created: number } } }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(imported.body.data.importBusinessIdentities.created).toBe(1500);
  });
});
