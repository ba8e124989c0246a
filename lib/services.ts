/**
 * Composition root: the service objects of this process, created on first use from the
 * settings. Function modules call `services()` inside handlers, never at load time.
 */
import { resetSettings, settings, type Settings } from './config/settings';
import { createStore, type Store } from './store/store';
import { RequestUnitPacer } from './store/requestUnitPacing';
import { TenantRegistry } from './tenants/tenantRegistry';
import { ScimIntegrations } from './integrations/scimIntegrations';
import { AuditLog } from './audit/auditLog';
import { createTokenValidator, type TokenValidator } from './auth/tokenValidator';
import { rememberVerifiedTokens } from './auth/verifiedTokens';
import { IdentityRepository } from './identities/repository';
import { DirectoryClient } from './directory/directoryClient';
import { createGraphTokenProvider } from './directory/graphTokens';
import { LinkClaims } from './links/claims';
import { LinkService } from './links/linkService';
import { UserLister } from './scim/userList';
import { ScimUsers } from './scim/userOperations';
import { Importer } from './imports/importer';
import { Associator } from './imports/association';
import { RunHistory } from './imports/runHistory';
import { StagedImports } from './imports/stagedImports';
import { AdminLinks } from './links/adminLinks';
import { createWorkQueue, type WorkQueue } from './background/workQueue';
import { FairUnits } from './background/fairUnits';
import type { WorkDeps } from './background/runWork';
import type { ImportJobDeps } from './imports/importJob';
import { RefusalLog } from './activity/refusals';
import { budgets, limiters } from './limits/budgets';
import { FleetShares, leaseHolderId, type LeaseDoc } from './store/fleetLeases';
import type { BodyBytesBudget } from './limits/bodyBytes';
import type { InFlightLimiter } from './limits/inFlight';
import type { RateLimiter } from './limits/rateLimiter';
import type { RefusalPacer } from './limits/refusalPacing';
import type { ScimAdmission } from './limits/scimAdmission';
import type { LogLevel } from './log/logger';
import { enableFieldEncryption } from './crypto/fieldEncryption';
import type { FieldCrypto } from './crypto/fieldCrypto';

export interface Services {
  settings: Settings;
  store: Store;
  tenants: TenantRegistry;
  integrations: ScimIntegrations;
  audit: AuditLog;
  tokens: TokenValidator;
  identities: IdentityRepository;
  directory: DirectoryClient;
  claims: LinkClaims;
  links: LinkService;
  userLister: UserLister;
  scimUsers: ScimUsers;
  importer: Importer;
  associator: Associator;
  runs: RunHistory;
  /** Imports of sets of any size, sent in parts and applied by a queued job. */
  stagedImports: StagedImports;
  /** The instance's units of background work, shared fairly among tenants (BACKGROUND_UNITS_PER_INSTANCE). */
  backgroundUnits: FairUnits;
  adminLinks: AdminLinks;
  /** SCIM requests per integration and per tenant (all its integrations together): rate and in flight. */
  scimAdmission: ScimAdmission;
  /** Requests in flight per tenant's GraphQL callers. */
  inFlight: InFlightLimiter;
  /** GraphQL requests per tenant. */
  graphqlRateLimiter: RateLimiter;
  /**
   * Imported identities and associated pairs per tenant per minute: admission of a request before it starts.
   * The store work it causes is paced by request units in the store (store.pacer).
   */
  bulkBudget: RateLimiter;
  workQueue: WorkQueue;
  /** Refusals of invalid tokens, and of callers over a budget, paced under a flood (lib/limits/refusalPacing.ts). */
  authenticationRefusals: RefusalPacer;
  busyRefusals: RefusalPacer;
  /** GraphQL body bytes held at once by the instance, and by each tenant. */
  graphqlBodyBytes: BodyBytesBudget;
  /** Refused SCIM requests recorded per integration (its activity), bounded per tenant for the fleet. */
  refusals: RefusalLog;
  /** This instance's leased shares of the fleet's budgets (lib/limits/fleetShares.ts). */
  fleet: FleetShares;
  /** Field encryption of personal and document numbers (lib/crypto); undefined without KEY_VAULT_URL (local only). */
  fieldCrypto: FieldCrypto | undefined;
}

let current: Services | undefined;

export function services(): Services {
  if (current) return current;
  const s = settings();
  // The leases live in the store, and the store's bulk pacing admits against them: the store is named lazily.
  const named: { store?: Store } = {};
  const fleet = new FleetShares(() => named.store!.collection<LeaseDoc>('leases'), {
    renewMs: s.fleetLeaseRenewMs,
    leaseMs: s.fleetLeaseMs,
    instanceId: leaseHolderId(),
  });
  const store = createStore(
    s.cosmos,
    new RequestUnitPacer(
      {
        tenantRequestUnitsPerSecond: s.bulkRequestUnitsPerSecondPerTenant,
        instanceRequestUnitsPerSecond: s.bulkRequestUnitsPerSecond,
      },
      undefined,
      fleet,
    ),
  );
  named.store = store;
  const fieldCrypto = enableFieldEncryption(store, s.fieldEncryption);
  const audit = new AuditLog(store);
  const identities = new IdentityRepository(store);
  const directory = new DirectoryClient(s.graph.baseUrl, createGraphTokenProvider(s));
  const claims = new LinkClaims(store);
  const links = new LinkService(claims, directory, audit);
  const tenants = new TenantRegistry(store);
  const runs = new RunHistory(store);
  const workQueue = createWorkQueue(s.backgroundQueue);
  current = {
    identities,
    directory,
    claims,
    links,
    userLister: new UserLister(store),
    scimUsers: new ScimUsers(identities, links),
    importer: new Importer(store, claims, s.importMaxDeleteRatio, s.importMaxIdentities),
    associator: new Associator(store, directory, claims, audit, s.associationMaxPairs),
    runs,
    stagedImports: new StagedImports(store, runs, workQueue, {
      maxIdentitiesPerPart: s.importPartMaxIdentities,
      maxIdentities: s.importMaxIdentities,
      ttlSeconds: s.stagedImportTtlSeconds,
      perTenant: { maxOpen: s.importMaxOpenPerTenant, maxDryRuns: s.importMaxDryRunsPerTenant },
    }),
    backgroundUnits: new FairUnits(s.backgroundUnitsPerInstance),
    adminLinks: new AdminLinks(store, directory, claims, audit),
    ...limiters(budgets(s), fleet),
    workQueue,
    refusals: new RefusalLog(
      store,
      {
        retentionDays: s.activity.retentionDays,
        perMinute: s.activity.refusalsPerMinute,
        tenantPerMinute: s.activity.tenantRefusalsPerMinute,
      },
      Date.now,
      undefined,
      fleet,
    ),
    fleet,
    settings: s,
    store,
    fieldCrypto,
    audit,
    tenants,
    integrations: new ScimIntegrations(store, audit, Date.now, s.scimMaxIntegrationsPerTenant),
    tokens: rememberVerifiedTokens(
      createTokenValidator({
        authority: s.auth.authority,
        audiences: s.auth.audiences,
        requireTokenType: s.auth.requireTokenType,
        isRegisteredTenant: (tenantId) => tenants.isRegistered(tenantId),
      }),
      { isRegisteredTenant: (tenantId) => tenants.isRegistered(tenantId) },
    ),
  };
  return current;
}

/** What a unit of background work needs (see lib/background/runWork.ts). */
export function workDeps(svc: Services): WorkDeps {
  return {
    store: svc.store,
    directory: svc.directory,
    claims: svc.claims,
    queue: svc.workQueue,
    backoff: svc.settings.pendingLinkBackoff,
    retentionInactiveDays: svc.settings.retentionInactiveDays,
    audit: svc.audit,
    imports: importJobDeps(svc),
    units: svc.backgroundUnits,
  };
}

/** What a staged import's job and its resumer need (see lib/imports/importJob.ts). */
export function importJobDeps(svc: Services): ImportJobDeps {
  return {
    store: svc.store,
    importer: svc.importer,
    runs: svc.runs,
    queue: svc.workQueue,
    stepWrites: svc.settings.importStepMaxWrites,
    rangeKeys: svc.settings.importStepMaxKeys,
  };
}

/** LOG_LEVEL; 'info' while the settings cannot be read (the failure is reported where they are used). */
export function configuredLogLevel(): LogLevel {
  try {
    return services().settings.logLevel;
  } catch {
    return 'info';
  }
}

/** Drops the process's service objects (the local stack calls it when it stops). */
export function disposeServices(): void {
  current?.fleet.stop();
  current?.store.dispose();
  current = undefined;
  resetSettings();
}
