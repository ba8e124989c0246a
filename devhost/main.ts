/* `npm start`: the local stack on fixed ports (overridable by env), with a banner. */
import path from 'node:path';
import { installFunctionsCore } from './installFunctionsCore';
import { stopOnSignalOrParentExit } from './lifetime';
import { startArgs, START_USAGE } from './startArgs';
import { defaultStackRecordPath, recordOf, removeStackRecord, writeStackRecord } from './stackRecord';
import { COSMOS_MODES, type CosmosMode } from './cosmos/throughput';

const args = startArgs(process.argv.slice(2));
if (args.kind === 'help') {
  console.log(START_USAGE);
  process.exit(0);
}
if (args.kind === 'refused') {
  console.error(args.message);
  process.exit(2);
}

installFunctionsCore();

import type * as StackModule from './stack';
import type * as FleetModule from './fleet';
import type * as DevDataModule from './devData';

// Loaded after the core API is in place, so @azure/functions registers with the dev host.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startLocalStack } = require('./stack') as typeof StackModule;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const devData = require('./devData') as typeof DevDataModule;

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`Setting ${name} must be a port number`);
    process.exit(1);
  }
  return n;
}

/** `--in-memory` or DEV_COSMOS_IN_MEMORY=true: start empty and keep nothing; otherwise data lives in DEV_COSMOS_DATA_DIR (.local/cosmos). */
function inMemory(): boolean {
  return (args.kind === 'start' && args.inMemory) || process.env.DEV_COSMOS_IN_MEMORY === 'true';
}

function cosmosDataDir(): string | undefined {
  if (inMemory()) return undefined;
  return path.resolve(process.env.DEV_COSMOS_DATA_DIR || path.join('.local', 'cosmos'));
}

/** DEV_COSMOS_RU_PER_SECOND: request units per second per container before the engine answers 429 (unset = unlimited). */
function cosmosRuPerSecond(): number | undefined {
  const raw = process.env.DEV_COSMOS_RU_PER_SECOND;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    console.error('Setting DEV_COSMOS_RU_PER_SECOND must be a positive number of request units per second');
    process.exit(1);
  }
  return n;
}

/** DEV_COSMOS_MODE: the account the engine stands for, `serverless` (default) or `provisioned`. */
function cosmosMode(): CosmosMode {
  const raw = (process.env.DEV_COSMOS_MODE ?? '').trim().toLowerCase();
  if (raw === '') return 'serverless';
  const mode = COSMOS_MODES.find((m) => m === raw);
  if (!mode) {
    console.error(`Setting DEV_COSMOS_MODE must be one of ${COSMOS_MODES.join(', ')}`);
    process.exit(1);
  }
  return mode;
}

async function main(): Promise<void> {
  const started = Date.now();
  const externalCosmos = Boolean(process.env.COSMOS_ENDPOINT);
  const dataDir = externalCosmos ? undefined : cosmosDataDir();
  const ruPerSecond = externalCosmos ? undefined : cosmosRuPerSecond();
  const mode = externalCosmos ? undefined : cosmosMode();
  const {
    DEFAULT_PORTS,
    DEV_CLIENTS,
    DEV_CONSOLE_USERS,
    DEV_TENANT_ID,
    SERVICE_SCOPE,
    UNREGISTERED_TENANT_ID,
    DEV_DIRECTORY_USERS,
  } = devData;
  const instances = args.kind === 'start' ? args.instances : 1;
  const options: StackModule.StackOptions = {
    ports: {
      host: port('DEV_HOST_PORT', DEFAULT_PORTS.host),
      idp: port('DEV_IDP_PORT', DEFAULT_PORTS.idp),
      directory: port('DEV_DIRECTORY_PORT', DEFAULT_PORTS.directory),
      keyVault: port('DEV_KEY_VAULT_PORT', DEFAULT_PORTS.keyVault),
      cosmos: port('DEV_COSMOS_PORT', DEFAULT_PORTS.cosmos),
      queues: port('DEV_QUEUE_PORT', DEFAULT_PORTS.queues),
    },
    cosmosDataDir: dataDir,
    cosmosRuPerSecond: ruPerSecond,
    cosmosMode: mode,
    // Kept beside the data unless the stack runs in memory, so tokens outlive a restart as Entra's do.
    idpKeyFile: inMemory() ? undefined : path.resolve('.local', 'idp', 'signing-key.pem'),
    // The key that wraps the tenants' data keys must outlive a restart as the store does.
    keyVaultFile: inMemory() ? undefined : path.resolve('.local', 'keyvault', 'keys.json'),
    runTimersOnSchedule: true,
    log: (level, message) => (level === 'error' ? console.error : console.log)(`[host] ${message}`),
  };
  // One instance: the dev host in this process, as always. More: each in a process of its own, behind a front.
  const fleet =
    instances > 1
      ? // eslint-disable-next-line @typescript-eslint/no-require-imports
        await (require('./fleet') as typeof FleetModule).startLocalFleet({ ...options, instances })
      : undefined;
  const stack = fleet ?? (await startLocalStack(options));
  const base = stack.env.PUBLIC_BASE_URL ?? stack.host.url;
  const recordFile = defaultStackRecordPath();
  writeStackRecord(recordFile, recordOf(stack));
  const lines = [
    '',
    'Business Identity Provisioning Service — local stack',
    '',
    `  Console             ${base}/console/   (sign in as ${DEV_CONSOLE_USERS.map((u) => u.upn).join(' or ')}; the second has no Admin role)`,
    `  Functions host      ${base}   (SCIM ${base}/scim/v2, GraphQL ${base}/graphql, health ${base}/health)`,
    ...(fleet
      ? [
          `                      the front: each request to the next of ${instances} instances in turn (x-dev-instance names it)`,
          ...fleet
            .instances()
            .map(
              (i) =>
                `    instance ${i.index}        ${i.url}   (process ${i.pid}, WEBSITE_INSTANCE_ID ${i.instanceId.slice(0, 12)}…${i.index === fleet.timerOwner() ? '; runs the timers' : ''})`,
            ),
        ]
      : []),
    `  Identity provider   ${stack.idp.url}   (token: POST /{tenantId}/oauth2/v2.0/token)`,
    `  Directory (Graph)   ${stack.directory.url}/v1.0`,
    `  Key Vault           ${stack.keyVault.url}   (stand-in: the key that wraps each tenant's data key)`,
    `  Cosmos DB           ${stack.cosmosEndpoint}   (${externalCosmos ? 'external account' : dataDir ? `data in ${dataDir}, ${stack.cosmosLoadedDocuments} documents loaded` : 'in memory, starts empty'}${mode ? `; ${mode}${mode === 'serverless' ? ', request priority ignored' : ', low priority throttled first'}` : ''}${ruPerSecond ? `; ${ruPerSecond} RU/s per container, 429 beyond` : ''})`,
    `  Queues (Azurite)    ${stack.queueEndpoint}`,
    '',
    `  HTTP functions: ${stack.host.functions.http.join(', ')}`,
    `  Timers (run now with POST ${base}/admin/functions/<name>): ${stack.host.functions.timers.join(', ') || '(none)'}`,
    `  Queue functions: ${stack.host.functions.queues.join(', ') || '(none)'}`,
    '',
    `  Registered tenant    ${DEV_TENANT_ID}`,
    `  Unregistered tenant  ${UNREGISTERED_TENANT_ID}`,
    `  Scope                ${SERVICE_SCOPE}`,
    '  Clients:',
    ...Object.values(DEV_CLIENTS).map(
      (c) =>
        `    ${c.name.padEnd(12)} client_id ${c.clientId}  secret ${c.secret}${c.roles.length ? `  roles ${c.roles.join(',')}` : ''}${'scimIntegration' in c ? `  SCIM integration "${c.scimIntegration}"` : ''}`,
    ),
    `  Directory users: ${DEV_DIRECTORY_USERS.join(', ')}`,
    '',
    '  Get a SCIM token and call the API:',
    `    TOKEN=$(curl -s -X POST ${stack.idp.url}/${DEV_TENANT_ID}/oauth2/v2.0/token \\`,
    `      --data-urlencode grant_type=client_credentials --data-urlencode client_id=${DEV_CLIENTS.scim.clientId} \\`,
    `      --data-urlencode client_secret=${DEV_CLIENTS.scim.secret} --data-urlencode scope=${SERVICE_SCOPE} | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `    curl -s ${base}/scim/v2/Users -H "Authorization: Bearer $TOKEN"`,
    '',
    `  Recorded in ${recordFile} for \`npm run ops\` and \`npm run import -- --local\`; examples in examples/.`,
    '',
    `  Ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Press Ctrl+C to stop.`,
    '',
  ];
  console.log(lines.join('\n'));
  // Under `npm start` npm is the parent: when it goes, however it was stopped, the stack goes too.
  stopOnSignalOrParentExit(
    async () => {
      removeStackRecord(recordFile);
      await stack.stop();
    },
    {
      watchParent: process.env.npm_lifecycle_event !== undefined,
      log: (m) => console.log(`[host] ${m}`),
    },
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
