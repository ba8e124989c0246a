/**
 * What Azure really gets from the template, read per mode and against the resource types of the API versions
 * it names (no Bicep CLI or Azure needed): properties that exist (BCP037), priority-based execution only
 * where Cosmos DB has it, alerts that can fire on unsampled data, private networking behind a parameter,
 * the operator's roles, Flex Consumption's memory sizes and host storage by service URI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONTAINERS } from '../../../lib/store/containers';
import {
  ROOT,
  appSettings,
  bicepFiles,
  deployed,
  modules,
  params,
  readInfra,
  resolve,
  resources,
  uncomment,
} from './bicepText';
import { jsonProblems, loadTypesFixture, unknownProperties } from './bicepTypes';

const main = readInfra('main.bicep');
const cosmosBicep = readInfra('modules/cosmos.bicep');
const diagnostics = readInfra('modules/diagnostics.bicep');
const roles = readInfra('modules/roles.bicep');
const resourcesBicep = readInfra('modules/resources.bicep');
const functionApp = readInfra('modules/functionapp.bicep');
const parameters = (JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> })
  .parameters;

/** The decorators written right above `param <name>`. */
function decorators(text: string, name: string): string {
  const code = uncomment(text);
  const at = code.search(new RegExp(`^param ${name}\\b`, 'm'));
  const before = code.slice(0, at).split(/\n(?=param |var |resource |module |output |targetScope)/);
  return (before[before.length - 1] ?? '').replace(/^(param|var|resource|module|output|targetScope)[^\n]*\n/, '');
}

const account = (text: string) => resources(text).find((r) => r.target === 'Microsoft.DocumentDB/databaseAccounts');
const containersOf = (text: string) =>
  resources(text).find((r) => r.target === 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers');

describe('every property the template writes exists in its resource type (BCP037 as an error)', () => {
  const fixture = loadTypesFixture();

  it('for every resource of every file, at every level', () => {
    const unknown = bicepFiles().flatMap((f) => unknownProperties(f, readInfra(f), fixture));
    expect(unknown).toEqual([]);
  });

  it('the fixture holds the resource types and API versions the template uses, from bicep-types-az', () => {
    expect(fixture.source).toMatch(/^github\.com\/Azure\/bicep-types-az@[0-9a-f]{40} /);
    const used = new Set(
      bicepFiles().flatMap((f) =>
        resources(readInfra(f))
          .filter((r) => !r.existing)
          .map((r) => `${r.target}@${r.apiVersion}`),
      ),
    );
    expect(Object.keys(fixture.resources).sort()).toEqual([...used].sort());
  });

  it('reports a property the API version does not have (negative cases)', () => {
    // The landed template: priority properties on 2024-11-15, where Bicep only warns about them.
    const old = cosmosBicep.replace(/@2025-10-15/g, '@2024-11-15');
    const withOldVersion = {
      ...fixture,
      resources: {
        ...fixture.resources,
        'Microsoft.DocumentDB/databaseAccounts@2024-11-15': {
          ...fixture.resources['Microsoft.DocumentDB/databaseAccounts@2025-10-15']!,
        },
      },
    };
    const scope = withOldVersion.resources['Microsoft.DocumentDB/databaseAccounts@2024-11-15'].scope;
    const types = fixture.types[scope]!;
    const accountProperties = types.DatabaseAccountCreateUpdatePropertiesOrDatabaseAccountGetProperties!;
    const { enablePriorityBasedExecution: _e, defaultPriorityLevel: _d, ...without } = accountProperties.properties;
    withOldVersion.types = {
      ...fixture.types,
      [scope]: {
        ...types,
        DatabaseAccountCreateUpdatePropertiesOrDatabaseAccountGetProperties: {
          ...accountProperties,
          properties: without,
        },
      },
    };
    expect(unknownProperties('modules/cosmos.bicep', old, withOldVersion)).toEqual([
      'modules/cosmos.bicep: account.properties.enablePriorityBasedExecution',
      'modules/cosmos.bicep: account.properties.defaultPriorityLevel',
      expect.stringContaining('sqlDatabases@2024-11-15 is not in the fixture'),
      expect.stringContaining('containers@2024-11-15 is not in the fixture'),
    ]);
    // A misspelt property, nested in an array element and in a ternary branch.
    const typo = readInfra('modules/network.bicep').replace('privateLinkServiceId:', 'privateLinkServiceIds:');
    expect(unknownProperties('network.bicep', typo, fixture)).toEqual([
      'network.bicep: privateEndpoints.properties.privateLinkServiceConnections[].properties.privateLinkServiceIds',
    ]);
    const site = functionApp.replace("minTlsVersion: '1.2'", "minTlsVersion: '1.2'\n      ftpsStat: 'Disabled'");
    expect(unknownProperties('functionapp.bicep', site, fixture)).toEqual([
      'functionapp.bicep: app.properties.siteConfig.ftpsStat',
    ]);
  });
});

describe('values, required properties and variants of the resource types (BCP036, BCP035, BCP088)', () => {
  const fixture = loadTypesFixture();
  const cosmosTypes = fixture.types[fixture.resources['Microsoft.DocumentDB/databaseAccounts@2025-10-15']!.scope]!;

  it('a value not among those the type lists fails the check (a mutated enum value)', () => {
    const mutated = cosmosBicep.replace("defaultConsistencyLevel: 'Session'", "defaultConsistencyLevel: 'Sesion'");
    expect(mutated).not.toEqual(cosmosBicep);
    expect(unknownProperties('modules/cosmos.bicep', mutated, fixture)).toEqual([
      expect.stringMatching(
        /^modules\/cosmos\.bicep: account\.properties\.consistencyPolicy\.defaultConsistencyLevel: 'Sesion' is not one of \[.*Session.*\]$/,
      ),
    ]);
    const sku = readInfra('modules/storage.bicep').replace("'Standard_ZRS'", "'Standard_ZRX'");
    expect(unknownProperties('modules/storage.bicep', sku, fixture)).toEqual([
      expect.stringContaining("storage.sku.name: 'Standard_ZRX' is not one of"),
    ]);
  });

  it('a missing required property fails the check', () => {
    const rolesText = readInfra('modules/roles.bicep');
    const mutated = rolesText.replace(/(resource telemetryRole[\s\S]*?)\n\s*roleDefinitionId: [^\n]*/, '$1');
    expect(mutated).not.toEqual(rolesText);
    expect(unknownProperties('modules/roles.bicep', mutated, fixture)).toEqual([
      'modules/roles.bicep: telemetryRole.properties: missing required roleDefinitionId',
    ]);
    const frontDoor = readInfra('modules/frontdoor.bicep');
    const noConditions = frontDoor.replace(/\n\s*matchConditions: \[[\s\S]*?\n {10}\]/, '');
    expect(noConditions).not.toEqual(frontDoor);
    expect(unknownProperties('modules/frontdoor.bicep', noConditions, fixture)).toEqual([
      'modules/frontdoor.bicep: wafPolicy.properties.customRules.rules[]: missing required matchConditions',
    ]);
  });

  it('a discriminated object is checked against the variant its discriminator names', () => {
    // A backup policy of type Periodic has no continuousModeProperties.
    const periodic = cosmosBicep.replace("type: 'Continuous'", "type: 'Periodic'");
    expect(unknownProperties('modules/cosmos.bicep', periodic, fixture)).toEqual([
      'modules/cosmos.bicep: account.properties.backupPolicy.continuousModeProperties',
    ]);
    const unknownVariant = cosmosBicep.replace("type: 'Continuous'", "type: 'Continous'");
    expect(unknownProperties('modules/cosmos.bicep', unknownVariant, fixture)).toEqual([
      "modules/cosmos.bicep: account.properties.backupPolicy.type: 'Continous' is not one of [Continuous, Periodic]",
    ]);
    // A metric alert's criteria: the single-resource variant, named by its quoted odata.type.
    const webtest = diagnostics.replace(
      /'Microsoft\.Azure\.Monitor\.SingleResourceMultipleMetricCriteria'/,
      "'Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria'",
    );
    expect(unknownProperties('modules/diagnostics.bicep', webtest, fixture)).toEqual(
      expect.arrayContaining([
        'modules/diagnostics.bicep: cosmosThrottledAlert.properties.criteria.allOf',
        'modules/diagnostics.bicep: cosmosThrottledAlert.properties.criteria: missing required componentId',
      ]),
    );
  });

  it('the container definitions loaded from infra/cosmos-containers.json are valid container resources', () => {
    const containerType =
      fixture.resources['Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2025-10-15']!;
    const propertiesType = cosmosTypes[containerType.properties.properties!.type]!;
    const resourceType = cosmosTypes[propertiesType.properties.resource!.type]!;
    const containers = JSON.parse(readInfra('cosmos-containers.json')) as Array<Record<string, unknown>>;
    // As cosmos.bicep gives them: union(c, { partitionKey: union(c.partitionKey, { kind: 'Hash', version: 2 }) }).
    const deployedAs = (c: Record<string, unknown>): Record<string, unknown> => ({
      ...c,
      partitionKey: { ...(c.partitionKey as object), kind: 'Hash', version: 2 },
    });
    expect(containers.length).toBeGreaterThanOrEqual(6);
    expect(containers.flatMap((c) => jsonProblems(deployedAs(c), resourceType, cosmosTypes, String(c.id)))).toEqual([]);
    const first = containers[0]!;
    const mutated = {
      ...deployedAs(first),
      indexingPolicy: { ...(first.indexingPolicy as object), indexingMode: 'consistant' },
    };
    expect(jsonProblems(mutated, resourceType, cosmosTypes, 'c')).toEqual([
      expect.stringMatching(/^c\.indexingPolicy\.indexingMode: 'consistant' is not one of \[.*consistent.*\]$/),
    ]);
    const { id: _id, ...withoutId } = deployedAs(first);
    expect(jsonProblems(withoutId, resourceType, cosmosTypes, 'c')).toEqual(['c: missing required id']);
    expect(
      jsonProblems(
        { ...deployedAs(first), partitionKey: { paths: ['/pk'], kind: 'Range', version: 2 } },
        resourceType,
        cosmosTypes,
        'c',
      ),
    ).toEqual([]);
    expect(jsonProblems({ ...deployedAs(first), ttl: 5 }, resourceType, cosmosTypes, 'c')).toEqual(['c.ttl']);
  });
});

describe('Cosmos DB: priority-based execution only where Azure has it', () => {
  const serverless = resolve(cosmosBicep, { throughputMode: 'serverless', vnetEnabled: false });
  const autoscale = resolve(cosmosBicep, { throughputMode: 'autoscale', vnetEnabled: false });

  it('is on an API version with the priority properties (2025-10-15 or later)', () => {
    for (const r of resources(cosmosBicep).filter((x) => x.target.startsWith('Microsoft.DocumentDB/')))
      expect(`${r.target}@${r.apiVersion}`).toMatch(/@(2025-1[0-2]-\d\d|202[6-9]-\d\d-\d\d)$/);
  });

  it('serverless: no priority property, no throughput anywhere', () => {
    expect(account(serverless)?.body).toMatch(/capabilities:\s*\[\{ name: 'EnableServerless' \}\]/);
    expect(serverless).not.toMatch(/enablePriorityBasedExecution|defaultPriorityLevel|autoscaleSettings|throughput:/);
    expect(containersOf(serverless)?.body).toMatch(/options:\s*\{\}/);
  });

  it('autoscale: priority-based execution with High as the default, on the account', () => {
    const body = account(autoscale)?.body ?? '';
    expect(body).toMatch(/enablePriorityBasedExecution:\s*true/);
    expect(body).toMatch(/defaultPriorityLevel:\s*'High'/);
    expect(body).toMatch(/capabilities:\s*\[\]/);
  });

  it('autoscale: identities, imports and links get container-level autoscale throughput; the others share the database', () => {
    expect(containersOf(autoscale)?.body).toMatch(
      /options:\s*contains\(dedicatedContainers, c\.id\) \? \{ autoscaleSettings: \{ maxThroughput: containerAutoscaleMaxThroughput \} \} : \{\}/,
    );
    const dedicated = /var dedicatedContainers = \[([^\]]*)\]/.exec(uncomment(cosmosBicep))?.[1] ?? '';
    const names = [...dedicated.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(names.sort()).toEqual(['identities', 'imports', 'links']);
    for (const n of names) expect(Object.keys(CONTAINERS)).toContain(n);
    const database = resources(autoscale).find((r) => r.target.endsWith('/sqlDatabases'));
    expect(database?.body).toMatch(/options:\s*\{ autoscaleSettings: \{ maxThroughput: autoscaleMaxThroughput \} \}/);
  });

  it('the modes come from main.bicep through resources.bicep, each autoscale maximum a parameter', () => {
    expect(uncomment(main)).toMatch(/^param cosmosThroughputMode string = 'serverless'$/m);
    expect(decorators(main, 'cosmosContainerAutoscaleMaxThroughput')).toMatch(/@minValue\(1000\)/);
    const call = modules(resourcesBicep).find((m) => m.symbol === 'cosmos')?.body ?? '';
    expect(call).toMatch(/throughputMode:\s*cosmosThroughputMode/);
    expect(call).toMatch(/containerAutoscaleMaxThroughput:\s*cosmosContainerAutoscaleMaxThroughput/);
    expect(parameters.cosmosContainerAutoscaleMaxThroughput?.value).toBe(
      '${COSMOS_CONTAINER_AUTOSCALE_MAX_THROUGHPUT=4000}',
    );
  });

  it('the mode check fails on the landed template (negative case)', () => {
    const landed = cosmosBicep.replace(
      /properties: union\([\s\S]*?\n {4}throughputMode == 'autoscale' \? \{ enablePriorityBasedExecution: true, defaultPriorityLevel: 'High' \} : \{\}\n {2}\)/,
      "properties: {\n    enablePriorityBasedExecution: true\n    defaultPriorityLevel: 'High'\n  }",
    );
    expect(landed).not.toEqual(cosmosBicep);
    expect(resolve(landed, { throughputMode: 'serverless' })).toMatch(/enablePriorityBasedExecution/);
  });
});

describe('diagnostics and alerts that fire, at a bounded cost', () => {
  const code = uncomment(diagnostics);
  const queryRules = resources(diagnostics).filter((r) => r.target === 'Microsoft.Insights/scheduledQueryRules');
  const queries = [...code.matchAll(/query: '((?:[^'\\]|\\.)*)'/g)].map((m) => m[1] ?? '');

  it('every scheduled-query rule skips query validation and resolves itself', () => {
    expect(queryRules.length).toBeGreaterThan(0);
    for (const r of queryRules) {
      expect(r.body).toMatch(/skipQueryValidation:\s*true/);
      expect(r.body).toMatch(/autoMitigate:\s*true/);
    }
  });

  it('Cosmos DB 429s come from the TotalRequests metric split by StatusCode 429, not from request logs', () => {
    const metric = resources(diagnostics).find((r) => r.target === 'Microsoft.Insights/metricAlerts');
    expect(metric?.body).toMatch(/scopes:\s*\[\s*cosmos\.id\s*\]/);
    expect(metric?.body).toMatch(/metricNamespace:\s*'Microsoft\.DocumentDB\/databaseAccounts'/);
    expect(metric?.body).toMatch(/metricName:\s*'TotalRequests'/);
    expect(metric?.body).toMatch(/\{ name: 'StatusCode', operator: 'Include', values: \['429'\] \}/);
    expect(metric?.body).toMatch(/autoMitigate:\s*true/);
    expect(queries.join('\n')).not.toMatch(/CDBDataPlaneRequests/);
    expect(code).not.toMatch(/category: 'DataPlaneRequests'/);
    expect(code).not.toMatch(/category: 'QueryRuntimeStatistics'/);
  });

  it('collects no queue reads or deletes', () => {
    for (const file of bicepFiles()) {
      expect(uncomment(readInfra(file))).not.toMatch(/'StorageRead'/);
      expect(uncomment(readInfra(file))).not.toMatch(/'StorageDelete'/);
    }
    expect(code).toMatch(/category: 'StorageWrite', enabled: true/);
  });

  it('every log alert reads an unsampled table, and none reads traces (sampled)', () => {
    const host = JSON.parse(fs.readFileSync(path.join(ROOT, 'host.json'), 'utf8')) as {
      logging: { applicationInsights: { samplingSettings: { excludedTypes: string } } };
    };
    const excluded = host.logging.applicationInsights.samplingSettings.excludedTypes
      .split(';')
      .map((t) => t.trim().toLowerCase());
    expect(
      appSettings(functionApp).has(
        'AzureFunctionsJobHost__logging__applicationInsights__samplingSettings__excludedTypes',
      ),
    ).toBe(false);
    // Application Insights tables by telemetry type; resource logs and the workspace's own tables are never sampled.
    const sampled: Record<string, string> = {
      traces: 'trace',
      requests: 'request',
      exceptions: 'exception',
      dependencies: 'dependency',
      customEvents: 'event',
    };
    expect(queries.length).toBe(2);
    for (const q of queries) {
      const table = /^\s*(\w+)/.exec(q)?.[1] ?? '';
      const type = sampled[table];
      expect(`${table}: ${type === undefined || excluded.includes(type) ? 'unsampled' : 'sampled'}`).toBe(
        `${table}: unsampled`,
      );
    }
    expect(excluded).not.toContain('trace');
  });
});

describe('private networking behind vnetEnabled (off by default)', () => {
  const network = readInfra('modules/network.bicep');

  it('is a parameter, off by default, that deploys the network module', () => {
    expect(uncomment(main)).toMatch(/^param vnetEnabled bool = false$/m);
    expect(parameters.vnetEnabled?.value).toBe('${VNET_ENABLED=false}');
    expect(deployed(resourcesBicep, 'network', { vnetEnabled: false })).toBe(false);
    expect(deployed(resourcesBicep, 'network', { vnetEnabled: true })).toBe(true);
    expect(modules(resourcesBicep).find((m) => m.symbol === 'network')?.target).toBe('network.bicep');
  });

  it('creates private endpoints with DNS zones for Cosmos DB, blob, queue, table and Key Vault', () => {
    const targets = resources(network).map((r) => r.target);
    expect(targets).toEqual(
      expect.arrayContaining([
        'Microsoft.Network/virtualNetworks',
        'Microsoft.Network/privateEndpoints',
        'Microsoft.Network/privateDnsZones',
        'Microsoft.Network/privateDnsZones/virtualNetworkLinks',
        'Microsoft.Network/privateEndpoints/privateDnsZoneGroups',
      ]),
    );
    const text = uncomment(network);
    expect(text).toMatch(/groupId: 'Sql'\s*zone: 'privatelink\.documents\.azure\.com'/);
    expect(text).toMatch(/\[\s*'blob'\s*'queue'\s*'table'\s*\]/);
    expect(text).toMatch(/zone: 'privatelink\.\$\{service\}\.\$\{environment\(\)\.suffixes\.storage\}'/);
    expect(text).toMatch(
      /var vaultEndpoints = \[\{ name: 'vault', target: keyVaultId, groupId: 'vault', zone: 'privatelink\.vaultcore\.azure\.net' \}\]/,
    );
    expect(text).toMatch(/serviceName: 'Microsoft\.App\/environments'/);
  });

  it('integrates the Function App into the network', () => {
    const call = modules(resourcesBicep).find((m) => m.symbol === 'functionApp')?.body ?? '';
    expect(call).toMatch(/virtualNetworkSubnetId: vnetEnabled \? network\.outputs\.appSubnetId : ''/);
    expect(uncomment(functionApp)).toMatch(
      /virtualNetworkSubnetId: empty\(virtualNetworkSubnetId\) \? null : virtualNetworkSubnetId/,
    );
  });

  it.each([
    ['modules/cosmos.bicep', 'Microsoft.DocumentDB/databaseAccounts'],
    ['modules/storage.bicep', 'Microsoft.Storage/storageAccounts'],
    ['modules/keyvault.bicep', 'Microsoft.KeyVault/vaults'],
  ])('turns public network access off in %s when on, and leaves it on otherwise', (file, type) => {
    const body = (vnetEnabled: boolean) =>
      resources(resolve(readInfra(file), { vnetEnabled, throughputMode: 'serverless' })).find((r) => r.target === type)
        ?.body ?? '';
    expect(body(true)).toMatch(/publicNetworkAccess: 'Disabled'/);
    // Cosmos DB has no firewall default: public network access off is the whole switch.
    if (!type.startsWith('Microsoft.DocumentDB')) expect(body(true)).toMatch(/defaultAction: 'Deny'/);
    expect(body(false)).toMatch(/publicNetworkAccess: 'Enabled'/);
    expect(
      modules(resourcesBicep)
        .map((m) => m.body)
        .join('\n'),
    ).not.toMatch(/publicNetworkAccess:/);
  });

  it('no longer takes a Cosmos DB public-access parameter that breaks the app', () => {
    expect(params(main).map((p) => p.name)).not.toContain('cosmosPublicNetworkAccess');
    expect(parameters.cosmosPublicNetworkAccess).toBeUndefined();
  });
});

describe('operator roles', () => {
  it('gives the operator Storage Queue Data Reader and Message Processor on the background-work queues', () => {
    const code = uncomment(roles);
    expect(code).toMatch(/storageQueueDataReader: '19e7f393-937e-4f77-808e-94535e297925'/);
    expect(code).toMatch(/storageQueueDataMessageProcessor: '8a0f0c08-91a1-4084-bc3d-661d67233fed'/);
    for (const [symbol, role] of [
      ['operatorQueueReader', 'storageQueueDataReader'],
      ['operatorQueueProcessor', 'storageQueueDataMessageProcessor'],
    ] as const) {
      const r = resources(roles).find((x) => x.symbol === symbol);
      expect(r?.body).toMatch(/scope:\s*queues\[i\]/);
      expect(r?.body).toMatch(/principalId:\s*operatorPrincipalId/);
      expect(r?.body).toContain(`roleIds.${role})`);
      expect(deployed(roles, symbol, {})).toBeUndefined();
      expect(code).toMatch(
        new RegExp(
          `resource ${symbol} '[^']+' = \\[\\s*for \\(q, i\\) in operatorQueues: if \\(!empty\\(operatorPrincipalId\\)\\)`,
        ),
      );
    }
    const queues = /var operatorQueues = \[([^\]]*)\]/.exec(code)?.[1] ?? '';
    const storageQueues =
      /for queueName in \[([^\]]*)\]/.exec(uncomment(readInfra('modules/storage.bicep')))?.[1] ?? '';
    expect([...queues.matchAll(/'([^']+)'/g)].map((m) => m[1])).toEqual(
      [...storageQueues.matchAll(/'([^']+)'/g)].map((m) => m[1]),
    );
  });

  it("the operator's standing Cosmos DB data role is a parameter: on for a trial, off for production", () => {
    expect(uncomment(main)).toMatch(/^param operatorCosmosDataRole bool = true$/m);
    expect(parameters.operatorCosmosDataRole?.value).toBe('${OPERATOR_COSMOS_DATA_ROLE=true}');
    expect(deployed(roles, 'cosmosOperatorRole', { operatorCosmosDataRole: false })).toBe(false);
    expect(deployed(roles, 'cosmosOperatorRole', { operatorCosmosDataRole: true })).toBeUndefined();
    expect(modules(resourcesBicep).find((m) => m.symbol === 'roles')?.body).toMatch(
      /operatorCosmosDataRole:\s*operatorCosmosDataRole/,
    );
  });
});

describe('Flex Consumption sizes and host storage', () => {
  it('instanceMemoryMB allows 2048 and 4096 only', () => {
    const allowed = /@allowed\(\[([\s\S]*?)\]\)/.exec(decorators(main, 'instanceMemoryMB'))?.[1] ?? '';
    expect(allowed.split(/\s+/).filter(Boolean)).toEqual(['2048', '4096']);
    expect(uncomment(main)).toMatch(/^param instanceMemoryMB int = 2048$/m);
  });

  it('host storage is reached by service URIs with the app identity, as the Flex Consumption samples do', () => {
    const settings = appSettings(functionApp);
    expect(settings.get('AzureWebJobsStorage__blobServiceUri')).toBe('storageBlobEndpoint');
    expect(settings.get('AzureWebJobsStorage__queueServiceUri')).toBe('storageQueueEndpoint');
    expect(settings.get('AzureWebJobsStorage__tableServiceUri')).toBe('storageTableEndpoint');
    expect(settings.get('AzureWebJobsStorage__credential')).toBe("'managedidentity'");
    expect(settings.get('AzureWebJobsStorage__clientId')).toBe('appIdentityClientId');
    expect(settings.has('AzureWebJobsStorage__accountName')).toBe(false);
    expect(uncomment(readInfra('modules/storage.bicep'))).toMatch(
      /output tableEndpoint string = storage\.properties\.primaryEndpoints\.table/,
    );
  });
});

describe('the docs say what each mode gives', () => {
  const security = fs.readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8');
  const operations = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const fairness = security.slice(security.indexOf('### Fairness in the store'), security.indexOf('### Imports after'));

  it('serverless has no priority-based execution, autoscale has it, pacing is the mechanism in every mode', () => {
    expect(fairness).toMatch(/Azure does not support priority-based execution on serverless accounts/);
    expect(fairness).toMatch(/\| `serverless`[^|]*\| \*\*none\*\*/);
    expect(fairness).toMatch(/\| `autoscale`[^|]*\| \*\*on\*\*/);
    expect(fairness).toMatch(/in every Cosmos DB mode, is per-tenant request-unit pacing of bulk work/);
    expect(fairness).toContain('[imports.md](imports.md)');
    expect(fairness).toMatch(/Which mode for a shared production service: provisioned autoscale/);
    // The landed text promised the protection in every mode.
    expect(security).not.toMatch(/priority-based execution is enabled on the account/);
  });

  it('operations.md documents the production settings and the first-deploy retries', () => {
    for (const name of [
      'VNET_ENABLED',
      'OPERATOR_COSMOS_DATA_ROLE',
      'LOG_DAILY_CAP_GB',
      'COSMOS_CONTAINER_AUTOSCALE_MAX_THROUGHPUT',
    ])
      expect(operations).toContain(`\`${name}\``);
    expect(operations).not.toContain('COSMOS_PUBLIC_NETWORK_ACCESS');
    expect(operations).toContain('config/configreferences/appsettings/refresh');
    expect(operations).toMatch(/Principal … not found/);
    expect(operations).toMatch(/Privileged Identity Management/);
  });
});
