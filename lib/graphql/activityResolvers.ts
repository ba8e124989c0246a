/** The `activity` query: a source's entries newest first, paged by cursor (lib/activity). */
import { adminField } from './resolvers';
import { badInput } from '../util/domainError';
import {
  decodeCursor,
  encodeCursor,
  parseSince,
  readActivity,
  type ActivityEntry,
  type ActivityOutcome,
} from '../activity/entries';
import { activitySource, activityStreams } from '../activity/sourceActivity';

export const MAX_ACTIVITY_PAGE = 100;

interface ActivityFilterInput {
  outcome?: 'SUCCEEDED' | 'REFUSED' | 'FAILED' | null;
  externalId?: string | null;
  since?: string | null;
}

/** Enum values of the schema are the upper-case forms of the outcomes. */
function entryView({ key: _key, ...entry }: ActivityEntry) {
  return { ...entry, outcome: entry.outcome.toUpperCase() };
}

export const activityResolvers = {
  Query: {
    activity: adminField(async (args, ctx, { caller }) => {
      const first = typeof args.first === 'number' ? args.first : 50;
      if (first < 1 || first > MAX_ACTIVITY_PAGE)
        throw badInput([{ field: 'first', problem: `must be between 1 and ${MAX_ACTIVITY_PAGE}` }]);
      const filter = (args.filter ?? {}) as ActivityFilterInput;
      const since = filter.since == null ? undefined : parseSince(filter.since);
      if (filter.since != null && since === undefined)
        throw badInput([
          { field: 'filter.since', problem: 'must be a date (YYYY-MM-DD) or an ISO 8601 time with its offset' },
        ]);
      const before = typeof args.after === 'string' && args.after !== '' ? decodeCursor(args.after) : undefined;
      if (typeof args.after === 'string' && args.after !== '' && before === undefined)
        throw badInput([{ field: 'after', problem: 'must be the endCursor of an activity page' }]);
      const source = await activitySource(
        (tenantId, id) => ctx.services.integrations.get(tenantId, id),
        caller.tenantId,
        args.source,
      );
      const outcome = filter.outcome ? (filter.outcome.toLowerCase() as ActivityOutcome) : undefined;
      const { entries, hasMore } = await readActivity(activityStreams(ctx.services, source, outcome), {
        ...(before !== undefined ? { before } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(filter.externalId != null ? { externalId: filter.externalId } : {}),
        limit: first,
      });
      const last = entries[entries.length - 1];
      return {
        nodes: entries.map(entryView),
        endCursor: last ? encodeCursor(last.key) : null,
        hasNextPage: hasMore,
      };
    }),
  },
};
