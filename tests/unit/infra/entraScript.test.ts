/**
 * infra/scripts/create-entra-app.sh, run for real with `az` and `azd` stand-ins on PATH that record their
 * calls: it refuses another tenant than the azd environment's, asks Entra for the idtyp claim in access
 * tokens, finds an existing application before it creates one, and falls back to api://<appId> when the
 * tenant refuses the default App ID URI.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './bicepText';

const SCRIPT = path.join(ROOT, 'infra', 'scripts', 'create-entra-app.sh');
const TENANT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const EXISTING = 'eeeeeeee-0000-4000-8000-00000000000e';
const CREATED = 'cccccccc-0000-4000-8000-00000000000c';

interface Directory {
  /** appId found by `ad app list --identifier-uri`. */
  byUri?: string;
  /** appIds (one a line) found by `ad app list --display-name`. */
  byName?: string;
  /** The application's current identifierUris[0]. */
  currentUri?: string;
  /** The tenant refuses identifier URIs of the form api://<tenant id>/…. */
  refuseTenantUri?: boolean;
  /** azd's GRAPH_CLIENT_ID. */
  graphClientId?: string;
  /** Other azd environment values (PUBLIC_BASE_URL, FRONT_DOOR_ENDPOINT, SERVICE_API_URI). */
  azdValues?: Record<string, string>;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  azCalls: string[];
}

function run(azTenant: string, azdTenant: string, dir: Directory = {}, args: string[] = []): Run {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'entra-script-'));
  try {
    const calls = path.join(tmp, 'az-calls.log');
    fs.writeFileSync(
      path.join(tmp, 'az'),
      [
        '#!/bin/sh',
        `echo "$*" >> "${calls}"`,
        'case "$*" in',
        `  "account show"*) echo ${azTenant} ;;`,
        `  "ad app list --identifier-uri"*) echo "${dir.byUri ?? ''}" ;;`,
        `  "ad app list --display-name"*) printf '${(dir.byName ?? '').replace(/\n/g, '\\n')}' ;;`,
        `  "ad app create"*) echo ${CREATED} ;;`,
        `  "ad app show"*identifierUris*) echo "${dir.currentUri ?? ''}" ;;`,
        `  "ad app show --id ${EXISTING} --query appId"*) echo ${EXISTING} ;;`,
        '  "ad app show"*"--query id"*) echo 00000000-0000-4000-8000-0000000000bb ;;',
        dir.refuseTenantUri
          ? `  *"--identifier-uris api://${azTenant}/"*) echo "identifier URI refused by policy" >&2; exit 1 ;;`
          : '',
        '  "ad sp show"*) echo 00000000-0000-4000-8000-0000000000cc ;;',
        '  "rest --method GET"*) echo 0 ;;',
        'esac',
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(tmp, 'azd'),
      [
        '#!/bin/sh',
        'case "$*" in',
        `  *AZURE_TENANT_ID*) echo ${azdTenant} ;;`,
        '  *GRAPH_IDENTITY_PRINCIPAL_ID*) echo 33333333-3333-4333-8333-333333333333 ;;',
        `  *GRAPH_CLIENT_ID*) echo "${dir.graphClientId ?? ''}" ;;`,
        ...Object.entries(dir.azdValues ?? {}).map(([k, v]) => `  *${k}*) echo "${v}" ;;`),
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const r = spawnSync('bash', [SCRIPT, ...args], {
      env: { PATH: `${tmp}:/usr/bin:/bin`, HOME: tmp },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const azCalls = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, azCalls };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const creates = (r: Run) => r.azCalls.filter((c) => c.startsWith('ad app create'));
const uriSets = (r: Run) =>
  r.azCalls.filter((c) => c.includes('--identifier-uris')).map((c) => /--identifier-uris (\S+)/.exec(c)?.[1]);

describe('create-entra-app.sh', () => {
  it("registers the console at the address browsers reach: a custom domain, else the Front Door endpoint, else the app's", () => {
    const spa = (r: Run) => r.azCalls.find((c) => c.includes('"spa"')) ?? '';
    const app = 'https://func-abc.azurewebsites.net';
    const frontDoor = 'https://fde-abc.z01.azurefd.net';
    expect(spa(run(TENANT, TENANT, { azdValues: { SERVICE_API_URI: app } }))).toContain(`${app}/console/`);
    const behindFrontDoor = spa(
      run(TENANT, TENANT, { azdValues: { SERVICE_API_URI: app, FRONT_DOOR_ENDPOINT: frontDoor } }),
    );
    expect(behindFrontDoor).toContain(`${frontDoor}/console/`);
    expect(behindFrontDoor).not.toContain(app);
    const custom = spa(
      run(TENANT, TENANT, {
        azdValues: { SERVICE_API_URI: app, FRONT_DOOR_ENDPOINT: frontDoor, PUBLIC_BASE_URL: 'https://id.example.com' },
      }),
    );
    expect(custom).toContain('https://id.example.com/console/');
  });

  it("refuses when the Azure CLI is signed in to another tenant than azd's, before creating anything", () => {
    const r = run(TENANT, 'bbbbbbbb-0000-4000-8000-00000000000b');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/signed in to tenant aaaaaaaa-.*deploys to tenant bbbbbbbb-/);
    expect(r.stderr).toContain('az login --tenant bbbbbbbb-0000-4000-8000-00000000000b');
    expect(r.azCalls).toEqual(['account show --query tenantId -o tsv']);
  });

  it('registers a new application with the tenant App ID URI when none exists', () => {
    const r = run(TENANT, TENANT);
    expect(r.status).toBe(0);
    expect(creates(r)).toHaveLength(1);
    expect(uriSets(r)).toEqual([`api://${TENANT}/business-identity-service`]);
    expect(r.stdout).toContain(`api://${TENANT}/business-identity-service`);
  });

  it('asks Entra for the idtyp claim in access tokens, user tokens included', () => {
    const r = run(TENANT, TENANT);
    const patch = r.azCalls.find((c) => c.includes('optionalClaims'));
    expect(patch).toBeDefined();
    const body = JSON.parse(/--body (\{.*\})$/.exec(patch ?? '')?.[1] ?? '{}') as {
      optionalClaims?: { accessToken?: Array<{ name: string; additionalProperties?: string[] }> };
    };
    expect(body.optionalClaims?.accessToken).toEqual([
      expect.objectContaining({ name: 'idtyp', essential: false, additionalProperties: ['include_user_token'] }),
    ]);
    expect(patch).toMatch(/^rest --method PATCH --uri https:\/\/graph\.microsoft\.com\/v1\.0\/applications\//);
  });

  it('falls back to api://<appId> when the tenant refuses api://<tenant>/…', () => {
    const r = run(TENANT, TENANT, { refuseTenantUri: true });
    expect(r.status).toBe(0);
    expect(uriSets(r)).toEqual([`api://${TENANT}/business-identity-service`, `api://${CREATED}`]);
    expect(r.stderr).toContain(`using api://${CREATED} instead`);
    expect(r.stdout).toContain(`App ID URI (scope <App ID URI>/.default):   api://${CREATED}`);
    expect(r.stdout).toContain(`api://${CREATED}/Console.Admin`);
  });

  it('run again after such a refusal, finds the application by its name and registers no second one', () => {
    const r = run(TENANT, TENANT, { byName: EXISTING, refuseTenantUri: true });
    expect(r.status).toBe(0);
    expect(creates(r)).toEqual([]);
    expect(r.stderr).toContain(`Updating application ${EXISTING}`);
    expect(uriSets(r)).toEqual([`api://${TENANT}/business-identity-service`, `api://${EXISTING}`]);
  });

  it('keeps the App ID URI an existing application already has', () => {
    const r = run(TENANT, TENANT, { byName: EXISTING, currentUri: `api://${EXISTING}` });
    expect(creates(r)).toEqual([]);
    expect(uriSets(r)).toEqual([]);
    expect(r.stdout).toContain(`App ID URI (scope <App ID URI>/.default):   api://${EXISTING}`);
  });

  it("updates the azd environment's GRAPH_CLIENT_ID application without looking further", () => {
    const r = run(TENANT, TENANT, { graphClientId: EXISTING, currentUri: `api://${TENANT}/business-identity-service` });
    expect(creates(r)).toEqual([]);
    expect(r.azCalls.some((c) => c.startsWith('ad app list'))).toBe(false);
    expect(r.stderr).toContain(`Updating application ${EXISTING}`);
  });

  it('refuses to guess between several applications of the same name', () => {
    const r = run(TENANT, TENANT, { byName: `${EXISTING}\n${CREATED}` });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--app-id');
    expect(creates(r)).toEqual([]);
  });

  it('stops when an explicit --app-id-uri is refused, without falling back', () => {
    const r = run(TENANT, TENANT, { byName: EXISTING, refuseTenantUri: true }, [
      '--app-id-uri',
      `api://${TENANT}/custom`,
    ]);
    expect(r.status).toBe(2);
    expect(uriSets(r)).toEqual([`api://${TENANT}/custom`]);
  });
});
