/**
 * Which streams make up a source's activity. A SCIM integration's refusals are its own (its partition);
 * a custom source's runs are its own; nothing of another source, integration or organization is read.
 */
import type { Store } from '../store/store';
import type { RunHistory } from '../imports/runHistory';
import { partitionKey } from '../identities/model';
import { MANUAL_SOURCE_KEY } from '../identities/manualIdentities';
import { customSourceKey } from '../imports/importer';
import { isGuid, normalizeGuid } from '../util/guid';
import { badInput } from '../util/domainError';
import { filteredStream, type ActivityEntry, type ActivityOutcome, type ActivityStream } from './entries';
import { refusalStream } from './refusals';
import { runStream } from './runActivity';
import { historyStream } from './historyActivity';

/** A source of the organization and its `label`: the name the `source` argument and column use. */
export type ActivitySource =
  | { kind: 'scim'; pk: string; integrationId: string; label: string }
  | { kind: 'custom'; pk: string; name: string; label: string }
  | { kind: 'manual'; pk: string; label: string };

/** Finds one of the organization's SCIM integrations by id. */
export type IntegrationLookup = (tenantId: string, id: string) => Promise<{ id: string } | undefined>;

/**
 * The source named as every source-scoped query names it (lib/graphql/sources.ts): `Manual`, the id of
 * one of the organization's SCIM integrations, or else a custom source name (an id of no integration of
 * the organization, another organization's included, is a custom source with no activity).
 */
export async function activitySource(
  integrations: IntegrationLookup,
  tenantId: string,
  source: unknown,
): Promise<ActivitySource> {
  if (typeof source !== 'string' || source === '') throw badInput([{ field: 'source', problem: 'must not be empty' }]);
  if (source.toLowerCase() === 'manual') return manualSource(tenantId);
  const integration = isGuid(source) ? await integrations(tenantId, normalizeGuid(source)) : undefined;
  if (integration) return scimSource(tenantId, integration.id);
  return customSource(tenantId, source);
}

export const manualSource = (tenantId: string): ActivitySource => ({
  kind: 'manual',
  pk: partitionKey(tenantId, MANUAL_SOURCE_KEY),
  label: 'Manual',
});
export const scimSource = (tenantId: string, integrationId: string): ActivitySource => ({
  kind: 'scim',
  pk: partitionKey(tenantId, integrationId),
  integrationId,
  label: integrationId,
});
export const customSource = (tenantId: string, name: string): ActivitySource => ({
  kind: 'custom',
  pk: partitionKey(tenantId, customSourceKey(name)),
  name,
  label: name,
});

/** The streams of a source's activity, of one outcome when named; each entry names the source (`source`). */
export function activityStreams(
  deps: { store: Store; runs: RunHistory },
  source: ActivitySource,
  outcome?: ActivityOutcome,
): Array<ActivityStream<SourcedEntry>> {
  // The identities' own changes (not a run's): SUCCEEDED entries of every source. Runs write only custom sources.
  const history =
    outcome === undefined || outcome === 'succeeded'
      ? [historyStream(deps.store, source.pk, source.kind === 'custom' ? 'activityAt' : 'lastModified')]
      : [];
  const own: ActivityStream[] =
    source.kind === 'scim'
      ? [
          ...(outcome === undefined || outcome === 'refused' ? [byAction(refusalStream(deps.store, source.pk))] : []),
          ...history,
        ]
      : source.kind === 'custom'
        ? [runStream(deps.runs, source.pk, outcome), ...history]
        : history;
  return own.map((stream) => sourced(stream, source.label));
}

/** Refusals are filtered by action as they are read (their query knows no action). */
function byAction(stream: ActivityStream): ActivityStream {
  return async (query) =>
    query.action === undefined ? stream(query) : filteredStream(stream, (e) => e.action === query.action)(query);
}

/** An entry with the source it belongs to (the tenant-wide view's column). */
export type SourcedEntry = ActivityEntry & { source: string };

function sourced(stream: ActivityStream, label: string): ActivityStream<SourcedEntry> {
  return async (query) => {
    const read = await stream(query);
    const out = read.map((e) => ({ ...e, source: label }));
    return read.completeAbove === undefined ? out : Object.assign(out, { completeAbove: read.completeAbove });
  };
}
