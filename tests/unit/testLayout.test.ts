/**
 * Unit tests mirror the code they test: tests/unit/<folder>/<module>.test.ts, or <module>.<topic>.test.ts for a
 * second file on one module, tests lib/<folder>/<module>.ts (devhost/, functions/ and scripts/ for tests under
 * tests/unit/devhost/, tests/unit/functions/ and tests/unit/scripts/; tests/support/ for tests under
 * tests/unit/support/, the test doubles' own tests). The
 * exceptions are listed here: tests of files that are not TypeScript modules, and this test.
 *
 * Every lib/ module has a unit test, or is on TESTED_ELSEWHERE with the reason why not: a new module without
 * a unit test fails here until it gets one or is listed. An entry whose module has a unit test now, or is
 * gone, fails too, so the list only shrinks.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const UNIT = path.join(ROOT, 'tests', 'unit');

/** Tests of things that are not TypeScript modules (the Bicep templates, the docs, the lint rules and import graph, package.json), and this file. */
const NOT_MODULES = ['infra/', 'docs/', 'lint/', 'package.test.ts', 'testLayout.test.ts'];

/**
 * lib/ modules without a unit test of their own, by reason. Orchestrators are unit-tested over the in-memory
 * store (tests/support/memoryStore.ts): a module listed under "integration only" is the next candidate.
 */
const TESTED_ELSEWHERE: Record<string, readonly string[]> = {
  /** Builds the service objects from the settings: every integration test starts the stack through it. */
  'composition root': ['lib/services.ts'],
  /** The named queries: tests/unit/store/queries/index.test.ts checks each one's SQL against the indexes it declares and its container's policy. */
  'named queries': [
    'lib/store/queries/activity.ts',
    'lib/store/queries/audit.ts',
    'lib/store/queries/identities.ts',
    'lib/store/queries/imports.ts',
    'lib/store/queries/integrations.ts',
    'lib/store/queries/links.ts',
    'lib/store/queries/namedQuery.ts',
    'lib/store/queries/tenants.ts',
  ],
  /** Interfaces only: the type checker is their test. */
  'types only': ['lib/config/settingsShape.ts', 'lib/links/linkCoordinator.ts', 'lib/scim/scope.ts'],
  /** Asserted through the unit tests of the modules that use them (named after each). */
  'through the unit tests of their users': [
    // The share source of the fleet budgets: tests/unit/limits/budgets.test.ts and tests/unit/store/fleetLeases.test.ts.
    'lib/limits/fleetShares.ts',
    'lib/audit/auditLog.ts', // imports/association, scim/userOperations, links/tenantLinkCycle
    'lib/auth/claimChecks.ts', // auth/tokenValidator
    'lib/identities/countries.ts', // identities/formats
    'lib/identities/model.ts', // every test that builds an identity
    'lib/identities/repository.ts', // imports/importer, scim/userOperations
    'lib/identities/tenantRewrite.ts', // identities/upnKeysBackfill (paging, pacing, maxWrites, changed meanwhile)
    'lib/imports/associationBatches.ts', // imports/association
    'lib/imports/importLease.ts', // imports/importer
    'lib/util/concurrency.ts', // imports/importer, links/tenantLinkCycle
    'lib/links/claims.ts', // imports/association, scim/userOperations, links/tenantLinkCycle
    'lib/links/deltaState.ts', // links/tenantLinkCycle
    'lib/links/directoryChanges.ts', // links/tenantLinkCycle
    'lib/links/linkCheck.ts', // links/tenantLinkCycle
    'lib/links/linkService.ts', // scim/userOperations, links/tenantLinkCycle
    'lib/scim/ifMatch.ts', // scim/userOperations
    'lib/scim/userResource.ts', // scim/patch, scim/userOperations
    'lib/util/domainError.ts', // imports/importer, imports/association
    'lib/util/uuid7.ts', // imports/importer, scim/userOperations
  ],
  /** The Functions seam and the GraphQL wiring: request in, response out, tested over real HTTP by the integration suites. */
  'the request seam, over HTTP': [
    'lib/graphql/context.ts',
    'lib/graphql/errors.ts',
    'lib/http/activityExportHttp.ts',
    'lib/graphql/requestErrors.ts',
    'lib/graphql/server.ts',
    'lib/triggers/backgroundHandlers.ts',
    'lib/http/consoleHttp.ts',
    'lib/http/cors.ts',
    'lib/http/graphqlBody.ts',
    'lib/http/graphqlHttp.ts',
    'lib/http/health.ts',
    'lib/http/scimActor.ts',
    'lib/http/scimDiscoveryHandlers.ts',
    'lib/http/scimHttp.ts',
    'lib/http/scimRefusals.ts',
    'lib/http/scimUsersHandlers.ts',
    'lib/triggers/timer.ts',
  ],
  /** Clients of Microsoft Graph and Azure Storage queues: tested against the local stand-ins by the integration suites (unit tests put tests/support/memoryDirectory.ts in the Graph client's place). */
  'clients of outside services': [
    'lib/background/workQueue.ts',
    'lib/crypto/keyVaultWrapper.ts', // Key Vault, against its stand-in (fieldEncryption)
    'lib/crypto/fieldEncryption.ts', // the wrapper's wiring from the settings (fieldEncryption)
    'lib/directory/directoryClient.ts',
    'lib/directory/directoryTrouble.ts',
    'lib/directory/userDelta.ts',
  ],
  /** The store's counters, request priority and run cursors: asserted against the local engine (storePriority, requestCost, linkClaims). */
  'store internals, through the local engine': [
    'lib/store/metrics.ts',
    'lib/store/priority.ts',
    'lib/store/runCursor.ts',
  ],
  /** Orchestrators tested only through the whole stack so far: next in line for unit tests over the memory store. */
  'integration only': [
    'lib/activity/sourceActivity.ts',
    'lib/crypto/contentHashes.ts', // fieldEncryption: the keyed hash of an import
    'lib/crypto/existingIdentities.ts', // fieldEncryption: a mixed store converted
    'lib/graphql/activityResolvers.ts',
    'lib/graphql/consoleQueries.ts',
    'lib/graphql/resolvers.ts',
    'lib/graphql/sources.ts',
    'lib/identities/manualIdentities.ts',
    'lib/identities/retention.ts',
    'lib/integrations/enabledIntegrations.ts',
    'lib/integrations/scimIntegrations.ts',
    'lib/links/adminLinks.ts',
    'lib/scim/pageCursors.ts',
    'lib/scim/userList.ts',
  ],
  /** Small pure logic without a unit test of its own yet, covered by the integration suites (a unit test is welcome). */
  'small, no unit test yet': [
    'lib/auth/tokenFailureLog.ts',
    'lib/background/deferral.ts',
    'lib/limits/inFlight.ts',
    'lib/limits/rateLimiter.ts',
    'lib/scim/userResponse.ts',
    'lib/util/guid.ts',
    'lib/util/ttlCache.ts',
  ],
};

function filesUnder(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full, ext);
    return e.name.endsWith(ext) ? [path.relative(ROOT, full).split(path.sep).join('/')] : [];
  });
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(full);
    return e.name.endsWith('.test.ts') ? [path.relative(UNIT, full).split(path.sep).join('/')] : [];
  });
}

/** The module a unit test file tests, relative to the repository root. */
export function moduleOf(testFile: string): string {
  const dir = path.posix.dirname(testFile);
  const moduleName = path.posix.basename(testFile, '.test.ts').split('.')[0] ?? '';
  const folder = dir === '.' ? '' : `${dir}/`;
  if (folder.startsWith('support/')) return `tests/${folder}${moduleName}.ts`;
  const outsideLib = ['devhost/', 'functions/', 'scripts/'].some((top) => folder.startsWith(top));
  return outsideLib ? `${folder}${moduleName}.ts` : `lib/${folder}${moduleName}.ts`;
}

describe('unit test layout', () => {
  it('maps a test file to the module it tests', () => {
    expect(moduleOf('scim/userInput.test.ts')).toBe('lib/scim/userInput.ts');
    expect(moduleOf('config/settings.productionAudience.test.ts')).toBe('lib/config/settings.ts');
    expect(moduleOf('devhost/cosmos/journal.test.ts')).toBe('devhost/cosmos/journal.ts');
    expect(moduleOf('functions/scimUsers.test.ts')).toBe('functions/scimUsers.ts');
    expect(moduleOf('support/memoryStore.test.ts')).toBe('tests/support/memoryStore.ts');
  });

  it('every unit test file mirrors a module', () => {
    const files = testFiles(UNIT).filter(
      (f) => !NOT_MODULES.some((x) => (x.endsWith('/') ? f.startsWith(x) : f === x)),
    );
    expect(files.length).toBeGreaterThan(20);
    const strays = files.filter((f) => !fs.existsSync(path.join(ROOT, moduleOf(f))));
    expect(strays).toEqual([]);
  });

  describe('every lib/ module has a unit test or is listed with the reason why not', () => {
    const tested = new Set(testFiles(UNIT).map(moduleOf));
    const listed = Object.values(TESTED_ELSEWHERE).flat();

    it('no lib/ module is left without either', () => {
      const untested = filesUnder(path.join(ROOT, 'lib'), '.ts').filter((f) => !tested.has(f) && !listed.includes(f));
      expect(untested).toEqual([]);
    });

    it('the list names existing modules without a unit test, once each', () => {
      expect(listed.filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
      expect(listed.filter((f) => tested.has(f))).toEqual([]);
      expect(listed.filter((f, i) => listed.indexOf(f) !== i)).toEqual([]);
    });
  });
});
