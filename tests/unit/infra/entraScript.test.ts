/**
 * infra/scripts/create-entra-app.sh refuses to register the application in another tenant than the one
 * the azd environment deploys to. Run for real, with `az` and `azd` stand-ins on PATH that record their calls.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './bicepText';

const SCRIPT = path.join(ROOT, 'infra', 'scripts', 'create-entra-app.sh');

function run(azTenant: string, azdTenant: string): { status: number | null; stderr: string; azCalls: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entra-script-'));
  try {
    const calls = path.join(dir, 'az-calls.log');
    fs.writeFileSync(
      path.join(dir, 'az'),
      `#!/bin/sh\necho "$*" >> "${calls}"\ncase "$*" in\n  "account show"*) echo ${azTenant} ;;\nesac\nexit 0\n`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(dir, 'azd'),
      `#!/bin/sh\ncase "$*" in\n  *AZURE_TENANT_ID*) echo ${azdTenant} ;;\n  *GRAPH_IDENTITY_PRINCIPAL_ID*) echo 33333333-3333-4333-8333-333333333333 ;;\nesac\n`,
      { mode: 0o755 },
    );
    const r = spawnSync('bash', [SCRIPT], {
      env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const azCalls = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [];
    return { status: r.status, stderr: r.stderr, azCalls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('create-entra-app.sh', () => {
  it("refuses when the Azure CLI is signed in to another tenant than azd's, before creating anything", () => {
    const r = run('aaaaaaaa-0000-4000-8000-00000000000a', 'bbbbbbbb-0000-4000-8000-00000000000b');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/signed in to tenant aaaaaaaa-.*deploys to tenant bbbbbbbb-/);
    expect(r.stderr).toContain('az login --tenant bbbbbbbb-0000-4000-8000-00000000000b');
    expect(r.azCalls).toEqual(['account show --query tenantId -o tsv']);
  });

  it('goes on to register the application when the tenants agree', () => {
    const r = run('aaaaaaaa-0000-4000-8000-00000000000a', 'aaaaaaaa-0000-4000-8000-00000000000a');
    expect(r.azCalls.some((c) => c.startsWith('ad app list'))).toBe(true);
  });
});
