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
import type { ActivityOutcome, ActivityStream } from './entries';
import { refusalStream } from './refusals';
import { runStream } from './runActivity';
import { historyStream } from './historyActivity';

export type ActivitySource =
  | { kind: 'scim'; pk: string; integrationId: string }
  | { kind: 'custom'; pk: string; name: string }
  | { kind: 'manual'; pk: string };

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
  if (source.toLowerCase() === 'manual') return { kind: 'manual', pk: partitionKey(tenantId, MANUAL_SOURCE_KEY) };
  const integration = isGuid(source) ? await integrations(tenantId, normalizeGuid(source)) : undefined;
  if (integration) return { kind: 'scim', pk: partitionKey(tenantId, integration.id), integrationId: integration.id };
  return { kind: 'custom', pk: partitionKey(tenantId, customSourceKey(source)), name: source };
}

/**
 * The identities' history (each change, by whom, naming the attributes it changed): the SUCCEEDED entries
 * of every source; readActivity merges it with the others by time.
 */
function identityHistoryStream(store: Store, pk: string): ActivityStream {
  return historyStream(store, pk);
}

/** The streams of a source's activity, of one outcome when named. */
export function activityStreams(
  deps: { store: Store; runs: RunHistory },
  source: ActivitySource,
  outcome?: ActivityOutcome,
): ActivityStream[] {
  const history =
    outcome === undefined || outcome === 'succeeded' ? [identityHistoryStream(deps.store, source.pk)] : [];
  if (source.kind === 'scim')
    return [
      ...(outcome === undefined || outcome === 'refused' ? [refusalStream(deps.store, source.pk)] : []),
      ...history,
    ];
  if (source.kind === 'custom') return [runStream(deps.runs, source.pk, outcome), ...history];
  return history;
}
