import type { ScimIntegrationRecord } from '../integrations/scimIntegrations';
import type { GraphQLContext } from './context';
import { GraphQLScalarType, Kind, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import { associationIncomplete, notAuthorized, serviceBusy, toGraphQLError } from './errors';
import { identityView } from './identityView';
import { assertCustomSourceName, sourcePartition } from './sources';
import type { ImportIdentityInput } from '../imports/importInput';
import type { AssociationInput, AssociationOutcome } from '../imports/association';
import { validateSourceName } from '../imports/importInput';
import { MAX_LISTED_RUNS, type RunEnd, type RunView } from '../imports/runHistory';
import {
  createManualIdentity,
  deleteManualIdentity,
  updateManualIdentity,
  type ManualIdentityChanges,
} from '../identities/manualIdentities';
import { detailedIdentity, sourceSummaries } from './consoleQueries';
import type { IdentityDoc, LinkStatus } from '../identities/model';
import { upnKey } from '../identities/upn';
import { badInput } from '../util/domainError';
import { atLowPriority } from '../store/priority';
import { CODE } from '../util/errorCodes';
import { consolePage } from '../store/queries/identities';

type Args = Record<string, unknown>;
type Resolver = (parent: unknown, args: Args, ctx: GraphQLContext, info: GraphQLResolveInfo) => Promise<unknown>;

/** Every root field runs as an administrator and maps domain failures to coded GraphQL errors. */
export function adminField(
  run: (
    args: Args,
    ctx: GraphQLContext,
    admin: Awaited<ReturnType<GraphQLContext['admin']>>,
    info: GraphQLResolveInfo,
  ) => Promise<unknown>,
): Resolver {
  return async (_parent, args, ctx, info) => {
    try {
      const admin = await ctx.admin();
      return await run(args, ctx, admin, info);
    } catch (err) {
      throw toGraphQLError(err);
    }
  };
}

/** A root field for application tokens with the Admin role only (a staged import is a job's work, not a console user's). */
function appAdminField(run: Parameters<typeof adminField>[0]): Resolver {
  return adminField(async (args, ctx, admin, info) => {
    if (admin.caller.kind !== 'app') throw notAuthorized();
    return run(args, ctx, admin, info);
  });
}

const input = (args: Args): Record<string, unknown> => (args.input ?? {}) as Record<string, unknown>;

/** maxDeletedRatio, when given: a share from 0 to 1. */
function deleteRatio(value: unknown): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1))
    throw badInput([{ field: 'input.maxDeletedRatio', problem: 'must be a number from 0 to 1' }]);
  return value;
}

function integrationView(r: ScimIntegrationRecord, ctx: GraphQLContext) {
  return {
    id: r.id,
    displayName: r.displayName,
    clientId: r.clientId,
    enabled: r.enabled,
    scimEndpoint: `${ctx.services.settings.publicBaseUrl}/scim/v2`,
  };
}

/** Dates are checked by the domain validators, which report the index and field without the value. */
const LocalDate = new GraphQLScalarType({
  name: 'LocalDate',
  description: 'A calendar date, YYYY-MM-DD',
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v !== 'string') throw new TypeError('LocalDate must be a string YYYY-MM-DD');
    return v;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('LocalDate must be a string YYYY-MM-DD');
    return ast.value;
  },
});

const MAX_PAGE = 500;

/** Enum values of the schema are the upper-case forms of the stored ones. */
function runView(r: RunView) {
  return { ...r, operation: r.operation.toUpperCase(), status: r.status.toUpperCase() };
}

/** An association that left pairs to send again is recorded failed, with the counts of what it did. */
function associationOutcome(r: AssociationOutcome): RunEnd {
  const associationCounts = {
    associated: r.associated,
    unchanged: r.unchanged,
    unknownExternalIds: r.unknownExternalIds.length,
    unknownUserPrincipalNames: r.unknownUserPrincipalNames.length,
    conflictingUserPrincipalNames: r.conflictingUserPrincipalNames.length,
    notDone: r.sendAgain.length,
  };
  if (r.sendAgain.length === 0) return { associationCounts };
  return {
    associationCounts,
    failure: {
      code: CODE.ASSOCIATION_INCOMPLETE,
      message: `${r.sendAgain.length} pair(s) could not be processed; the caller was told to send them again`,
    },
  };
}

/**
 * The tenant's identities and pairs per minute: a request over the budget is refused SERVICE_BUSY before
 * it starts (an oversized one is refused by its own limit, so it takes nothing here).
 */
async function takeBulkBudget(ctx: GraphQLContext, tenantId: string, items: number, max: number): Promise<void> {
  const wait = ctx.services.bulkBudget.takeUnits(tenantId, Math.min(items, max));
  if (wait > 0) throw serviceBusy(wait);
}

export const resolvers = {
  LocalDate,
  Query: {
    businessIdentities: adminField(async (args, ctx, { caller }) => {
      const { pk, label } = await sourcePartition(ctx.services, caller.tenantId, args.source);
      const first = typeof args.first === 'number' ? args.first : 50;
      if (first < 1 || first > MAX_PAGE)
        throw badInput([{ field: 'first', problem: `must be between 1 and ${MAX_PAGE}` }]);
      const filter = (args.filter ?? {}) as { externalId?: string; linkStatus?: LinkStatus; search?: string };
      // linkStatus arrives as the stored word (linkEnums.ts). Within the source's partition: an externalId, or a UPN asserted or linked, compared by UPN key.
      const query = consolePage(
        pk,
        {
          externalIdKey: filter.externalId || undefined,
          search: filter.search ? { text: filter.search, key: upnKey(filter.search) } : undefined,
          linkStatus: filter.linkStatus || undefined,
          after: typeof args.after === 'string' && args.after ? args.after : undefined,
        },
        first,
      );
      const page = await ctx.services.store
        .collection<IdentityDoc>('identities')
        .page(query, { maxItemCount: first + 1 });
      const nodes = page.items.slice(0, first);
      return {
        nodes: nodes.map((d) => identityView(d, label)),
        endCursor: nodes[nodes.length - 1]?.id ?? null,
        hasNextPage: page.items.length > first,
      };
    }),
    sources: adminField(async (_args, ctx, { caller }) => sourceSummaries(ctx.services, caller.tenantId)),
    businessIdentity: adminField(async (args, ctx, { caller }) => {
      const { pk, label } = await sourcePartition(ctx.services, caller.tenantId, args.source);
      return detailedIdentity(ctx.services, caller.tenantId, pk, label, String(args.id ?? ''));
    }),
    importRuns: adminField(async (args, ctx, { caller }) => {
      const { pk } = await sourcePartition(ctx.services, caller.tenantId, args.source);
      const first = typeof args.first === 'number' ? args.first : 20;
      if (first < 1 || first > MAX_LISTED_RUNS)
        throw badInput([{ field: 'first', problem: `must be between 1 and ${MAX_LISTED_RUNS}` }]);
      return (await ctx.services.runs.list(pk, first)).map(runView);
    }),
    importRun: adminField(async (args, ctx, { caller }) => {
      const r = await ctx.services.runs.get(caller.tenantId, String(args.id));
      return r ? runView(r) : null;
    }),
    stagedImport: adminField(
      async (args, ctx, { caller }) =>
        (await ctx.services.stagedImports.get(caller.tenantId, String(args.importId))) ?? null,
    ),
    scimIntegrations: adminField(async (_args, ctx, { caller }) =>
      (await ctx.services.integrations.list(caller.tenantId)).map((r) => integrationView(r, ctx)),
    ),
    scimIntegration: adminField(async (args, ctx, { caller }) => {
      const r = await ctx.services.integrations.get(caller.tenantId, String(args.id));
      return r ? integrationView(r, ctx) : null;
    }),
  },
  Mutation: {
    createScimIntegration: adminField(async (args, ctx, { caller, actor }) => {
      const { displayName, clientId } = input(args);
      const r = await ctx.services.integrations.create(caller.tenantId, { displayName, clientId }, actor);
      ctx.log.info('scim integration created', { tenantId: caller.tenantId, integrationId: r.id });
      return { scimIntegration: integrationView(r, ctx) };
    }),
    disableScimIntegration: adminField(async (args, ctx, { caller, actor }) => {
      const r = await ctx.services.integrations.setEnabled(caller.tenantId, input(args).id, false, actor);
      ctx.log.info('scim integration disabled', { tenantId: caller.tenantId, integrationId: r.id });
      return { scimIntegration: integrationView(r, ctx) };
    }),
    importBusinessIdentities: adminField(async (args, ctx, { caller }) => {
      const { source, identities, dryRun, maxDeletedRatio } = input(args) as {
        source: unknown;
        identities: ImportIdentityInput[];
        dryRun?: boolean | null;
        maxDeletedRatio?: number | null;
      };
      await assertCustomSourceName(ctx.services, caller.tenantId, source);
      const name = validateSourceName(source);
      const ratio = deleteRatio(maxDeletedRatio);
      const request = { dryRun: dryRun === true, ...(ratio !== undefined ? { maxDeletedRatio: ratio } : {}) };
      await takeBulkBudget(ctx, caller.tenantId, identities.length, ctx.services.settings.bulkItemsPerMinute);
      const started = Date.now();
      // Bulk work runs at low priority in the store: SCIM and administrator requests are served first.
      const { result: counts, runId } = await atLowPriority(
        () =>
          ctx.services.runs.record(
            {
              tenantId: caller.tenantId,
              source: name,
              operation: 'import',
              clientId: caller.clientId,
              correlationId: ctx.correlationId,
              submitted: identities.length,
              dryRun: request.dryRun,
            },
            ctx.log,
            (run) =>
              ctx.services.importer.import(caller.tenantId, name, identities, {
                runId: run.id,
                counts: run.importCounts,
                ...request,
              }),
            (importCounts) => ({ importCounts }),
          ),
        caller.tenantId,
      );
      // Counts only: a large deleted count can reveal a broken source export.
      ctx.log.info('import finished', {
        tenantId: caller.tenantId,
        runId,
        identities: identities.length,
        dryRun: request.dryRun,
        ...counts,
        durationMs: Date.now() - started,
      });
      return { ...counts, dryRun: request.dryRun, runId };
    }),
    startImport: appAdminField(async (args, ctx, { caller }) => {
      const { source, dryRun, maxDeletedRatio } = input(args);
      await assertCustomSourceName(ctx.services, caller.tenantId, source);
      const name = validateSourceName(source);
      const ratio = deleteRatio(maxDeletedRatio);
      const started = await ctx.services.stagedImports.start(
        { tenantId: caller.tenantId, clientId: caller.clientId, correlationId: ctx.correlationId },
        name,
        { dryRun: dryRun === true, ...(ratio !== undefined ? { maxDeletedRatio: ratio } : {}) },
      );
      ctx.log.info('staged import started', { tenantId: caller.tenantId, importId: started.importId });
      return started;
    }),
    addImportPart: appAdminField(async (args, ctx, { caller }) => {
      const { importId, sequence, identities } = input(args) as {
        importId: unknown;
        sequence: unknown;
        identities: ImportIdentityInput[];
      };
      await takeBulkBudget(ctx, caller.tenantId, identities.length, ctx.services.settings.bulkItemsPerMinute);
      // Storing a part is bulk work: at low priority, paced with the tenant's other bulk work.
      return atLowPriority(
        () => ctx.services.stagedImports.addPart(caller.tenantId, { importId, sequence, identities }),
        caller.tenantId,
      );
    }),
    completeImport: appAdminField(async (args, ctx, { caller }) => {
      const completed = await ctx.services.stagedImports.complete(
        { tenantId: caller.tenantId, clientId: caller.clientId, correlationId: ctx.correlationId },
        input(args).importId,
      );
      ctx.log.info('staged import completed', {
        tenantId: caller.tenantId,
        importId: completed.importId,
        runId: completed.runId,
        status: completed.status,
      });
      return { ...completed, status: completed.status.toUpperCase() };
    }),
    associateBusinessIdentities: adminField(async (args, ctx, { caller, actor }, info) => {
      const { source, associations } = input(args) as { source: unknown; associations: AssociationInput[] };
      await assertCustomSourceName(ctx.services, caller.tenantId, source);
      const name = validateSourceName(source);
      await takeBulkBudget(ctx, caller.tenantId, associations.length, ctx.services.settings.associationMaxPairs);
      const { result: r, runId } = await atLowPriority(
        () =>
          ctx.services.runs.record(
            {
              tenantId: caller.tenantId,
              source: name,
              operation: 'association',
              clientId: caller.clientId,
              correlationId: ctx.correlationId,
              submitted: associations.length,
            },
            ctx.log,
            (run) => ctx.services.associator.associate(caller.tenantId, name, associations, actor, ctx.log, run.id),
            (result) => associationOutcome(result),
          ),
        caller.tenantId,
      );
      // The counts of the pairs done come back with an error naming the pairs to send again.
      if (r.sendAgain.length > 0)
        ctx.partialErrors.push(associationIncomplete(r.sendAgain, responsePathAsArray(info.path)));
      ctx.log.info('association finished', {
        tenantId: caller.tenantId,
        runId,
        pairs: associations.length,
        associated: r.associated,
        unchanged: r.unchanged,
        unknownExternalIds: r.unknownExternalIds.length,
        unknownUserPrincipalNames: r.unknownUserPrincipalNames.length,
        conflicting: r.conflictingUserPrincipalNames.length,
        notDone: r.sendAgain.length,
      });
      return { ...r, runId };
    }),
    createBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const doc = await createManualIdentity(
        ctx.services.store,
        ctx.services.audit,
        caller.tenantId,
        input(args) as unknown as ImportIdentityInput,
        actor,
      );
      return { businessIdentity: identityView(doc, 'Manual') };
    }),
    linkBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const i = input(args);
      const { pk, label } = await sourcePartition(ctx.services, caller.tenantId, i.source);
      const doc = await ctx.services.adminLinks.link(
        caller.tenantId,
        pk,
        String(i.id ?? ''),
        { directoryUserId: i.directoryUserId, userPrincipalName: i.userPrincipalName },
        actor,
      );
      return { businessIdentity: identityView(doc, label) };
    }),
    unlinkBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const i = input(args);
      const { pk, label } = await sourcePartition(ctx.services, caller.tenantId, i.source);
      const doc = await ctx.services.adminLinks.unlink(caller.tenantId, pk, String(i.id ?? ''), actor);
      return { businessIdentity: identityView(doc, label) };
    }),
    updateBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const { id, ...changes } = input(args);
      const doc = await updateManualIdentity(
        ctx.services.store,
        ctx.services.audit,
        caller.tenantId,
        id,
        changes as ManualIdentityChanges,
        actor,
      );
      return { businessIdentity: identityView(doc, 'Manual') };
    }),
    deactivateBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const doc = await updateManualIdentity(
        ctx.services.store,
        ctx.services.audit,
        caller.tenantId,
        input(args).id,
        { active: false },
        actor,
      );
      return { businessIdentity: identityView(doc, 'Manual') };
    }),
    deleteBusinessIdentity: adminField(async (args, ctx, { caller, actor }) => {
      const doc = await deleteManualIdentity(
        ctx.services.store,
        ctx.services.audit,
        ctx.services.claims,
        caller.tenantId,
        input(args).id,
        actor,
      );
      return { id: doc.id };
    }),
    enableScimIntegration: adminField(async (args, ctx, { caller, actor }) => {
      const r = await ctx.services.integrations.setEnabled(caller.tenantId, input(args).id, true, actor);
      ctx.log.info('scim integration enabled', { tenantId: caller.tenantId, integrationId: r.id });
      return { scimIntegration: integrationView(r, ctx) };
    }),
  },
};
