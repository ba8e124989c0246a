/**
 * The local stack: Cosmos-compatible server, Azurite's queue service, identity-provider, directory and
 * Key Vault stand-ins, and the dev host serving every function. `npm start` runs it on fixed ports; the
 * integration tests start it in-process on random free ports.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startLocalCosmos, LOCAL_COSMOS_KEY, type LocalCosmos } from './cosmosServer';
import type { CosmosMode, ThroughputUsage } from './cosmos/throughput';
import { startLocalQueues } from './localQueues';
import { startIdpStandIn, type IdpStandIn } from './idpStandIn';
import { startDirectoryStandIn, type DirectoryStandIn } from './directoryStandIn';
import { startKeyVaultStandIn, type KeyVaultStandIn } from './keyVaultStandIn';
import { requireFunctionFolder, startDevHost, type DevHost, type HostLog } from './host';
import {
  DEV_CLIENTS,
  DEV_CONSOLE_CLIENT_ID,
  DEV_CONSOLE_USERS,
  DEV_DIRECTORY_USERS,
  DEV_TENANT_ID,
  SERVICE_APP_ID_URI,
  SERVICE_GRAPH_CLIENT,
  UNREGISTERED_TENANT_ID,
  type DevClient,
} from './devData';
import { disposeServices, services } from '../lib/services';
import { BULK_BUDGET_SETTINGS, bulkBudgetsFor } from './bulkBudgets';

export interface StackOptions {
  ports?: Partial<{ host: number; idp: number; directory: number; cosmos: number; queues: number; keyVault: number }>;
  /** Extra environment settings for the service (e.g. RETENTION_INACTIVE_DAYS). */
  env?: Record<string, string>;
  runTimersOnSchedule?: boolean;
  log?: HostLog;
  /** Folder the local Cosmos engine keeps its data in; without it the engine starts empty, in memory (tests, benchmarks). */
  cosmosDataDir?: string;
  /** Request units per second each container of the local engine serves before answering 429; undefined = unlimited. */
  cosmosRuPerSecond?: number;
  /**
   * The account the local engine stands for (DEV_COSMOS_MODE): `serverless` (default, the template's default
   * account) ignores request priority as Azure does there; `provisioned` throttles low priority first.
   */
  cosmosMode?: CosmosMode;
  /** File the identity-provider stand-in keeps its signing key in; without it each start has a new key. */
  idpKeyFile?: string;
  /** File the Key Vault stand-in keeps its keys in; default beside the engine's data (none in memory). */
  keyVaultFile?: string;
  /** Replaces the app's host.json (e.g. quicker queue retries in a test). */
  hostJson?: unknown;
  /** Where the function modules are: the TypeScript sources (tests) or the build output. */
  functions?: { dir: string; extension: '.ts' | '.js' };
}

export interface LocalStack {
  host: DevHost;
  idp: IdpStandIn;
  directory: DirectoryStandIn;
  /** The Key Vault stand-in holding the key that wraps the tenants' data keys (KEY_VAULT_URL). */
  keyVault: KeyVaultStandIn;
  cosmosEndpoint: string;
  queueEndpoint: string;
  /** Documents the local engine loaded from its data folder at start (0 in memory or with an external account). */
  cosmosLoadedDocuments: number;
  /** Request units the local engine charged and requests it throttled (zeros with an external account). */
  cosmosRequestUnits(): ThroughputUsage;
  /** The local engine's account mode (undefined with an external account). */
  cosmosMode: CosmosMode | undefined;
  /** Queries the local engine's indexing policies could not serve so far (empty with an external Cosmos DB). */
  cosmosIndexGaps(): Array<{ container: string; query: string; gaps: string[] }>;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const SETTINGS_WE_SET = [
  'PUBLIC_BASE_URL',
  'COSMOS_ENDPOINT',
  'COSMOS_KEY',
  'COSMOS_DATABASE',
  'AUTH_AUTHORITY',
  'SERVICE_APP_ID_URI',
  'GRAPH_BASE_URL',
  'KEY_VAULT_URL',
  'GRAPH_CREDENTIAL',
  'GRAPH_CLIENT_ID',
  'GRAPH_CLIENT_SECRET',
  'GRAPHQL_INTROSPECTION',
  'BACKGROUND_QUEUE',
  'CONSOLE_CLIENT_ID',
];

export function defaultFunctions(): { dir: string; extension: '.ts' | '.js' } {
  // Compiled: dist/devhost -> dist/functions; from sources: devhost -> functions.
  const extension = __filename.endsWith('.ts') ? '.ts' : '.js';
  return { dir: path.resolve(__dirname, '..', 'functions'), extension };
}

/** The app's host.json: the nearest one at or above the function folder (the project root, or the package folder). */
export function readHostJson(functionsDir: string): unknown {
  for (let dir = functionsDir; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'host.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (path.dirname(dir) === dir) return {};
  }
}

/**
 * What every function host of the stack shares, started once: the store (or an external account), the queues,
 * the identity provider and the directory; and the service's settings that point at them (also put in this
 * process's environment, so this process can seed the dev data through the service's own code).
 */
export interface SharedParts {
  idp: IdpStandIn;
  directory: DirectoryStandIn;
  keyVault: KeyVaultStandIn;
  cosmos: LocalCosmos | undefined;
  queueEndpoint: string;
  env: Record<string, string>;
  /** Stops what was started, in reverse order, and takes the settings out of this process's environment. */
  stop(): Promise<void>;
}

export async function startSharedParts(options: StackOptions = {}): Promise<SharedParts> {
  const ports = { idp: 0, directory: 0, cosmos: 0, queues: 0, keyVault: 0, ...options.ports };
  const started: Array<() => Promise<void>> = [];
  try {
    let cosmos: LocalCosmos | undefined;
    const externalCosmos = process.env.COSMOS_ENDPOINT;
    if (!externalCosmos) {
      cosmos = await startLocalCosmos({
        port: ports.cosmos,
        dataDir: options.cosmosDataDir,
        ruPerSecond: options.cosmosRuPerSecond,
        mode: options.cosmosMode,
      });
      started.push(() => cosmos!.close());
    }
    const queues = await startLocalQueues(ports.queues);
    started.push(() => queues.close());
    const allClients: DevClient[] = Object.values(DEV_CLIENTS);
    const serviceClients = [DEV_TENANT_ID, UNREGISTERED_TENANT_ID].map((tenantId) => ({
      tenantId,
      clientId: SERVICE_GRAPH_CLIENT.clientId,
      secret: SERVICE_GRAPH_CLIENT.secret,
      roles: [],
    }));
    const idp = await startIdpStandIn({
      port: ports.idp,
      keyFile: options.idpKeyFile,
      users: DEV_CONSOLE_USERS,
      clients: [
        ...allClients.map(({ tenantId, clientId, secret, roles }) => ({ tenantId, clientId, secret, roles })),
        ...serviceClients,
      ],
    });
    started.push(() => idp.close());
    const directory = await startDirectoryStandIn({
      port: ports.directory,
      idpUrl: idp.url,
      seedUsers: DEV_DIRECTORY_USERS.map((userPrincipalName) => ({ tenantId: DEV_TENANT_ID, userPrincipalName })),
    });
    started.push(() => directory.close());
    const keyVault = await startKeyVaultStandIn({
      port: ports.keyVault,
      keys: [options.env?.FIELD_ENCRYPTION_KEY_NAME ?? process.env.FIELD_ENCRYPTION_KEY_NAME ?? 'field-encryption'],
      // Beside the engine's data when it has a folder: a stack started again on the same data unwraps its data keys.
      keyFile:
        options.keyVaultFile ??
        (options.cosmosDataDir ? path.join(options.cosmosDataDir, 'keyvault', 'keys.json') : undefined),
    });
    started.push(() => keyVault.close());

    // Bulk work's request-unit budgets follow the engine's unless set (an external account: the service's defaults).
    const budgetsSet = BULK_BUDGET_SETTINGS.some((k) => options.env?.[k] !== undefined || process.env[k] !== undefined);
    const bulkBudgets = cosmos && !budgetsSet ? bulkBudgetsFor(options.cosmosRuPerSecond) : {};
    const env: Record<string, string> = {
      ...bulkBudgets,
      COSMOS_ENDPOINT: externalCosmos ?? cosmos!.endpoint,
      COSMOS_KEY: externalCosmos ? (process.env.COSMOS_KEY ?? '') : LOCAL_COSMOS_KEY,
      COSMOS_DATABASE: process.env.COSMOS_DATABASE ?? 'business-identities',
      AUTH_AUTHORITY: idp.url,
      SERVICE_APP_ID_URI,
      GRAPH_BASE_URL: directory.url,
      KEY_VAULT_URL: keyVault.url,
      GRAPH_CREDENTIAL: 'clientSecret',
      GRAPH_CLIENT_ID: SERVICE_GRAPH_CLIENT.clientId,
      GRAPH_CLIENT_SECRET: SERVICE_GRAPH_CLIENT.secret,
      GRAPHQL_INTROSPECTION: 'true',
      BACKGROUND_QUEUE: queues.connectionString,
      RETENTION_SCHEDULE: '0 0 2 * * *',
      RESOLVE_PENDING_LINKS_SCHEDULE: '0 */5 * * * *',
      CONSOLE_CLIENT_ID: DEV_CONSOLE_CLIENT_ID,
      ...options.env,
    };
    Object.assign(process.env, env);
    return {
      idp,
      directory,
      keyVault,
      cosmos,
      queueEndpoint: queues.endpoint,
      env,
      stop: async () => {
        disposeServices();
        for (const stop of started.reverse()) await stop();
        for (const k of [...SETTINGS_WE_SET, ...Object.keys(bulkBudgets), ...Object.keys(options.env ?? {})])
          delete process.env[k];
      },
    };
  } catch (err) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw err;
  }
}

/** The console's redirect URI on the identity provider (as on Entra ID), once the public base URL is known. */
export function publishBaseUrl(shared: SharedParts, url: string): void {
  process.env.PUBLIC_BASE_URL = shared.env.PUBLIC_BASE_URL = url.replace('127.0.0.1', 'localhost');
  shared.idp.registerSpa({ clientId: DEV_CONSOLE_CLIENT_ID, redirectUris: [`${shared.env.PUBLIC_BASE_URL}/console/`] });
}

/** The stack as its users see it, over the shared parts and the host (or the fleet's front). */
export function stackOf(shared: SharedParts, host: DevHost, stopHost: () => Promise<void>): LocalStack {
  const cosmos = shared.cosmos;
  return {
    host,
    idp: shared.idp,
    directory: shared.directory,
    keyVault: shared.keyVault,
    cosmosEndpoint: shared.env.COSMOS_ENDPOINT ?? '',
    queueEndpoint: shared.queueEndpoint,
    cosmosLoadedDocuments: cosmos?.loadedDocuments ?? 0,
    cosmosRequestUnits: () =>
      cosmos?.requestUnits() ?? {
        charged: 0,
        requests: 0,
        throttled: 0,
        lowRequests: 0,
        lowThrottled: 0,
        lowCharged: 0,
        byContainer: {},
      },
    cosmosIndexGaps: () => cosmos?.indexGaps() ?? [],
    cosmosMode: cosmos?.mode(),
    env: shared.env,
    stop: async () => {
      disposeServices();
      await stopHost();
      await shared.stop();
    },
  };
}

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const log: HostLog = options.log ?? (() => undefined);
  const shared = await startSharedParts(options);
  let host: DevHost | undefined;
  try {
    const fns = options.functions ?? defaultFunctions();
    host = await startDevHost({
      port: options.ports?.host ?? 0,
      load: () => requireFunctionFolder(fns.dir, fns.extension),
      runTimersOnSchedule: options.runTimersOnSchedule ?? false,
      hostJson: options.hostJson ?? readHostJson(fns.dir),
      log,
    });
    publishBaseUrl(shared, host.url);
    disposeServices();
    await seedDevData();
    const started = host;
    return stackOf(shared, started, () => started.close());
  } catch (err) {
    await host?.close().catch(() => undefined);
    await shared.stop().catch(() => undefined);
    throw err;
  }
}

/** Seeds the registered tenant and the dev SCIM integrations through the service's own code paths. */
export async function seedDevData(): Promise<void> {
  const svc = services();
  await svc.store.ensureSchema();
  await svc.tenants.register(DEV_TENANT_ID);
  const actor = { tenantId: DEV_TENANT_ID, kind: 'system' as const, id: 'local-stack-seed' };
  for (const client of Object.values(DEV_CLIENTS) as DevClient[]) {
    if (!client.scimIntegration) continue;
    const existing = await svc.integrations.findByClientId(client.tenantId, client.clientId);
    if (!existing)
      await svc.integrations.create(
        client.tenantId,
        { displayName: client.scimIntegration, clientId: client.clientId },
        actor,
      );
  }
}
