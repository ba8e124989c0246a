/** The `activity` query: the organization's entries newest first, of one source or all, paged by cursor (lib/activity). */
import { adminField } from './resolvers';
import { badInput } from '../util/domainError';
import { activityPage, parseSelection, type ActivityDeps, type ActivityRow } from '../activity/activityPage';
import type { Services } from '../services';
import { customSources } from './consoleQueries';
import { ACTOR_KIND } from './identityView';

export const MAX_ACTIVITY_PAGE = 100;

/** What lib/activity reads of the services. */
export function activityDeps(services: Services): ActivityDeps {
  return {
    store: services.store,
    runs: services.runs,
    integrations: services.integrations,
    customSources: (tenantId) => customSources(services, tenantId),
  };
}

/** Enum values of the schema are the upper-case forms of outcomes and actions; actor kinds are the schema's. */
export function entryView({ key: _key, ...entry }: ActivityRow) {
  const { actor } = entry;
  return {
    ...entry,
    outcome: entry.outcome.toUpperCase(),
    action: entry.action.toUpperCase(),
    counts: entry.counts?.map((c) => ({ name: c.name, count: c.value })) ?? null,
    actor: actor ? { kind: ACTOR_KIND[actor.kind], id: actor.id, displayName: actor.displayName } : null,
  };
}

export const activityResolvers = {
  Query: {
    activity: adminField(async (args, ctx, { caller }) => {
      const first = typeof args.first === 'number' ? args.first : 50;
      if (first < 1 || first > MAX_ACTIVITY_PAGE)
        throw badInput([{ field: 'first', problem: `must be between 1 and ${MAX_ACTIVITY_PAGE}` }]);
      const filter = (args.filter ?? {}) as Record<string, string | null | undefined>;
      const selection = parseSelection({
        ...filter,
        source: typeof args.source === 'string' ? args.source : (filter.source ?? null),
      });
      if (typeof args.source === 'string' && args.source === '')
        throw badInput([{ field: 'source', problem: 'must not be empty' }]);
      const page = await activityPage(activityDeps(ctx.services), caller.tenantId, selection, {
        first,
        ...(typeof args.after === 'string' ? { after: args.after } : {}),
      });
      return { nodes: page.rows.map(entryView), endCursor: page.endCursor, hasNextPage: page.hasNextPage };
    }),
  },
};
