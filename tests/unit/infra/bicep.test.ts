/**
 * Structural tests of infra/ (no Bicep CLI or Azure needed): the template deploys every setting the
 * code reads with valid production values, exactly the code's Cosmos containers, identity-only access,
 * no secret anywhere, and its modules, parameters and outputs are wired consistently.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SETTING_NAMES, loadSettings } from '../../../lib/config/settings';
import { CONTAINERS } from '../../../lib/store/containers';
import {
  ROOT,
  allBicep,
  appSettings,
  bicepFiles,
  literal,
  missingSettings,
  moduleParams,
  modules,
  outputList,
  outputs,
  params,
  readInfra,
  resources,
  siteProperties,
  uncomment,
} from './bicepText';

const functionApp = readInfra('modules/functionapp.bicep');
const settings = appSettings(functionApp);
const code = uncomment(allBicep());
const byFile = new Map(bicepFiles().map((f) => [f, readInfra(f)] as const));

describe('app settings', () => {
  it('sets every setting the code reads on the Function App', () => {
    expect(missingSettings(functionApp, SETTING_NAMES)).toEqual([]);
  });

  it('the setting check reports what is missing (negative cases)', () => {
    expect(missingSettings(functionApp, [...SETTING_NAMES, 'NOT_A_SETTING_XYZ'])).toEqual(['NOT_A_SETTING_XYZ']);
    const withoutLine = functionApp.replace(/^.*name: 'COSMOS_ENDPOINT'.*$/m, '');
    expect(withoutLine).not.toEqual(functionApp);
    expect(missingSettings(withoutLine, SETTING_NAMES)).toEqual(['COSMOS_ENDPOINT']);
    const commentedOut = functionApp.replace(/^(\s*)(\{ name: 'LOG_LEVEL'.*)$/m, '$1// $2');
    expect(commentedOut).not.toEqual(functionApp);
    expect(missingSettings(commentedOut, SETTING_NAMES)).toEqual(['LOG_LEVEL']);
  });

  it('sets every %SETTING% a trigger binding refers to', () => {
    const dir = path.join(ROOT, 'functions');
    const referenced = new Set<string>();
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
      for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/%([A-Za-z0-9_]+)%/g))
        referenced.add(m[1] ?? '');
    }
    expect([...referenced].sort()).toEqual(
      expect.arrayContaining(['RESOLVE_PENDING_LINKS_SCHEDULE', 'RETENTION_SCHEDULE']),
    );
    expect(missingSettings(functionApp, [...referenced])).toEqual([]);
  });

  it('gives values the service accepts, with production choices', () => {
    // Settings computed from parameters or resources get a representative deployed value.
    const deployed: Record<string, string> = {
      PUBLIC_BASE_URL: 'https://func-abc.azurewebsites.net',
      COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
      COSMOS_DATABASE: 'business-identities',
      // main.bicep's cosmosThroughputMode (serverless by default, autoscale for a shared production service).
      COSMOS_THROUGHPUT_MODE: 'autoscale',
      // main.bicep's default: empty, so the client id is the only audience.
      SERVICE_APP_ID_URI: '',
      SERVICE_CLIENT_ID: 'bbbbbbbb-0000-4000-8000-000000000001',
      GRAPH_CLIENT_ID: 'bbbbbbbb-0000-4000-8000-000000000001',
      GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001',
      GRAPH_CREDENTIAL: 'managedIdentity',
      GRAPH_CERTIFICATE: '',
      IMPORT_MAX_DELETE_RATIO: '',
      BACKGROUND_QUEUE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
      KEY_VAULT_URL: 'https://kv-abc.vault.azure.net/',
      FIELD_ENCRYPTION_KEY_NAME: 'field-encryption',
      CONSOLE_CLIENT_ID: 'dddddddd-0000-4000-8000-000000000001',
      METRICS_RESOURCE_ID: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/components/appi-abc',
      METRICS_REGION: 'westeurope',
    };
    // What the platform sets on every instance (lib/config/settings.ts hostedInAzure).
    const env: Record<string, string> = { WEBSITE_INSTANCE_ID: 'a1b2c3', WEBSITE_SITE_NAME: 'func-abc' };
    for (const name of SETTING_NAMES) {
      const expression = settings.get(name) ?? '';
      const value = literal(expression) ?? deployed[name];
      if (value === undefined) throw new Error(`${name} = ${expression}: add a representative value to this test`);
      env[name] = value;
    }
    const s = loadSettings(env);
    expect(s.graph.credential).toBe('managedIdentity');
    expect(s.graphqlIntrospection).toBe(false);
    expect(s.auth.authority).toBe('https://login.microsoftonline.com');
    expect(s.graph.baseUrl).toBe('https://graph.microsoft.com');
    expect(s.auth.audiences).toEqual(['bbbbbbbb-0000-4000-8000-000000000001']);
    expect(s.graph.managedIdentityClientId).toBe('cccccccc-0000-4000-8000-000000000001');
    // The template's earlier default audience makes the service refuse to start in Azure.
    expect(() => loadSettings({ ...env, SERVICE_APP_ID_URI: 'api://business-identity-service' })).toThrow(
      /SERVICE_APP_ID_URI/,
    );
    expect(s.retentionInactiveDays).toBe(90);
    // Background work: identity-based queue connection, no connection string.
    expect(s.backgroundQueue).toEqual({
      connectionString: undefined,
      queueServiceUri: 'https://stabc.queue.core.windows.net',
    });
    expect(settings.get('BACKGROUND_QUEUE__queueServiceUri')).toBe('storageQueueEndpoint');
    expect(literal(settings.get('BACKGROUND_QUEUE__credential') ?? '')).toBe('managedidentity');
    expect(settings.has('BACKGROUND_QUEUE')).toBe(false);
    expect(s.pendingLinkBackoff).toEqual({ baseSeconds: 300, maxSeconds: 14_400 });
    expect(literal(settings.get('COSMOS_KEY') ?? 'x')).toBe('');
    expect(literal(settings.get('GRAPH_CLIENT_SECRET') ?? 'x')).toBe('');
    // The timers run on the schedules of the local sample.
    const sample = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'local.settings.sample.json'), 'utf8')) as {
        Values: Record<string, string>;
      }
    ).Values;
    for (const name of ['RETENTION_SCHEDULE', 'RESOLVE_PENDING_LINKS_SCHEDULE'])
      expect(literal(settings.get(name) ?? '')).toBe(sample[name]);
    // Parameter-driven values come from the right parameters.
    expect(settings.get('GRAPH_CLIENT_ID')).toBe('graphClientId');
    expect(settings.get('SERVICE_CLIENT_ID')).toBe('graphClientId');
    expect(settings.get('GRAPH_CREDENTIAL')).toBe('graphCredential');
    expect(settings.get('SERVICE_APP_ID_URI')).toBe('serviceAppIdUri');
    expect(settings.get('GRAPH_MANAGED_IDENTITY_CLIENT_ID')).toBe('graphIdentityClientId');
    expect(settings.get('COSMOS_ENDPOINT')).toBe('cosmosEndpoint');
    expect(uncomment(functionApp)).toMatch(
      /var baseUrl = empty\(publicBaseUrl\) \? 'https:\/\/\$\{name\}\.azurewebsites\.net' : publicBaseUrl/,
    );
  });

  it('uses identity-based host storage and telemetry, and nothing Flex Consumption rejects', () => {
    expect(settings.get('AzureWebJobsStorage__blobServiceUri')).toBe('storageBlobEndpoint');
    expect(literal(settings.get('AzureWebJobsStorage__credential') ?? '')).toBe('managedidentity');
    expect(settings.get('AzureWebJobsStorage__clientId')).toBe('appIdentityClientId');
    // Telemetry, and DefaultAzureCredential (Cosmos DB, queues), as the app's user-assigned identity only.
    expect(settings.get('APPLICATIONINSIGHTS_AUTHENTICATION_STRING')).toBe(
      "'ClientId=${appIdentityClientId};Authorization=AAD'",
    );
    expect(settings.get('AZURE_CLIENT_ID')).toBe('appIdentityClientId');
    expect(literal(settings.get('AZURE_TOKEN_CREDENTIALS') ?? '')).toBe('ManagedIdentityCredential');
    expect(settings.get('BACKGROUND_QUEUE__clientId')).toBe('appIdentityClientId');
    expect(settings.get('APPLICATIONINSIGHTS_CONNECTION_STRING')).toBe(
      'applicationInsights.properties.ConnectionString',
    );
    for (const forbidden of [
      'AzureWebJobsStorage',
      'FUNCTIONS_WORKER_RUNTIME',
      'FUNCTIONS_EXTENSION_VERSION',
      'WEBSITE_RUN_FROM_PACKAGE',
      'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
      'WEBSITE_CONTENTSHARE',
      'WEBSITE_NODE_DEFAULT_VERSION',
    ]) {
      expect(settings.has(forbidden)).toBe(false);
    }
  });
});

describe('Cosmos DB', () => {
  const cosmos = uncomment(readInfra('modules/cosmos.bicep'));

  it('creates exactly the containers of the code, with their keys and indexing', () => {
    // On failure regenerate infra/cosmos-containers.json with the command in docs/operations.md ("Build and package").
    expect(JSON.parse(readInfra('cosmos-containers.json'))).toEqual(
      JSON.parse(JSON.stringify(Object.values(CONTAINERS))),
    );
    expect(cosmos).toContain("loadJsonContent('../cosmos-containers.json')");
    const loop = resources(readInfra('modules/cosmos.bicep')).find(
      (r) => r.target === 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers',
    );
    expect(loop?.body).toMatch(/name:\s*c\.id/);
    expect(loop?.body).toMatch(/resource:\s*union\(c,/);
    expect(cosmos).toMatch(/for c in containers:/);
  });

  it('is Entra-only, TLS 1.2, serverless by default or autoscale, with continuous backup', () => {
    expect(cosmos).toMatch(/disableLocalAuth:\s*true/);
    // Bulk work is sent at low priority (lib/store/priority.ts): honoured where Azure has it (azure.test.ts).
    expect(cosmos).toMatch(
      /throughputMode == 'autoscale' \? \{ enablePriorityBasedExecution: true, defaultPriorityLevel: 'High' \} : \{\}/,
    );
    expect(cosmos).toMatch(/minimalTlsVersion:\s*'Tls12'/);
    expect(cosmos).toMatch(/throughputMode == 'serverless' \? \[\{ name: 'EnableServerless' \}\] : \[\]/);
    expect(cosmos).toMatch(/autoscaleSettings:\s*\{\s*maxThroughput:\s*autoscaleMaxThroughput\s*\}/);
    expect(cosmos).toMatch(/type:\s*'Continuous'/);
    expect(cosmos).toMatch(/tier:\s*'Continuous7Days'/);
    expect(cosmos).toMatch(/publicNetworkAccess:\s*vnetEnabled \? 'Disabled' : 'Enabled'/);
    const main = params(readInfra('main.bicep'));
    expect(main.find((p) => p.name === 'cosmosThroughputMode')).toEqual({
      name: 'cosmosThroughputMode',
      type: 'string',
      hasDefault: true,
    });
    expect(uncomment(readInfra('main.bicep'))).toMatch(/param cosmosThroughputMode string = 'serverless'/);
  });

  it('gives the app identity the built-in data contributor role', () => {
    const roles = resources(readInfra('modules/roles.bicep')).filter(
      (r) => r.target === 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments',
    );
    const app = roles.find((r) => /principalId:\s*appPrincipalId/.test(r.body));
    expect(app?.body).toContain("roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributor}'");
    expect(uncomment(readInfra('modules/roles.bicep'))).toMatch(
      /var cosmosDataContributor = '00000000-0000-0000-0000-000000000002'/,
    );
  });
});

describe('identity-only access, no secrets', () => {
  it('turns off keys and local auth everywhere', () => {
    const storage = uncomment(readInfra('modules/storage.bicep'));
    expect(storage).toMatch(/allowSharedKeyAccess:\s*false/);
    expect(storage).toMatch(/allowBlobPublicAccess:\s*false/);
    expect(storage).toMatch(/minimumTlsVersion:\s*'TLS1_2'/);
    const vault = uncomment(readInfra('modules/keyvault.bicep'));
    expect(vault).toMatch(/enableRbacAuthorization:\s*true/);
    expect(vault).toMatch(/enableSoftDelete:\s*true/);
    expect(vault).toMatch(/enablePurgeProtection:\s*purgeProtection \? true : null/);
    expect(uncomment(readInfra('modules/monitoring.bicep'))).toMatch(/DisableLocalAuth:\s*true/);
  });

  it('never reads a key, SAS or connection string with a key', () => {
    expect(code).not.toMatch(
      /listKeys\(|listConnectionStrings\(|listAccountSas\(|listServiceSas\(|primaryMasterKey|primaryReadonlyMasterKey|\.keys\[|AccountKey|SharedAccessSignature|@secure\(\)/i,
    );
  });

  it('assigns the data-plane roles the host, telemetry and Key Vault need', () => {
    const roles = uncomment(readInfra('modules/roles.bicep'));
    for (const id of [
      'b7e6dc6d-f1e8-4753-8033-0f276bb0955b', // Storage Blob Data Owner
      '974c5e8b-45b9-4653-ba55-5f855dd0fb88', // Storage Queue Data Contributor
      '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3', // Storage Table Data Contributor
      '3913510d-42f4-4e42-8a64-420c390055eb', // Monitoring Metrics Publisher
      '4633458b-17de-408a-b874-0445c86b69e6', // Key Vault Secrets User
    ]) {
      expect(roles).toContain(id);
    }
  });

  it('lets the app wrap and unwrap with the field encryption key only (Crypto Service Encryption User on the key)', () => {
    const text = readInfra('modules/roles.bicep');
    const app = resources(text).find((r) => r.body.includes('roleIds.keyVaultCryptoServiceEncryptionUser'));
    expect(uncomment(text)).toContain("keyVaultCryptoServiceEncryptionUser: 'e147488a-f6f5-4113-8e2d-b22465e65bf6'");
    expect(app?.body).toMatch(/scope:\s*fieldEncryptionKey\n/);
    expect(app?.body).toMatch(/principalId:\s*appPrincipalId/);
    // The app never gets a role that can create, delete or export keys.
    const officer = resources(text).find((r) => r.body.includes('roleIds.keyVaultCryptoOfficer'));
    expect(officer?.body).toMatch(/principalId:\s*operatorPrincipalId/);
    expect(officer?.body).toMatch(/scope:\s*fieldEncryptionKey\n/);
  });

  it('grants no more than needed: no Key Vault Certificate User, Secrets User in certificate mode only, Cosmos DB on the database', () => {
    const text = readInfra('modules/roles.bicep');
    expect(uncomment(text)).not.toContain('db79e9a7-68ee-4b58-9aeb-b90e7c24fcba');
    const secrets = resources(text).find((r) => r.body.includes('roleIds.keyVaultSecretsUser'));
    expect(uncomment(text)).toMatch(/resource vaultSecretsRole '[^']+' = if \(certificateMode\)/);
    expect(secrets?.body).toMatch(/scope:\s*vault/);
    expect(uncomment(text)).toMatch(/var cosmosScope = '\$\{cosmos\.id\}\/dbs\/\$\{cosmosDatabaseName\}'/);
    for (const r of resources(text).filter((x) => x.target.endsWith('sqlRoleAssignments')))
      expect(r.body).toMatch(/scope:\s*cosmosScope/);
    // Only built-in roles of the data plane; no Owner, Contributor or User Access Administrator.
    for (const forbidden of [
      '8e3af657-a8ff-443c-a75c-2fe8c4bcb635',
      'b24988ac-6180-42a0-ab88-20f7382dd24c',
      '18d7d88d-d35e-4fb5-a5c3-7773c20a72d9',
    ])
      expect(code).not.toContain(forbidden);
  });

  it('certificate mode reads the Graph certificate through a Key Vault reference, never a stored value', () => {
    expect(settings.get('GRAPH_CERTIFICATE')).toBe(
      "graphCredential == 'certificate' ? '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${graphCertificateName})' : ''",
    );
    expect(literal(settings.get('GRAPH_CERTIFICATE_PATH') ?? 'x')).toBe('');
    const functionAppModule =
      /module functionApp 'functionapp\.bicep' = \{[\s\S]*?\n\}/.exec(
        uncomment(readInfra('modules/resources.bicep')),
      )?.[0] ?? '';
    expect(functionAppModule).toMatch(/keyVaultName: keyVaultName/);
    expect(functionAppModule).toMatch(/graphCertificateName: graphCertificateName/);
  });

  it('has no parameter or output that is or reveals a secret', () => {
    const secretName = /secret|password|connection_?string|(^|_)key($|_)|[a-z]Key$|token/i;
    for (const [file, text] of byFile) {
      for (const p of params(text))
        expect(`${file}: param ${p.name}`).not.toMatch(new RegExp(`param .*(${secretName.source})`, 'i'));
      for (const o of outputList(text)) {
        const name = o.name.replace(/KEY_VAULT|keyVault/g, '');
        expect(`${file}: output ${name}`).not.toMatch(new RegExp(`output .*(${secretName.source})`, 'i'));
        expect(o.expression).not.toMatch(/ConnectionString|InstrumentationKey|list\w*\(|secret|password|key\b/i);
      }
    }
    const names = outputs(readInfra('main.bicep'));
    expect(names).toEqual(
      expect.arrayContaining([
        'AZURE_LOCATION',
        'AZURE_TENANT_ID',
        'AZURE_RESOURCE_GROUP',
        'SERVICE_API_NAME',
        'SERVICE_API_URI',
        'COSMOS_ENDPOINT',
        'COSMOS_DATABASE',
      ]),
    );
  });
});

describe('Function App', () => {
  const app = uncomment(functionApp);
  const site = resources(functionApp).find((r) => r.target === 'Microsoft.Web/sites');

  it('runs on Flex Consumption with Node.js 22 and two user-assigned identities (the app identity and the Graph identity)', () => {
    const plan = resources(functionApp).find((r) => r.target === 'Microsoft.Web/serverfarms');
    expect(plan?.body).toMatch(/tier:\s*'FlexConsumption'/);
    expect(plan?.body).toMatch(/name:\s*'FC1'/);
    expect(site?.body).toMatch(/kind:\s*'functionapp,linux'/);
    expect(site?.body).toMatch(/runtime:\s*\{\s*name:\s*'node'\s*version:\s*'22'\s*\}/);
    expect(site?.body).toMatch(
      /identity:\s*\{\s*type:\s*'UserAssigned'\s*userAssignedIdentities:\s*\{\s*'\$\{appIdentityId\}':\s*\{\}\s*'\$\{graphIdentityId\}':\s*\{\}\s*\}\s*\}/,
    );
    expect(site?.body).toMatch(/keyVaultReferenceIdentity:\s*appIdentityId/);
    expect(site?.body).toMatch(/'azd-service-name': 'api'/);
    expect(site?.body).toMatch(/maximumInstanceCount:\s*maximumInstanceCount/);
    expect(site?.body).toMatch(/instanceMemoryMB:\s*instanceMemoryMB/);
    // Deployment storage (like Cosmos DB and host storage) uses the app identity, whose roles exist first.
    expect(site?.body).toMatch(
      /type:\s*'blobContainer'[\s\S]*authentication:\s*\{\s*type:\s*'UserAssignedIdentity'\s*userAssignedIdentityResourceId:\s*appIdentityId\s*\}/,
    );
    expect(site?.body).not.toContain('SystemAssigned');
  });

  it('is HTTPS only, TLS 1.2, without FTP or basic publishing credentials', () => {
    expect(app).toMatch(/httpsOnly:\s*true/);
    expect(app).toMatch(/minTlsVersion:\s*'1\.2'/);
    const policies = resources(functionApp).filter(
      (r) => r.target === 'Microsoft.Web/sites/basicPublishingCredentialsPolicies',
    );
    expect(policies.map((p) => /name:\s*'(\w+)'/.exec(p.body)?.[1]).sort()).toEqual(['ftp', 'scm']);
    for (const p of policies) expect(p.body).toMatch(/allow:\s*false/);
  });

  // Flex Consumption refuses site properties it does not document (ARM error 51021 names e.g.
  // Site.SiteConfig.FtpsState); the runtime, scale and deployment live in functionAppConfig.
  const FLEX_SITE_PROPERTIES = [
    'serverFarmId',
    'httpsOnly',
    'siteConfig',
    'functionAppConfig',
    'virtualNetworkSubnetId',
    'publicNetworkAccess',
    // The identity Key Vault references resolve with, a site property (not siteConfig).
    'keyVaultReferenceIdentity',
  ];
  const FLEX_SITE_CONFIG = ['appSettings', 'minTlsVersion', 'cors', 'ipSecurityRestrictions'];
  const unsupported = (bicep: string): string[] => {
    const found = siteProperties(bicep);
    return [
      ...found.properties.filter((p) => !FLEX_SITE_PROPERTIES.includes(p)),
      ...found.siteConfig.filter((p) => !FLEX_SITE_CONFIG.includes(p)).map((p) => `siteConfig.${p}`),
    ];
  };

  it('sets only site properties Flex Consumption accepts', () => {
    expect(siteProperties(functionApp).siteConfig).toEqual(expect.arrayContaining(['appSettings', 'minTlsVersion']));
    expect(unsupported(functionApp)).toEqual([]);
  });

  it.each([
    ['ftpsState', "ftpsState: 'Disabled'"],
    ['http20Enabled', 'http20Enabled: true'],
    ['scmMinTlsVersion', "scmMinTlsVersion: '1.2'"],
    ['alwaysOn', 'alwaysOn: true'],
    ['linuxFxVersion', "linuxFxVersion: 'Node|22'"],
  ])('the Flex check fails on siteConfig.%s (negative case)', (name, line) => {
    const withIt = functionApp.replace(/(\n(\s*)minTlsVersion: '1\.2'\n)/, `$1$2${line}\n`);
    expect(withIt).not.toEqual(functionApp);
    expect(unsupported(withIt)).toEqual([`siteConfig.${name}`]);
  });

  it('the Flex check fails on an unsupported site property (negative case)', () => {
    const withIt = functionApp.replace(/(\n(\s*)httpsOnly: true\n)/, '$1$2clientAffinityEnabled: false\n');
    expect(unsupported(withIt)).toEqual(['clientAffinityEnabled']);
  });
});

describe('Graph identity (user-assigned, outlives the Function App)', () => {
  const identityFile = path.join(ROOT, 'infra', 'modules', 'identity.bicep');
  const identity = fs.existsSync(identityFile) ? uncomment(fs.readFileSync(identityFile, 'utf8')) : '';
  const resourcesModule = uncomment(readInfra('modules/resources.bicep'));

  it('is created by the template in its own module, not with the Function App', () => {
    expect(resources(identity).map((r) => r.target)).toEqual(['Microsoft.ManagedIdentity/userAssignedIdentities']);
    expect(identity).toMatch(/output clientId string = identity\.properties\.clientId/);
    expect(identity).toMatch(/output principalId string = identity\.properties\.principalId/);
    expect(resources(functionApp).some((r) => r.target === 'Microsoft.ManagedIdentity/userAssignedIdentities')).toBe(
      false,
    );
    expect(resourcesModule).toMatch(/module graphIdentity 'identity\.bicep'/);
  });

  it('is attached to the app and its client id is the Graph setting', () => {
    expect(resourcesModule).toMatch(/graphIdentityId: graphIdentity\.outputs\.id/);
    expect(resourcesModule).toMatch(/graphIdentityClientId: graphIdentity\.outputs\.clientId/);
    expect(settings.get('GRAPH_MANAGED_IDENTITY_CLIENT_ID')).toBe('graphIdentityClientId');
  });

  it('its principal id is an output the Entra script uses as the federated credential subject', () => {
    expect(outputs(readInfra('main.bicep'))).toEqual(
      expect.arrayContaining(['GRAPH_IDENTITY_PRINCIPAL_ID', 'GRAPH_MANAGED_IDENTITY_CLIENT_ID']),
    );
    const script = fs.readFileSync(path.join(ROOT, 'infra', 'scripts', 'create-entra-app.sh'), 'utf8');
    expect(script).toContain('azd env get-value GRAPH_IDENTITY_PRINCIPAL_ID');
    expect(script).not.toContain('SERVICE_API_PRINCIPAL_ID');
  });
});

describe('token audience in Azure', () => {
  it('has no default App ID URI that another application could claim', () => {
    expect(uncomment(readInfra('main.bicep'))).toMatch(/^param serviceAppIdUri string = ''$/m);
    const file = JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: unknown }> };
    expect(file.parameters.serviceAppIdUri?.value).toBe('${SERVICE_APP_ID_URI}');
    expect(code).not.toContain("'api://business-identity-service'");
  });
});

describe('certificate mode', () => {
  it('gives the deploying principal Key Vault Certificates Officer on the vault', () => {
    const role = resources(readInfra('modules/roles.bicep')).find((r) =>
      r.body.includes('roleIds.keyVaultCertificatesOfficer'),
    );
    expect(role?.body).toMatch(/principalId:\s*operatorPrincipalId/);
    expect(role?.body).toMatch(/scope:\s*vault/);
    expect(uncomment(readInfra('modules/roles.bicep'))).toMatch(
      /keyVaultCertificatesOfficer: 'a4417e6f-fecd-4de8-b567-7b0420556985'/,
    );
    expect(uncomment(readInfra('modules/roles.bicep'))).toMatch(
      /operatorCertificateRole '[^']+' = if \(graphCredential == 'certificate' && !empty\(operatorPrincipalId\)\)/,
    );
    expect(uncomment(readInfra('modules/resources.bicep'))).toMatch(
      /module roles 'roles\.bicep' = \{[\s\S]*graphCredential: graphCredential[\s\S]*\n\}/,
    );
  });
});

describe('template wiring (what the Bicep compiler would check)', () => {
  const moduleFile = (from: string, target: string): string =>
    path.posix.normalize(path.posix.join(path.posix.dirname(from), target));

  it('passes exactly the declared parameters to every module, and reads only declared outputs', () => {
    for (const [file, text] of byFile) {
      const symbols = new Map<string, string>();
      for (const mod of modules(text)) {
        const target = moduleFile(file, mod.target);
        const targetText = byFile.get(target);
        expect(targetText === undefined ? `missing module ${target}` : target).toBe(target);
        if (targetText === undefined) continue;
        symbols.set(mod.symbol, target);
        const declared = params(targetText);
        const passed = moduleParams(text, mod);
        expect({
          call: `${file} -> ${target}`,
          unknown: passed.filter((p) => !declared.some((d) => d.name === p)),
        }).toEqual({ call: `${file} -> ${target}`, unknown: [] });
        const required = declared.filter((d) => !d.hasDefault).map((d) => d.name);
        expect({ call: `${file} -> ${target}`, notPassed: required.filter((r) => !passed.includes(r)) }).toEqual({
          call: `${file} -> ${target}`,
          notPassed: [],
        });
      }
      for (const m of uncomment(text).matchAll(/\b(\w+)\.outputs\.(\w+)/g)) {
        const target = symbols.get(m[1] ?? '');
        expect(target === undefined ? `${file}: ${m[0]} is not a module` : 'ok').toBe('ok');
        if (target)
          expect(`${file}: ${m[0]} in [${outputs(byFile.get(target) ?? '').join(', ')}]`).toMatch(
            new RegExp(`in \\[.*\\b${m[2]}\\b`),
          );
      }
    }
    expect(byFile.size).toBeGreaterThanOrEqual(8);
  });

  it('declares every parameter it uses, and every parameter it declares is used', () => {
    for (const [file, text] of byFile) {
      const body = uncomment(text);
      for (const p of params(text)) {
        const uses = body.match(new RegExp(`\\b${p.name}\\b`, 'g'))?.length ?? 0;
        expect(`${file}: ${p.name} used ${uses > 1 ? 'yes' : 'no'}`).toBe(`${file}: ${p.name} used yes`);
      }
    }
  });

  it('names resources from abbreviations.json and the resource token, and tags them', () => {
    const abbrs = JSON.parse(readInfra('abbreviations.json')) as Record<string, string>;
    for (const m of code.matchAll(/\babbrs\.(\w+)/g)) expect(Object.keys(abbrs)).toContain(m[1]);
    expect(uncomment(readInfra('modules/resources.bicep'))).toMatch(
      /var resourceToken = toLower\(uniqueString\(subscription\(\)\.id, resourceGroup\(\)\.id, environmentName\)\)/,
    );
    expect(uncomment(readInfra('main.bicep'))).toMatch(/var tags = \{ 'azd-env-name': environmentName \}/);
    for (const [file, text] of byFile) {
      for (const r of resources(text).filter((x) => !x.existing && /^\s*location:/m.test(x.body))) {
        expect(`${file}: ${r.symbol} ${/^\s*tags:/m.test(r.body) ? 'tagged' : 'untagged'}`).toBe(
          `${file}: ${r.symbol} tagged`,
        );
      }
    }
  });

  // Diagnostic settings have no GA API version that takes logAnalyticsDestinationType and metric categories.
  const PREVIEW_ONLY = new Map([['Microsoft.Insights/diagnosticSettings', '2021-05-01-preview']]);

  it('uses one GA API version per resource type', () => {
    const versions = new Map<string, Set<string>>();
    for (const text of byFile.values()) {
      for (const r of resources(text)) {
        if (PREVIEW_ONLY.get(r.target) === r.apiVersion) continue;
        expect(`${r.target}@${r.apiVersion}`).toMatch(/@\d{4}-\d{2}-\d{2}$/);
        versions.set(r.target, (versions.get(r.target) ?? new Set()).add(r.apiVersion ?? ''));
      }
    }
    for (const [type, v] of versions) expect(`${type}: ${[...v].join(', ')}`).not.toContain(',');
  });

  it('main.parameters.json maps azd environment values to declared parameters only, and gives every required one', () => {
    const file = JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: unknown }> };
    const declared = params(readInfra('main.bicep'));
    const given = Object.keys(file.parameters);
    expect(given.filter((g) => !declared.some((d) => d.name === g))).toEqual([]);
    expect(declared.filter((d) => !d.hasDefault && !given.includes(d.name)).map((d) => d.name)).toEqual([]);
    expect(file.parameters.environmentName?.value).toBe('${AZURE_ENV_NAME}');
    expect(file.parameters.location?.value).toBe('${AZURE_LOCATION}');
    for (const [name, p] of Object.entries(file.parameters))
      expect(`${name}: ${String(p.value)}`).toMatch(/: \$\{[A-Z0-9_]+(=[^}]*)?\}$/);
  });
});

describe('azd project', () => {
  const yaml = fs.readFileSync(path.join(ROOT, 'azure.yaml'), 'utf8').replace(/#.*$/gm, '');

  it('deploys the bundle `npm run package` lays out, to the Function App tagged as service api', () => {
    expect(yaml).toMatch(/^services:\s*\n\s+api:\s*\n/m);
    expect(yaml).toMatch(/^\s+project: \.\s*$/m);
    expect(yaml).toMatch(/^\s+host: function\s*$/m);
    expect(yaml).toMatch(/^\s+language: (ts|js)\s*$/m);
    expect(yaml).toMatch(/^\s+dist: build\/app\s*$/m);
    expect(yaml).toMatch(/prepackage:[\s\S]*run: npm run package/);
    expect(yaml).toMatch(/^infra:\s*\n\s+provider: bicep\s*\n\s+path: infra\s*\n\s+module: main\s*$/m);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.package).toBeDefined();
    // scripts/package.ts writes the app folder azd zips (dist: build/app).
    expect(fs.readFileSync(path.join(ROOT, 'scripts', 'package.ts'), 'utf8')).toMatch(
      /path\.join\(ROOT, 'build', 'app'\)/,
    );
  });

  it('creates the Entra application the service expects', () => {
    const script = fs.readFileSync(path.join(ROOT, 'infra', 'scripts', 'create-entra-app.sh'), 'utf8');
    expect(script).toContain('AzureADMultipleOrgs');
    expect(script).toContain('df021288-bdef-4463-88db-98f22de89214');
    expect(script).toContain('api://AzureADTokenExchange');
    expect(script).toContain('https://login.microsoftonline.com/$tenant/v2.0');
    expect(script).toMatch(/\\"allowedMemberTypes\\":\[\\"Application\\",\\"User\\"\]/);
    expect(script).toMatch(/\\"value\\":\\"Admin\\"/);
  });

  it('registers the administrator console: delegated scope, SPA redirect URI, Admin role assignment', () => {
    const script = fs.readFileSync(path.join(ROOT, 'infra', 'scripts', 'create-entra-app.sh'), 'utf8');
    expect(script).toMatch(/oauth2PermissionScopes.*\\"value\\":\\"Console\.Admin\\"/);
    expect(script).toContain('{\\"spa\\":{\\"redirectUris\\":[\\"${console_url%/}/console/\\"]}}');
    expect(script).toContain('/appRoleAssignedTo');
    expect(script).toContain('azd env set CONSOLE_CLIENT_ID $app_id');
    const params = JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: unknown }> };
    expect(params.parameters.consoleClientId?.value).toBe('${CONSOLE_CLIENT_ID}');
    expect(uncomment(readInfra('modules/functionapp.bicep'))).toContain(
      "{ name: 'CONSOLE_CLIENT_ID', value: consoleClientId }",
    );
  });
});
