/**
 * One page of the organization's activity for a selection (the filters of Entra's provisioning logs: from,
 * until, action, outcome, run, externalId, source), as the GraphQL `activity` query and the export read it:
 * - a source named: its streams (sourceActivity.ts) merged newest first;
 * - no source: the tenant-wide view, every source's streams merged (each entry names its source); it reads
 *   one page of each source, so it is bounded by MAX_TENANT_SOURCES;
 * - a run named: the run's drill-in, its changes in the order of the identities' ids (its own cursor).
 * Each entry's actor is named: an integration's display name, a run's source, the background work's name, an
 * administrator's name as the token said at the time of the change.
 */
import type { Store } from '../store/store';
import type { RunHistory } from '../imports/runHistory';
import { DomainError, badInput } from '../util/domainError';
import { CODE } from '../util/errorCodes';
import {
  decodeCursor,
  encodeCursor,
  lowerKey,
  parseSince,
  readActivity,
  untilKey,
  type ActivityAction,
  type ActivityActor,
  type ActivityOutcome,
} from './entries';
import {
  activitySource,
  activityStreams,
  customSource,
  manualSource,
  scimSource,
  type ActivitySource,
  type SourcedEntry,
} from './sourceActivity';
import { runChanges } from './historyActivity';
import { ACTIVITY_ACTIONS } from './actions';
import { recommendedAction } from './recommendations';

/** Sources one tenant-wide page reads at most (each is asked for one page). */
export const MAX_TENANT_SOURCES = 50;

export interface ActivityDeps {
  store: Store;
  runs: RunHistory;
  integrations: {
    get(tenantId: string, id: string): Promise<{ id: string; displayName: string } | undefined>;
    list(tenantId: string): Promise<Array<{ id: string; displayName: string }>>;
  };
  /** The organization's custom sources (names), for the tenant-wide view. */
  customSources(tenantId: string): Promise<string[]>;
}

/** A selection as it arrives (GraphQL input, query string): checked by `parseSelection`. */
export interface SelectionInput {
  source?: string | null;
  outcome?: string | null;
  action?: string | null;
  externalId?: string | null;
  /** `since` is the older name of `from`. */
  since?: string | null;
  from?: string | null;
  until?: string | null;
  run?: string | null;
}

export interface ActivitySelection {
  source?: string;
  outcome?: ActivityOutcome;
  action?: ActivityAction;
  externalId?: string;
  from?: string;
  until?: string;
  run?: string;
}

const OUTCOMES: readonly ActivityOutcome[] = ['succeeded', 'refused', 'failed'];
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME_PROBLEM = 'must be a date (YYYY-MM-DD) or an ISO 8601 time with its offset';

/** The selection checked; a problem names the field (`filter.<name>`), never the value. */
export function parseSelection(input: SelectionInput, field = 'filter'): ActivitySelection {
  const problems: Array<{ field: string; problem: string }> = [];
  const out: ActivitySelection = {};
  const text = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? undefined : v);
  const source = text(input.source);
  if (source !== undefined) out.source = source;
  const outcome = text(input.outcome)?.toLowerCase();
  if (outcome !== undefined) {
    if ((OUTCOMES as readonly string[]).includes(outcome)) out.outcome = outcome as ActivityOutcome;
    else problems.push({ field: `${field}.outcome`, problem: `must be one of ${OUTCOMES.join(', ')}` });
  }
  const action = text(input.action)?.toLowerCase();
  if (action !== undefined) {
    if ((ACTIVITY_ACTIONS as readonly string[]).includes(action)) out.action = action as ActivityAction;
    else problems.push({ field: `${field}.action`, problem: `must be one of ${ACTIVITY_ACTIONS.join(', ')}` });
  }
  const externalId = text(input.externalId);
  if (externalId !== undefined) out.externalId = externalId;
  for (const name of ['from', 'until'] as const) {
    const given = name === 'from' && text(input.from) === undefined ? 'since' : name;
    const raw = text(input[given]);
    if (raw === undefined) continue;
    const at = parseSince(raw);
    if (at === undefined) problems.push({ field: `${field}.${given}`, problem: TIME_PROBLEM });
    else out[name] = at;
  }
  const run = text(input.run);
  if (run !== undefined) {
    if (RUN_ID.test(run)) out.run = run.toLowerCase();
    else problems.push({ field: `${field}.run`, problem: 'must be the id of an import or association run' });
  }
  if (problems.length > 0) throw badInput(problems);
  return out;
}

/** An entry as the API and the export show it. */
export type ActivityRow = Omit<SourcedEntry, 'actor'> & {
  actor: (ActivityActor & { displayName: string | null }) | null;
  recommendedAction: string | null;
};

export interface ActivityPage {
  rows: ActivityRow[];
  endCursor: string | null;
  hasNextPage: boolean;
}

const BACKGROUND_NAMES: Record<string, string> = { 'directory-links': 'Directory links', retention: 'Retention' };

/** A run's drill-in pages by the identity it read last: `~<id>` (a key never begins with `~`). */
const RUN_CURSOR = /^~[A-Za-z0-9._-]{1,80}$/;

function decodeAfter(after: string | undefined, run: boolean): string | undefined {
  if (after === undefined || after === '') return undefined;
  if (run) {
    const text =
      after.length <= 200 && /^[A-Za-z0-9_-]+$/.test(after) ? Buffer.from(after, 'base64url').toString() : '';
    if (RUN_CURSOR.test(text)) return text.slice(1);
  } else {
    const key = decodeCursor(after);
    if (key !== undefined) return key;
  }
  throw badInput([{ field: 'after', problem: 'must be the endCursor of an activity page of the same filter' }]);
}

async function sourcesOf(deps: ActivityDeps, tenantId: string): Promise<ActivitySource[]> {
  const [integrations, custom] = await Promise.all([deps.integrations.list(tenantId), deps.customSources(tenantId)]);
  const all = [
    ...integrations.map((i) => scimSource(tenantId, i.id)),
    ...custom.map((name) => customSource(tenantId, name)),
    manualSource(tenantId),
  ];
  if (all.length > MAX_TENANT_SOURCES)
    throw badInput(
      [{ field: 'source', problem: `must be named: the organization has more than ${MAX_TENANT_SOURCES} sources` }],
      'Name a source',
    );
  return all;
}

/** One page of the selection, newest first (a run's drill-in: in identity order), at most `first` entries. */
export async function activityPage(
  deps: ActivityDeps,
  tenantId: string,
  selection: ActivitySelection,
  page: { first: number; after?: string },
): Promise<ActivityPage> {
  const names = await actorNamer(deps, tenantId);
  const finish = (entries: SourcedEntry[]): ActivityRow[] => entries.map((e) => rowOf(e, names));
  if (selection.run !== undefined) {
    const run = await deps.runs.get(tenantId, selection.run);
    if (!run) throw new DomainError(CODE.NOT_FOUND, 'No such run of the organization');
    const source = customSource(tenantId, run.source);
    // A run's changes succeeded; a run refused or failed before them has none of another outcome.
    if (selection.outcome !== undefined && selection.outcome !== 'succeeded')
      return { rows: [], endCursor: null, hasNextPage: false };
    const afterId = decodeAfter(page.after, true);
    const { entries, nextAfterId } = await runChanges(deps.store, source.pk, run.id, {
      ...(afterId !== undefined ? { afterId } : {}),
      limit: page.first,
      ...(selection.action !== undefined ? { action: selection.action } : {}),
      ...(selection.externalId !== undefined ? { externalId: selection.externalId } : {}),
    });
    const inRange = entries.filter(
      (e) =>
        (selection.from === undefined || e.at >= selection.from) &&
        (selection.until === undefined || e.at < selection.until),
    );
    return {
      rows: finish(inRange.map((e) => ({ ...e, source: source.label }))),
      endCursor: nextAfterId === undefined ? null : Buffer.from(`~${nextAfterId}`).toString('base64url'),
      hasNextPage: nextAfterId !== undefined,
    };
  }
  const cursor = decodeAfter(page.after, false);
  const sources =
    selection.source !== undefined
      ? [await activitySource((t, id) => deps.integrations.get(t, id), tenantId, selection.source)]
      : await sourcesOf(deps, tenantId);
  const before = lowerKey(cursor, selection.until !== undefined ? untilKey(selection.until) : undefined);
  const { entries, hasMore } = await readActivity(
    sources.flatMap((s) => activityStreams(deps, s, selection.outcome)),
    {
      ...(before !== undefined ? { before } : {}),
      ...(selection.from !== undefined ? { since: selection.from } : {}),
      ...(selection.externalId !== undefined ? { externalId: selection.externalId } : {}),
      ...(selection.action !== undefined ? { action: selection.action } : {}),
      limit: page.first,
    },
  );
  const last = entries[entries.length - 1];
  return { rows: finish(entries), endCursor: last ? encodeCursor(last.key) : null, hasNextPage: hasMore };
}

type Namer = (actor: ActivityActor, source: string) => string | null;

/** Names actors: integrations' display names (read once per page), runs by their source, the background work's. */
async function actorNamer(deps: ActivityDeps, tenantId: string): Promise<Namer> {
  let integrations: Map<string, string> | undefined;
  const load = async () =>
    (integrations ??= new Map((await deps.integrations.list(tenantId)).map((i) => [i.id, i.displayName])));
  await load();
  return (actor, source) => {
    if (actor.kind === 'integration') return integrations?.get(actor.id) ?? null;
    if (actor.kind === 'importRun') return source;
    if (actor.kind === 'background') return BACKGROUND_NAMES[actor.id] ?? null;
    return actor.name ?? null;
  };
}

function rowOf(e: SourcedEntry, name: Namer): ActivityRow {
  const { actor, ...rest } = e;
  return {
    ...rest,
    actor: actor ? { ...actor, displayName: name(actor, e.source) } : null,
    recommendedAction: recommendedAction(e),
  };
}
