/** The reads behind the administrator console's pages: sources with link counts, and one identity in detail. */
import type { Services } from '../services';
import { partitionKey, type IdentityDoc, type LinkStatus } from '../identities/model';
import { MANUAL_SOURCE_KEY } from '../identities/manualIdentities';
import { customSourceKey } from '../imports/importer';
import { IdentityRepository } from '../identities/repository';
import { readHistory } from '../identities/history';
import { historyView, identityView, type LinkEventView } from './identityView';
import { countByLinkStatus } from '../store/queries/identities';
import { runPointerSources } from '../store/queries/imports';

const STATUSES: Array<[LinkStatus, 'linked' | 'pending' | 'conflict' | 'notAsserted']> = [
  ['linked', 'linked'],
  ['pending', 'pending'],
  ['conflict', 'conflict'],
  ['notAsserted', 'notAsserted'],
];
/** Run pointers read to find the custom sources (runs are kept 90 days). */
const MAX_RUN_POINTERS = 5000;

async function countsOf(services: Services, pk: string) {
  const identities = services.store.collection<IdentityDoc>('identities');
  const counts = { total: 0, linked: 0, pending: 0, conflict: 0, notAsserted: 0 };
  for (const [status, key] of STATUSES) {
    const page = await identities.page(countByLinkStatus(pk, status));
    counts[key] = page.items[0] ?? 0;
    counts.total += counts[key];
  }
  return counts;
}

/** Custom sources with a run in the last 90 days, from the tenant's run pointers (one partition). */
export async function customSources(services: Pick<Services, 'store'>, tenantId: string): Promise<string[]> {
  const imports = services.store.collection<{ id: string; pk: string; source: string }>('imports');
  const names = new Set<string>();
  let continuationToken: string | undefined;
  let read = 0;
  do {
    const page = await imports.page(runPointerSources(partitionKey(tenantId, '_runs')), {
      maxItemCount: 1000,
      continuationToken,
    });
    for (const item of page.items) names.add(item.source);
    read += page.items.length;
    continuationToken = page.continuationToken;
  } while (continuationToken && read < MAX_RUN_POINTERS);
  return [...names].sort();
}

export async function sourceSummaries(services: Services, tenantId: string) {
  const integrations = await services.integrations.list(tenantId);
  const sources: Array<{ name: string; kind: 'SCIM' | 'CUSTOM' | 'MANUAL'; displayName: string; pk: string }> = [
    ...integrations.map((i) => ({
      name: i.id,
      kind: 'SCIM' as const,
      displayName: i.displayName,
      pk: partitionKey(tenantId, i.id),
    })),
    ...(await customSources(services, tenantId)).map((name) => ({
      name,
      kind: 'CUSTOM' as const,
      displayName: name,
      pk: partitionKey(tenantId, customSourceKey(name)),
    })),
    { name: 'Manual', kind: 'MANUAL', displayName: 'Manual', pk: partitionKey(tenantId, MANUAL_SOURCE_KEY) },
  ];
  return Promise.all(sources.map(async ({ pk, ...s }) => ({ ...s, counts: await countsOf(services, pk) })));
}

/** The `source` argument that addresses an identity's source. */
export function sourceLabelOf(doc: Pick<IdentityDoc, 'sourceKind' | 'sourceKey'>): string {
  if (doc.sourceKind === 'manual') return 'Manual';
  if (doc.sourceKind === 'custom') return doc.sourceKey.replace(/^src:/, '');
  return doc.sourceKey;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const BACKGROUND_NAMES: Record<string, string> = {
  'directory-links': 'Directory links',
  retention: 'Retention',
};

/**
 * The names of the actors of an identity's history: its integrations' display names (read once, when the
 * history names one), its source's name for import and association runs, the background work's; an
 * administrator's name as the console user's token said at the time of the change (an application has none).
 */
async function actorNames(services: Services, tenantId: string, doc: IdentityDoc, label: string) {
  const integrations = readHistory(doc).some((e) => e.actor.kind === 'integration')
    ? new Map((await services.integrations.list(tenantId)).map((i) => [i.id, i.displayName]))
    : new Map<string, string>();
  return (actor: { kind: string; id: string; name?: string }): string | null => {
    if (actor.kind === 'integration') return integrations.get(actor.id) ?? null;
    if (actor.kind === 'importRun') return label;
    if (actor.kind === 'background') return BACKGROUND_NAMES[actor.id] ?? null;
    return actor.name ?? null;
  };
}

/** One identity with its linked user's UPN (asked of the directory when not stored), who holds the user of a conflict, its link history and its history of changes. */
export async function detailedIdentity(services: Services, tenantId: string, pk: string, label: string, id: string) {
  const doc = await new IdentityRepository(services.store).get(pk, id);
  if (!doc) return null;
  const view = identityView(doc, label);
  if (doc.link.status === 'linked' && doc.link.userId && !view.linkedUserPrincipalName) {
    const user = await services.directory.getById(tenantId, doc.link.userId).catch(() => undefined);
    view.linkedUserPrincipalName = user?.userPrincipalName ?? null;
  }
  if (doc.link.status === 'conflict' && doc.link.conflictUserId) {
    const claim = await services.claims.get(tenantId, doc.link.conflictUserId);
    const holder = claim
      ? await services.store.collection<IdentityDoc>('identities').read(claim.identityPk, claim.identityId)
      : undefined;
    if (holder) view.conflictHeldBy = { source: sourceLabelOf(holder), id: holder.id, externalId: holder.externalId };
  }
  const entries = await services.audit.list(tenantId, doc.id);
  view.linkHistory = entries
    .filter((e) => e.action.startsWith('link.'))
    .map((e): LinkEventView => ({
      at: e.at,
      action: e.action,
      actorKind: e.actor.kind,
      actorId: e.actor.id,
      status: text(e.after?.status),
      userId: text(e.after?.userId),
    }));
  view.history = historyView(doc, await actorNames(services, tenantId, doc, label));
  view.historyOmitted = doc.historyOmitted ?? 0;
  return view;
}
