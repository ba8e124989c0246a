/**
 * What a first production deployment needs, read from the template (no Bicep CLI or Azure): the providers it
 * registers before provisioning, logs with a ceiling and an alert when it is reached, a stall alert on a
 * metric, every setting of the settings table deployable, zone redundancy, an optional Front Door with a WAF
 * policy, always-ready instances, the operator's standing role removable, and the production preset file,
 * every value of which the template accepts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SETTINGS, loadSettings } from '../../../lib/config/settings';
import {
  ROOT,
  bicepFiles,
  decoratorsOf,
  deployed,
  literal,
  modules,
  params,
  readInfra,
  readPreset,
  resolve,
  resources,
  settingsList,
  uncomment,
} from './bicepText';

const main = readInfra('main.bicep');
const resourcesBicep = readInfra('modules/resources.bicep');
const functionApp = readInfra('modules/functionapp.bicep');
const diagnostics = readInfra('modules/diagnostics.bicep');
const parameters = (JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> })
  .parameters;
const host = JSON.parse(fs.readFileSync(path.join(ROOT, 'host.json'), 'utf8')) as {
  logging: { logLevel: Record<string, string>; applicationInsights: { samplingSettings: { excludedTypes: string } } };
};
const moduleBody = (text: string, symbol: string): string => modules(text).find((m) => m.symbol === symbol)?.body ?? '';

/** The azd environment name and default main.parameters.json gives a parameter. */
function envOf(param: string): { name: string; fallback?: string } | undefined {
  const m = /^\$\{([A-Z0-9_]+)(?:=([^}]*))?\}$/.exec(parameters[param]?.value ?? '');
  return m ? { name: m[1] ?? '', fallback: m[2] } : undefined;
}

/** The main.bicep parameter an azd environment value feeds. */
function paramOfEnv(env: string): string | undefined {
  return Object.keys(parameters).find((p) => envOf(p)?.name === env);
}

/**
 * Whether main.bicep accepts an azd environment value for a parameter: its type (int, bool, string, or the JSON
 * object text of extraAppSettings), its @allowed list and its @minValue/@maxValue/@maxLength.
 */
function accepts(param: string, value: string): string | undefined {
  const p = params(main).find((x) => x.name === param);
  if (!p) return `${param}: no such parameter`;
  const decorators = decoratorsOf(main, param);
  if (p.type === 'int') {
    if (!/^-?\d+$/.test(value)) return `${param}: ${value} is not an integer`;
    const min = /@minValue\((-?\d+)\)/.exec(decorators)?.[1];
    const max = /@maxValue\((-?\d+)\)/.exec(decorators)?.[1];
    if (min !== undefined && Number(value) < Number(min)) return `${param}: ${value} < ${min}`;
    if (max !== undefined && Number(value) > Number(max)) return `${param}: ${value} > ${max}`;
  } else if (p.type === 'bool') {
    if (value !== 'true' && value !== 'false') return `${param}: ${value} is not a bool`;
  } else if (p.type === 'string') {
    const allowed = /@allowed\(\[([\s\S]*?)\]\)/.exec(decorators)?.[1];
    if (allowed !== undefined) {
      const values = [...allowed.matchAll(/'([^']*)'/g)].map((m) => m[1]);
      if (!values.includes(value)) return `${param}: ${value} not in [${values.join(', ')}]`;
    }
    const maxLength = /@maxLength\((\d+)\)/.exec(decorators)?.[1];
    if (maxLength !== undefined && value.length > Number(maxLength)) return `${param}: longer than ${maxLength}`;
  } else return `${param}: type ${p.type} not handled`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The merge of extraAppSettings into the app settings, as functionapp.bicep writes it.
const derived = settingsList(functionApp, 'derivedSettings');
const tunable = settingsList(functionApp, 'tunableSettings');
const MERGE = [
  'var derivedNames = map(derivedSettings, s => s.name)',
  'var extraSettings = filter(map(items(extraAppSettings), e => { name: e.key, value: string(e.value) }), e => !contains(derivedNames, e.name))',
  'var extraNames = map(extraSettings, e => e.name)',
  'var appSettings = concat(derivedSettings, filter(tunableSettings, s => !contains(extraNames, s.name)), extraSettings)',
];

/** The app settings the template deploys with these extraAppSettings: name -> value expression or given text. */
function deployedSettings(extra: Record<string, string>, bicep: string = functionApp): Map<string, string> {
  const code = uncomment(bicep);
  for (const line of MERGE) if (!code.includes(line)) throw new Error(`functionapp.bicep no longer merges as: ${line}`);
  const d = settingsList(bicep, 'derivedSettings');
  const t = settingsList(bicep, 'tunableSettings');
  const extras = Object.entries(extra).filter(([name]) => !d.has(name));
  const out = new Map(d);
  for (const [name, value] of t) if (!extras.some(([n]) => n === name)) out.set(name, value);
  for (const [name, value] of extras) out.set(name, `'${value}'`);
  return out;
}

/** The settings the service reads in Azure (the local-only rows aside). */
const AZURE_SETTINGS = SETTINGS.filter((r) => r.appliesTo === 'Azure' || r.appliesTo === 'Azure and local');

describe('first deployment: resource providers registered before provisioning', () => {
  const yaml = fs.readFileSync(path.join(ROOT, 'azure.yaml'), 'utf8').replace(/#.*$/gm, '');
  const namespaces = [
    ...new Set(
      bicepFiles().flatMap((f) => resources(readInfra(f)).map((r) => r.target.split('/')[0]?.toLowerCase() ?? '')),
    ),
  ].filter((n) => n !== 'microsoft.resources' && n !== 'microsoft.authorization');
  const listed = (file: string): string[] =>
    [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\bMicrosoft\.[A-Za-z]+\b/g)].map((m) =>
      m[0].toLowerCase(),
    );

  it('azure.yaml runs a preprovision hook in both shells', () => {
    expect(yaml).toMatch(
      /^hooks:\s*\n\s+preprovision:\s*\n\s+posix:\s*\n\s+shell: sh\s*\n\s+run: infra\/scripts\/register-providers\.sh\s*\n\s+windows:\s*\n\s+shell: pwsh\s*\n\s+run: infra\/scripts\/register-providers\.ps1\s*$/m,
    );
    for (const f of ['infra/scripts/register-providers.sh', 'infra/scripts/register-providers.ps1'])
      expect(fs.existsSync(path.join(ROOT, f))).toBe(true);
    expect(fs.statSync(path.join(ROOT, 'infra/scripts/register-providers.sh')).mode & 0o111).not.toBe(0);
  });

  it.each(['infra/scripts/register-providers.sh', 'infra/scripts/register-providers.ps1'])(
    '%s registers Microsoft.App and every provider of a resource type of the template, idempotently',
    (file) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(namespaces.length).toBeGreaterThanOrEqual(9);
      expect(namespaces.filter((n) => !listed(file).includes(n))).toEqual([]);
      expect(listed(file)).toContain('microsoft.app');
      expect(text).toMatch(/az provider show --namespace/);
      expect(text).toMatch(/registrationState/);
      expect(text).toMatch(/az provider register --namespace .*--wait/);
    },
  );

  it('the provider check sees a missing provider (negative case)', () => {
    const withoutCdn = listed('infra/scripts/register-providers.sh').filter((n) => n !== 'microsoft.cdn');
    expect(namespaces.filter((n) => !withoutCdn.includes(n))).toEqual(['microsoft.cdn']);
  });
});

describe('logs with a ceiling', () => {
  const functionNames = fs
    .readdirSync(path.join(ROOT, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [
      ...fs
        .readFileSync(path.join(ROOT, 'functions', f), 'utf8')
        .matchAll(/app\.(?:http|timer|storageQueue)\('(\w+)'/g),
    ])
    .map((m) => m[1] ?? '');

  it('host categories log at Warning, requests are kept, and each function logs its own lines at Information', () => {
    const levels = host.logging.logLevel;
    expect(levels.default).toBe('Warning');
    expect(levels.Function).toBe('Warning');
    // Host.Results writes the requests table; below Information it would keep failures only.
    expect(levels['Host.Results']).toBe('Information');
    expect(functionNames.length).toBeGreaterThanOrEqual(15);
    for (const name of functionNames)
      expect(`${name}: ${levels[`Function.${name}.User`]}`).toBe(`${name}: Information`);
    // No level for a function that does not exist.
    const known = new Set(functionNames.map((n) => `Function.${n}.User`));
    expect(Object.keys(levels).filter((k) => k.endsWith('.User') && !known.has(k))).toEqual([]);
  });

  it('requests and exceptions are never sampled; traces are, and nothing overrides host.json in the app settings', () => {
    const excluded = host.logging.applicationInsights.samplingSettings.excludedTypes.split(';');
    expect(excluded.sort()).toEqual(['Exception', 'Request']);
    const all = deployedSettings({});
    expect([...all.keys()].filter((k) => k.startsWith('AzureFunctionsJobHost__logging'))).toEqual([]);
  });

  it('the workspace has a finite default daily cap, from an azd value', () => {
    expect(uncomment(main)).toMatch(/^param logDailyCapGb int = 5$/m);
    expect(decoratorsOf(main, 'logDailyCapGb')).toMatch(/@minValue\(1\)/);
    expect(parameters.logDailyCapGb?.value).toBe('${LOG_DAILY_CAP_GB=5}');
    expect(accepts('logDailyCapGb', '-1')).toMatch(/< 1/);
    expect(uncomment(readInfra('modules/monitoring.bicep'))).toMatch(
      /workspaceCapping:\s*\{\s*dailyQuotaGb:\s*dailyCapGb\s*\}/,
    );
    expect(moduleBody(resourcesBicep, 'monitoring')).toMatch(/dailyCapGb:\s*logDailyCapGb/);
  });

  it('an alert fires when the cap is reached, from the Operation table event Microsoft documents', () => {
    const code = uncomment(diagnostics);
    expect(code).toMatch(
      /name: 'log-daily-cap'[\s\S]*?scope: workspace\.id\s*query: '_LogOperation \| where Category =~ "Ingestion" \| where Detail contains "OverQuota"'/,
    );
    expect(moduleBody(resourcesBicep, 'diagnostics')).toMatch(/logDailyCapGb:\s*logDailyCapGb/);
  });
});

describe('stall alert on a metric', () => {
  const metricAlerts = resources(diagnostics).filter((r) => r.target === 'Microsoft.Insights/metricAlerts');
  const code = uncomment(diagnostics);

  it('a timer measures the background queue every minute', () => {
    const fn = fs.readFileSync(path.join(ROOT, 'functions', 'measureBackgroundQueue.ts'), 'utf8');
    expect(fn).toMatch(/app\.timer\('measureBackgroundQueue'/);
    expect(fn).toMatch(/schedule: '\d+ \* \* \* \* \*'/);
    expect(fn).toContain('measureBackgroundQueueRun');
  });

  it('fires when the oldest visible message waited more than 15 minutes at every measurement of 15 minutes', () => {
    const loop = metricAlerts.find((r) => r.symbol === 'backgroundMetricAlerts');
    expect(loop?.body).toMatch(/scopes:\s*\[\s*applicationInsights\.id\s*\]/);
    expect(loop?.body).toMatch(/metricNamespace: 'background-work'/);
    expect(loop?.body).toMatch(/skipMetricValidation: true/);
    expect(loop?.body).toMatch(/windowSize: 'PT15M'/);
    expect(loop?.body).toMatch(/actions: empty\(alertEmail\) \? \[\] : \[\{ actionGroupId: actionGroup\.id \}\]/);
    expect(code).toMatch(
      /name: 'background-stall'[\s\S]*?metric: 'OldestMessageAgeSeconds'\s*aggregation: 'Minimum'\s*threshold: 900/,
    );
    expect(code).toMatch(
      /name: 'background-poison'[\s\S]*?metric: 'PoisonMessages'\s*aggregation: 'Maximum'\s*threshold: 0/,
    ); // A peek that fails (a lost queue role) leaves the stall metric missing: its own metric alerts instead.
    expect(code).toMatch(
      /name: 'background-unmeasured'[\s\S]*?metric: 'MeasurementFailures'\s*aggregation: 'Total'\s*threshold: 5/,
    );
  });

  it('the metric names are those the measurement sends', () => {
    const lib = fs.readFileSync(path.join(ROOT, 'lib', 'background', 'queueMeasure.ts'), 'utf8');
    expect(lib).toContain("export const METRIC_NAMESPACE = 'background-work';");
    expect(lib).toContain("'OldestMessageAgeSeconds' | 'PoisonMessages' | 'MeasurementFailures'");
  });

  it('no alert reads the lines the consumer writes (silent when nothing runs)', () => {
    expect(code).not.toMatch(/queuedMs/);
    expect(code).not.toMatch(/'background-oldest-message'/);
  });

  it('the app sends the metrics to the component with its identity (Monitoring Metrics Publisher)', () => {
    expect(derived.get('METRICS_RESOURCE_ID')).toBe('metricsResourceId');
    expect(derived.get('METRICS_REGION')).toBe('metricsRegion');
    expect(moduleBody(resourcesBicep, 'functionApp')).toMatch(
      /metricsResourceId:\s*monitoring\.outputs\.applicationInsightsId/,
    );
    const roles = uncomment(readInfra('modules/roles.bicep'));
    expect(roles).toMatch(/monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'/);
    expect(roles).toMatch(/scope: appInsights/);
  });
});

describe('every setting deployable', () => {
  it('every row the service reads in Azure is set by the template or goes through extraAppSettings', () => {
    expect(AZURE_SETTINGS.length).toBeGreaterThan(40);
    for (const row of AZURE_SETTINGS) {
      if (derived.has(row.name)) continue;
      const value = `probe-${row.name.length}`;
      expect(`${row.name}: ${deployedSettings({ [row.name]: value }).get(row.name)}`).toBe(`${row.name}: '${value}'`);
    }
  });

  it('the table says which rows the template sets itself (derived or tunable), and no other', () => {
    for (const row of SETTINGS) {
      const inTemplate = derived.has(row.name) || tunable.has(row.name);
      expect(`${row.name}: ${row.deployed}`).toBe(`${row.name}: ${inTemplate}`);
    }
  });

  it('extraAppSettings replaces a tunable value, never a derived one', () => {
    const merged = deployedSettings({ SCIM_RATE_LIMIT_PER_SECOND: '20', COSMOS_ENDPOINT: 'https://elsewhere' });
    expect(merged.get('SCIM_RATE_LIMIT_PER_SECOND')).toBe("'20'");
    expect(merged.get('COSMOS_ENDPOINT')).toBe('cosmosEndpoint');
    expect(tunable.has('SCIM_RATE_LIMIT_PER_SECOND')).toBe(true);
  });

  it('is one azd value, EXTRA_APP_SETTINGS, parsed as a JSON object (empty = none)', () => {
    expect(uncomment(main)).toMatch(/^param extraAppSettings string = ''$/m);
    expect(parameters.extraAppSettings?.value).toBe('${EXTRA_APP_SETTINGS}');
    expect(moduleBody(main, 'resources')).toMatch(
      /extraAppSettings: json\(empty\(extraAppSettings\) \? '\{\}' : extraAppSettings\)/,
    );
    expect(moduleBody(resourcesBicep, 'functionApp')).toMatch(/extraAppSettings: extraAppSettings/);
    expect(uncomment(functionApp)).toMatch(/^\s+appSettings: appSettings$/m);
  });

  it('the check fails when the template drops the extra settings or lets them replace a derived one (negative cases)', () => {
    const dropped = functionApp.replace(', extraSettings)', ')');
    expect(dropped).not.toEqual(functionApp);
    expect(() => deployedSettings({}, dropped)).toThrow(/no longer merges/);
    const unguarded = functionApp.replace(', e => !contains(derivedNames, e.name))', ', e => true)');
    expect(unguarded).not.toEqual(functionApp);
    expect(() => deployedSettings({}, unguarded)).toThrow(/no longer merges/);
  });
});

describe('zones and recovery', () => {
  it('one parameter, off by default, makes Cosmos DB and storage zone redundant', () => {
    expect(uncomment(main)).toMatch(/^param zoneRedundant bool = false$/m);
    expect(parameters.zoneRedundant?.value).toBe('${ZONE_REDUNDANT=false}');
    expect(moduleBody(resourcesBicep, 'cosmos')).toMatch(/zoneRedundant:\s*zoneRedundant/);
    expect(moduleBody(resourcesBicep, 'storage')).toMatch(/zoneRedundant:\s*zoneRedundant/);
    const storage = (on: boolean) =>
      resolve(readInfra('modules/storage.bicep'), { zoneRedundant: on, vnetEnabled: false });
    expect(storage(true)).toMatch(/name: 'Standard_ZRS'/);
    expect(storage(false)).toMatch(/name: 'Standard_LRS'/);
    expect(uncomment(readInfra('modules/cosmos.bicep'))).toMatch(/isZoneRedundant: zoneRedundant/);
  });
});

describe('edge: Front Door with a WAF policy', () => {
  const frontDoor = readInfra('modules/frontdoor.bicep');
  const fd = uncomment(frontDoor);

  it('is optional (None by default), Standard or Premium', () => {
    expect(uncomment(main)).toMatch(/^param frontDoorSku string = 'None'$/m);
    expect(accepts('frontDoorSku', 'Premium_AzureFrontDoor')).toBeUndefined();
    expect(accepts('frontDoorSku', 'Classic_AzureFrontDoor')).toMatch(/not in/);
    expect(uncomment(resourcesBicep)).toMatch(/var frontDoorEnabled = frontDoorSku != 'None'/);
    expect(uncomment(resourcesBicep)).toMatch(/^module frontDoor 'frontdoor\.bicep' = if \(frontDoorEnabled\) \{/m);
    expect(parameters.frontDoorSku?.value).toBe('${FRONT_DOOR_SKU=None}');
  });

  it('blocks a client address above the rate limit, and adds managed rule sets on Premium only', () => {
    const waf = resources(frontDoor).find(
      (r) => r.target === 'Microsoft.Network/FrontDoorWebApplicationFirewallPolicies',
    );
    expect(waf?.body).toMatch(/ruleType: 'RateLimitRule'/);
    expect(waf?.body).toMatch(/rateLimitThreshold: rateLimitPerMinute/);
    expect(waf?.body).toMatch(/rateLimitDurationInMinutes: 1/);
    expect(waf?.body).toMatch(/groupBy: \[\s*\{ variableName: 'SocketAddr' \}\s*\]/);
    expect(waf?.body).toMatch(/mode: 'Prevention'/);
    expect(waf?.body).toMatch(/managedRuleSets: managedRuleSets/);
    expect(resolve(frontDoor, { sku: 'Standard_AzureFrontDoor' })).toMatch(/var managedRuleSets = \[\]/);
    expect(resolve(frontDoor, { sku: 'Premium_AzureFrontDoor' })).toMatch(/ruleSetType: 'Microsoft_DefaultRuleSet'/);
    const policy = resources(frontDoor).find((r) => r.target === 'Microsoft.Cdn/profiles/securityPolicies');
    expect(policy?.body).toMatch(/type: 'WebApplicationFirewall'/);
    expect(policy?.body).toMatch(/wafPolicy: \{\s*id: wafPolicy\.id\s*\}/);
    expect(decoratorsOf(main, 'frontDoorRateLimitPerMinute')).toMatch(/@minValue\(100\)/);
  });

  it("the app accepts only the AzureFrontDoor.Backend service tag with this profile's X-Azure-FDID", () => {
    const app = uncomment(functionApp);
    expect(app).toMatch(/ipSecurityRestrictions: accessRestrictions/);
    expect(app).toMatch(
      /var accessRestrictions = empty\(frontDoorId\) \? \[\] : \[\s*\{\s*name: 'front-door-only'\s*action: 'Allow'\s*priority: 100\s*tag: 'ServiceTag'\s*ipAddress: 'AzureFrontDoor\.Backend'\s*headers: \{\s*'x-azure-fdid': \[\s*frontDoorId\s*\]\s*\}\s*\}\s*\]/,
    );
    expect(moduleBody(resourcesBicep, 'functionApp')).toMatch(
      /frontDoorId: frontDoorEnabled \? frontDoor\.outputs\.frontDoorId : ''/,
    );
    expect(fd).toMatch(/output frontDoorId string = profile\.properties\.frontDoorId/);
  });

  it('PUBLIC_BASE_URL is the Front Door endpoint unless a custom domain is set', () => {
    expect(moduleBody(resourcesBicep, 'functionApp')).toMatch(
      /publicBaseUrl: !empty\(publicBaseUrl\) \? publicBaseUrl : \(frontDoorEnabled \? 'https:\/\/\$\{frontDoor\.outputs\.hostName\}' : ''\)/,
    );
    expect(derived.get('PUBLIC_BASE_URL')).toBe('baseUrl');
    const origin = resources(frontDoor).find((r) => r.target === 'Microsoft.Cdn/profiles/originGroups/origins');
    expect(origin?.body).toMatch(/hostName: originHostName/);
    expect(moduleBody(resourcesBicep, 'frontDoor')).toMatch(
      /originHostName: '\$\{functionAppName\}\.azurewebsites\.net'/,
    );
    const route = resources(frontDoor).find((r) => r.target === 'Microsoft.Cdn/profiles/afdEndpoints/routes');
    expect(route?.body).toMatch(/forwardingProtocol: 'HttpsOnly'/);
    expect(route?.body).not.toMatch(/cacheConfiguration/);
  });
});

describe('cold start and roles', () => {
  it('alwaysReady for the HTTP group is a parameter, 0 by default', () => {
    expect(uncomment(main)).toMatch(/^param alwaysReadyHttp int = 0$/m);
    expect(parameters.alwaysReadyHttp?.value).toBe('${FUNCTION_ALWAYS_READY_HTTP=0}');
    expect(uncomment(functionApp)).toMatch(
      /alwaysReady: alwaysReadyHttp > 0 \? \[\{ name: 'http', instanceCount: alwaysReadyHttp \}\] : \[\]/,
    );
    expect(moduleBody(resourcesBicep, 'functionApp')).toMatch(/alwaysReadyHttp: alwaysReadyHttp/);
  });

  it('maximumInstanceCount accepts the current Flex Consumption range, 1 to 1000', () => {
    expect(accepts('maximumInstanceCount', '1')).toBeUndefined();
    expect(accepts('maximumInstanceCount', '1000')).toBeUndefined();
    expect(accepts('maximumInstanceCount', '1001')).toMatch(/> 1000/);
  });

  it("turning the operator's standing role off removes the assignment after provisioning (both shells)", () => {
    const yaml = fs.readFileSync(path.join(ROOT, 'azure.yaml'), 'utf8').replace(/#.*$/gm, '');
    expect(yaml).toMatch(
      /postprovision:\s*\n\s+posix:\s*\n\s+shell: sh\s*\n\s+run: infra\/scripts\/operator-data-role\.sh\s*\n\s+windows:\s*\n\s+shell: pwsh\s*\n\s+run: infra\/scripts\/operator-data-role\.ps1/,
    );
    for (const file of ['infra/scripts/operator-data-role.sh', 'infra/scripts/operator-data-role.ps1']) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(text).toMatch(/OPERATOR_COSMOS_DATA_ROLE/);
      expect(text).toMatch(/az cosmosdb sql role assignment list/);
      expect(text).toMatch(/\[\?principalId=='\$(\(\$env:)?AZURE_PRINCIPAL_ID\)?'\]\.name/);
      expect(text).toMatch(/az cosmosdb sql role assignment delete/);
    }
    // The outputs the hook reads are written to the azd environment.
    expect(uncomment(main)).toMatch(/^output COSMOS_ACCOUNT_NAME string/m);
    expect(uncomment(main)).toMatch(/^output AZURE_RESOURCE_GROUP string/m);
    expect(deployed(readInfra('modules/roles.bicep'), 'cosmosOperatorRole', { operatorCosmosDataRole: false })).toBe(
      false,
    );
  });
});

describe('the production preset', () => {
  const production = readPreset('presets/production.env');
  const trial = readPreset('presets/trial.env');

  it('sets autoscale, VNet, zones, Front Door, always ready and no standing operator role', () => {
    expect(Object.fromEntries(production)).toMatchObject({
      COSMOS_THROUGHPUT_MODE: 'autoscale',
      VNET_ENABLED: 'true',
      ZONE_REDUNDANT: 'true',
      FRONT_DOOR_SKU: expect.stringMatching(/^(Standard|Premium)_AzureFrontDoor$/),
      FUNCTION_ALWAYS_READY_HTTP: '1',
      OPERATOR_COSMOS_DATA_ROLE: 'false',
    });
  });

  it.each([
    ['presets/production.env', production],
    ['presets/trial.env', trial],
  ])('the template accepts every value of %s', (_file, preset) => {
    expect(preset.size).toBeGreaterThanOrEqual(7);
    for (const [env, value] of preset) {
      const param = paramOfEnv(env);
      expect(`${env} -> ${param ?? 'no parameter'}`).toMatch(/-> \w+$/);
      if (!param) continue;
      if (param === 'extraAppSettings') continue;
      expect(`${env}=${value}: ${accepts(param, value) ?? 'accepted'}`).toBe(`${env}=${value}: accepted`);
    }
  });

  it('the trial preset is the template defaults', () => {
    for (const [env, value] of trial) {
      const param = paramOfEnv(env) ?? '';
      const fromBicep = new RegExp(`^param ${param} \\w+ = (.+)$`, 'm').exec(uncomment(main))?.[1] ?? '';
      expect(`${env}: ${envOf(param)?.fallback}`).toBe(`${env}: ${value}`);
      expect(`${env}: ${literal(fromBicep) ?? fromBicep}`).toBe(`${env}: ${value}`);
    }
  });

  it('its EXTRA_APP_SETTINGS names settings of the table the service accepts, none the template derives', () => {
    const extra = JSON.parse(production.get('EXTRA_APP_SETTINGS') ?? 'null') as Record<string, string>;
    expect(typeof extra).toBe('object');
    for (const [name, value] of Object.entries(extra)) {
      expect(AZURE_SETTINGS.map((r) => r.name)).toContain(name);
      expect(derived.has(name)).toBe(false);
      expect(typeof value).toBe('string');
    }
    // Derived values as deployed (representative), and what the platform sets on every instance.
    const env: Record<string, string> = {
      WEBSITE_INSTANCE_ID: 'a1b2c3',
      WEBSITE_SITE_NAME: 'func-abc',
      PUBLIC_BASE_URL: 'https://fde-abc.z01.azurefd.net',
      COSMOS_ENDPOINT: 'https://cosmos-abc.documents.azure.com:443/',
      COSMOS_DATABASE: 'business-identities',
      SERVICE_CLIENT_ID: 'bbbbbbbb-0000-4000-8000-000000000001',
      GRAPH_CLIENT_ID: 'bbbbbbbb-0000-4000-8000-000000000001',
      GRAPH_CREDENTIAL: 'managedIdentity',
      GRAPH_MANAGED_IDENTITY_CLIENT_ID: 'cccccccc-0000-4000-8000-000000000001',
      BACKGROUND_QUEUE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
      KEY_VAULT_URL: 'https://kv-abc.vault.azure.net/',
    };
    for (const [name, value] of deployedSettings(extra)) {
      const text = literal(value);
      if (text !== undefined) env[name] = text;
    }
    const s = loadSettings(env);
    expect(s.bulkRequestUnitsPerSecond).toBe(Number(extra.BULK_REQUEST_UNITS_PER_SECOND));
  });

  it('a value the template refuses fails the check (negative cases)', () => {
    expect(accepts('cosmosThroughputMode', 'provisioned')).toMatch(/not in/);
    expect(accepts('alwaysReadyHttp', '-1')).toMatch(/< 0/);
    expect(accepts('vnetEnabled', 'yes')).toMatch(/not a bool/);
    expect(paramOfEnv('NOT_A_TEMPLATE_VALUE')).toBeUndefined();
  });
});

describe('docs/operations.md says it', () => {
  const operations = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');

  it('the provider step, the production preset, RPO/RTO per mode, the log volume and the cost tables', () => {
    expect(operations).toMatch(/\*\*Resource providers\.\*\*[\s\S]*`Microsoft\.App`[\s\S]*preprovision hook/);
    expect(operations).toContain('### The production preset');
    expect(operations).toContain('infra/presets/production.env');
    expect(operations).toContain('### Recovery targets (RPO, RTO)');
    expect(operations).toMatch(
      /\| failure \| trial \(serverless, one zone\) \| production preset \(autoscale, `ZONE_REDUNDANT=true`\) \|/,
    );
    expect(operations).toMatch(/\*\*about 2 GB a day at 10 requests a second, about 20 GB a day at 100\*\*/);
    expect(operations).toContain('<!-- cost-model:start (npm run cost) -->');
    expect(operations).toContain('### Edge: Front Door and WAF');
    expect(operations).toContain('`EXTRA_APP_SETTINGS`');
  });

  it('no longer says what the issue found stale', () => {
    expect(operations).not.toMatch(/five or six/);
    expect(operations).not.toMatch(/removes nothing by itself/);
    expect(operations).not.toMatch(/40 to 1000|40–1000/);
    expect(operations).not.toMatch(/every trace is kept/i);
    expect(operations).not.toMatch(/the containers share the \*\*database's\*\* throughput/);
    const security = fs.readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8');
    expect(security).not.toMatch(/about a third/);
    expect(security).not.toMatch(/fixed 5,000 RU\/s/);
    expect(security).toContain('https://learn.microsoft.com/azure/cosmos-db/priority-based-execution#limitations');
  });
});

describe('a host that does not run at all', () => {
  it('is seen by an optional availability test of /health on the public address, with an alert', () => {
    expect(uncomment(main)).toMatch(/^param availabilityTest bool = false$/m);
    expect(parameters.availabilityTest?.value).toBe('${AVAILABILITY_TEST=false}');
    expect(readPreset('presets/production.env').get('AVAILABILITY_TEST')).toBe('true');
    expect(deployed(diagnostics, 'webTest', { availabilityTest: false })).toBe(false);
    expect(deployed(diagnostics, 'availabilityAlert', { availabilityTest: true })).toBe(true);
    const test = resources(diagnostics).find((r) => r.target === 'Microsoft.Insights/webtests');
    expect(test?.body).toMatch(/RequestUrl: '\$\{publicUrl\}\/health'/);
    expect(test?.body).toMatch(/Kind: 'standard'/);
    expect(test?.body).toMatch(/'hidden-link:\$\{applicationInsights\.id\}': 'Resource'/);
    const alert = resources(diagnostics).find((r) => r.symbol === 'availabilityAlert');
    expect(alert?.body).toMatch(/'odata\.type': 'Microsoft\.Azure\.Monitor\.WebtestLocationAvailabilityCriteria'/);
    expect(alert?.body).toMatch(/failedLocationCount: 2/);
    expect(uncomment(resourcesBicep)).toMatch(
      /var publicUrl = !empty\(publicBaseUrl\) \? publicBaseUrl : \(frontDoorEnabled \? 'https:\/\/\$\{frontDoor\.outputs\.hostName\}' : 'https:\/\/\$\{functionAppName\}\.azurewebsites\.net'\)/,
    );
    expect(moduleBody(resourcesBicep, 'diagnostics')).toMatch(/publicUrl: publicUrl/);
  });
});
