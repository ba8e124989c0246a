/**
 * What makes a first `azd up` (and `azd down` + `azd up`) succeed, read from the Bicep text: the app's
 * user-assigned identity with its roles before the site, Cosmos DB role assignments one after the other,
 * the Key Vault only in certificate mode, Flex Consumption's limits as parameter checks, diagnostic settings
 * and alerts. Compared with Microsoft's Flex Consumption azd samples (docs/operations.md cites them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, modules, params, readInfra, resources, uncomment, scan, objectValueStart, closing } from './bicepText';

const main = readInfra('main.bicep');
const resourcesBicep = readInfra('modules/resources.bicep');
const roles = readInfra('modules/roles.bicep');
const diagnostics = readInfra('modules/diagnostics.bicep');

/** The decorators written right above `param <name>`. */
function decorators(text: string, name: string): string {
  const code = uncomment(text);
  const at = code.search(new RegExp(`^param ${name}\\b`, 'm'));
  const before = code.slice(0, at).split(/\n(?=param |var |resource |module |output |targetScope)/);
  return (before[before.length - 1] ?? '').replace(/^(param|var|resource|module|output|targetScope)[^\n]*\n/, '');
}

function moduleBody(text: string, symbol: string): string {
  return modules(text).find((m) => m.symbol === symbol)?.body ?? '';
}

/** Symbols listed in `dependsOn` of a declaration body. */
function dependsOn(body: string): string[] {
  const s = scan(body);
  const at = objectValueStart(s, 0, 'dependsOn');
  if (at === undefined) return [];
  const open = s.masked.indexOf('[', at);
  return s.code
    .slice(open + 1, closing(s.masked, open))
    .split(/[\s,]+/)
    .filter(Boolean);
}

describe('the app identity: user-assigned, its roles before the site', () => {
  it('is made by identity.bicep in resources.bicep, apart from the Function App', () => {
    const body = moduleBody(resourcesBicep, 'appIdentity');
    expect(modules(resourcesBicep).find((m) => m.symbol === 'appIdentity')?.target).toBe('identity.bicep');
    expect(body).toMatch(/name:\s*'\$\{abbrs\.managedIdentityUserAssignedIdentities\}api-\$\{resourceToken\}'/);
  });

  it('gets its roles from its principal id, known before the site, and the site waits for them', () => {
    const rolesCall = moduleBody(resourcesBicep, 'roles');
    expect(rolesCall).toMatch(/appPrincipalId:\s*appIdentity\.outputs\.principalId/);
    expect(rolesCall).not.toMatch(/functionApp\.outputs/);
    expect(dependsOn(moduleBody(resourcesBicep, 'functionApp'))).toContain('roles');
    const app = moduleBody(resourcesBicep, 'functionApp');
    expect(app).toMatch(/appIdentityId:\s*appIdentity\.outputs\.id/);
    expect(app).toMatch(/appIdentityClientId:\s*appIdentity\.outputs\.clientId/);
  });

  it('is the output operators grant further roles to', () => {
    expect(uncomment(main)).toMatch(
      /output SERVICE_API_PRINCIPAL_ID string = resources\.outputs\.appIdentityPrincipalId/,
    );
    expect(uncomment(main)).toMatch(
      /output SERVICE_API_IDENTITY_CLIENT_ID string = resources\.outputs\.appIdentityClientId/,
    );
  });
});

describe('Cosmos DB SQL role assignments', () => {
  it('are created one after the other (Cosmos DB refuses parallel role assignment writes)', () => {
    const sql = resources(roles).filter((r) => r.target === 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments');
    expect(sql.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < sql.length; i++) expect(dependsOn(sql[i]!.body)).toContain(sql[i - 1]!.symbol);
  });

  it('the order check fails when an assignment does not wait for the previous one (negative case)', () => {
    const parallel = roles.replace(/\n\s*dependsOn: \[\n\s*cosmosAppRole\n\s*\]/, '');
    expect(parallel).not.toEqual(roles);
    const sql = resources(parallel).filter((r) => r.target.endsWith('sqlRoleAssignments'));
    expect(dependsOn(sql[1]!.body)).toEqual([]);
  });
});

describe('Key Vault', () => {
  it('exists in every mode with the field encryption key (RSA 3072, wrap and unwrap only, not exportable)', () => {
    expect(uncomment(resourcesBicep)).toMatch(/^module keyVault 'keyvault\.bicep' = \{/m);
    expect(uncomment(resourcesBicep)).toMatch(/output keyVaultName string = keyVaultName$/m);
    expect(uncomment(resourcesBicep)).toMatch(/var fieldEncryptionKeyName = 'field-encryption'/);
    const key = resources(readInfra('modules/keyvault.bicep')).find(
      (r) => r.target === 'Microsoft.KeyVault/vaults/keys',
    );
    expect(key?.body).toMatch(/kty: 'RSA'\s+keySize: 3072/);
    expect(key?.body).toMatch(/keyOps: \[\s*'wrapKey'\s*'unwrapKey'\s*\]/);
    expect(key?.body).toMatch(/exportable: false/);
    // The app finds it by its settings.
    const functionApp = readInfra('modules/functionapp.bicep');
    expect(uncomment(functionApp)).toMatch(
      /\{ name: 'KEY_VAULT_URL', value: 'https:\/\/\$\{keyVaultName\}\$\{environment\(\)\.suffixes\.keyvaultDns\}\/' \}/,
    );
    expect(uncomment(functionApp)).toMatch(/\{ name: 'FIELD_ENCRYPTION_KEY_NAME', value: fieldEncryptionKeyName \}/);
  });

  it('takes a name suffix and purge protection as parameters (on by default: the vault holds the key of every number)', () => {
    expect(decorators(main, 'keyVaultNameSuffix')).toMatch(/@maxLength\(8\)/);
    expect(uncomment(main)).toMatch(/^param keyVaultNameSuffix string = ''$/m);
    expect(uncomment(main)).toMatch(/^param keyVaultPurgeProtection bool = true$/m);
    expect(uncomment(resourcesBicep)).toMatch(
      /var keyVaultName = '\$\{abbrs\.keyVaultVaults\}\$\{resourceToken\}\$\{keyVaultNameSuffix\}'/,
    );
    expect(moduleBody(resourcesBicep, 'keyVault')).toMatch(/purgeProtection:\s*keyVaultPurgeProtection/);
    // 'kv-' + 13 + 8 = 24, Key Vault's longest name.
    expect(3 + 13 + 8).toBeLessThanOrEqual(24);
    const file = JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> };
    expect(file.parameters.keyVaultNameSuffix?.value).toBe('${KEY_VAULT_NAME_SUFFIX}');
    expect(file.parameters.keyVaultPurgeProtection?.value).toBe('${KEY_VAULT_PURGE_PROTECTION=false}');
  });
});

describe('Flex Consumption limits, checked before anything is created', () => {
  // The preview's floor was 40; "Currently the lowest maximum instance count value is 1" (Event-driven scaling,
  // Limit scale-out, Flex Consumption).
  it('maximumInstanceCount is 1 to 1000', () => {
    expect(decorators(main, 'maximumInstanceCount')).toMatch(/@minValue\(1\)/);
    expect(decorators(main, 'maximumInstanceCount')).toMatch(/@maxValue\(1000\)/);
    const file = JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> };
    expect(file.parameters.maximumInstanceCount?.value).toBe('${FUNCTION_MAXIMUM_INSTANCE_COUNT=100}');
  });

  it('the location is one of the Flex Consumption regions', () => {
    const allowed = /@allowed\(\[([\s\S]*?)\]\)/.exec(decorators(main, 'location'))?.[1] ?? '';
    const regions = [...allowed.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(regions.length).toBeGreaterThanOrEqual(25);
    for (const r of regions) expect(r).toMatch(/^[a-z0-9]+$/);
    expect(regions).toEqual(expect.arrayContaining(['westeurope', 'northeurope', 'swedencentral', 'eastus']));
    expect(new Set(regions).size).toBe(regions.length);
    expect(decorators(main, 'location')).toMatch(/@metadata\(\{ azd: \{ type: 'location' \} \}\)/);
  });
});

describe('diagnostic settings and alerts', () => {
  const settingsOf = (scope: string) =>
    resources(diagnostics).find(
      (r) => r.target === 'Microsoft.Insights/diagnosticSettings' && new RegExp(`scope:\\s*${scope}\\b`).test(r.body),
    );

  it('send Cosmos DB control-plane requests, Key Vault audit events and storage queue writes to the workspace', () => {
    const cosmos = settingsOf('cosmos');
    expect(cosmos?.body).toMatch(/category: 'ControlPlaneRequests', enabled: true/);
    expect(cosmos?.body).not.toMatch(/DataPlaneRequests/);
    expect(cosmos?.body).toMatch(/logAnalyticsDestinationType: 'Dedicated'/);
    const vault = settingsOf('vault');
    expect(vault?.body).toMatch(/category: 'AuditEvent', enabled: true/);
    expect(uncomment(diagnostics)).toMatch(/resource vaultDiagnostics '[^']+' = \{/);
    const queues = settingsOf('queueService');
    expect(queues?.body).toContain("category: 'StorageWrite', enabled: true");
    for (const c of ['StorageRead', 'StorageDelete']) expect(queues?.body).not.toContain(c);
    for (const d of [cosmos, vault, queues]) expect(d?.body).toMatch(/workspaceId:\s*workspace\.id/);
    expect(moduleBody(resourcesBicep, 'diagnostics')).toMatch(
      /logAnalyticsName:\s*monitoring\.outputs\.logAnalyticsName/,
    );
  });

  it('alert on the 5xx rate and the daily cap (logs), the Cosmos DB 429s and the background queue (metrics)', () => {
    const code = uncomment(diagnostics);
    const names = [...code.matchAll(/name: '([a-z0-9-]+)'\n\s*description:/g)].map((m) => m[1]);
    expect(names).toEqual([
      'http-5xx-rate',
      'log-daily-cap',
      'background-stall',
      'background-poison',
      'background-unmeasured',
    ]);
    expect(code).toMatch(/countif\(toint\(resultCode\) >= 500\)/);
    expect(code).toMatch(/name: '\$\{metricAlertPrefix\}-cosmos-429'/);
    expect(code).toMatch(/name: '\$\{metricAlertPrefix\}-\$\{alert\.name\}'/);
    const rules = resources(diagnostics).find((r) => r.target === 'Microsoft.Insights/scheduledQueryRules');
    expect(code).toMatch(/resource alertRules '[^']+' = \[\s*for alert in alerts:/);
    expect(rules?.body).toMatch(/actions:\s*actions/);
    for (const metric of resources(diagnostics).filter((r) => r.target === 'Microsoft.Insights/metricAlerts'))
      expect(metric.body).toMatch(/actions: empty\(alertEmail\) \? \[\] : \[\{ actionGroupId: actionGroup\.id \}\]/);
    expect(uncomment(diagnostics)).toMatch(/resource actionGroup '[^']+' = if \(!empty\(alertEmail\)\)/);
    expect(uncomment(main)).toMatch(/^param alertEmail string = ''$/m);
  });
});

describe('no source map in the deployed package', () => {
  it('the package script keeps the map outside the folder azd zips, and .funcignore leaves maps out', () => {
    const root = ROOT;
    // The bundle's map leaves the folder; the package test checks the result.
    const script = fs.readFileSync(path.join(root, 'scripts', 'package.ts'), 'utf8');
    expect(script).toMatch(
      /fs\.renameSync\(path\.join\(outDir, 'index\.js\.map'\), path\.join\(path\.dirname\(outDir\), 'index\.js\.map'\)\)/,
    );
    expect(fs.readFileSync(path.join(root, '.funcignore'), 'utf8')).toMatch(/^\*\.map$/m);
  });
});

describe('parameters of main.bicep', () => {
  it('are all declared with the azd names of main.parameters.json', () => {
    const declared = params(main).map((p) => p.name);
    expect(declared).toEqual(expect.arrayContaining(['keyVaultNameSuffix', 'keyVaultPurgeProtection', 'alertEmail']));
  });
});
