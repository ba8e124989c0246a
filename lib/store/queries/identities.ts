/** Queries of the `identities` container (partition `<tenantId>|<source>`). */
import { acrossPartitions, asc, inPartition, listParameters, type NamedQuery, type Whole } from './namedQuery';

const container = 'identities' as const;

/** One identity by a unique key of its partition (SCIM eq filters, imports). */
export function byUniqueKey(pk: string, field: 'externalIdKey' | 'userNameKey', value: string): NamedQuery<Whole> {
  return inPartition(
    { name: 'byUniqueKey', container, index: { paths: [`/${field}/?`] } },
    pk,
    'SELECT *',
    [`c.${field} = @v`],
    [{ name: '@v', value }],
  );
}

/** Identities of a partition by id (at most one batch of them). */
export function byIds(pk: string, ids: readonly string[]): NamedQuery<Whole> {
  const list = listParameters('i', ids);
  return inPartition(
    { name: 'byIds', container, index: { paths: [] } },
    pk,
    'SELECT *',
    [`c.id IN (${list.names})`],
    list.parameters,
  );
}

/**
 * Identities of a partition by externalId key, for an association: a linked one as its link only (id,
 * key, link), any other whole. `R` names the caller's row type.
 */
export function linksByExternalIds<R>(pk: string, externalIdKeys: readonly string[]): NamedQuery<R> {
  const list = listParameters('e', externalIdKeys);
  return inPartition(
    { name: 'linksByExternalIds', container, index: { paths: ['/externalIdKey/?'] } },
    pk,
    "SELECT VALUE (c.link.status = 'linked' ? { id: c.id, externalIdKey: c.externalIdKey, link: c.link } : c)",
    [`c.externalIdKey IN (${list.names})`],
    list.parameters,
  );
}

/** Bounds of SCIM's `meta.lastModified` range filter. */
export interface ModifiedRange {
  lower?: { value: string; inclusive: boolean };
  upper?: { value: string; inclusive: boolean };
}

function rangeWhere(range: ModifiedRange): { where: string[]; parameters: Array<{ name: string; value: string }> } {
  const where: string[] = [];
  const parameters: Array<{ name: string; value: string }> = [];
  if (range.lower) {
    where.push(`c.lastModified ${range.lower.inclusive ? '>=' : '>'} @lower`);
    parameters.push({ name: '@lower', value: range.lower.value });
  }
  if (range.upper) {
    where.push(`c.lastModified ${range.upper.inclusive ? '<=' : '<'} @upper`);
    parameters.push({ name: '@upper', value: range.upper.value });
  }
  return { where, parameters };
}

const scimListIndex = { paths: ['/lastModified/?'] };

/** How many identities of a partition a SCIM list (optionally of a lastModified range) has. */
export function scimListCount(pk: string, range: ModifiedRange): NamedQuery<number> {
  const { where, parameters } = rangeWhere(range);
  return inPartition(
    { name: 'scimListCount', container, index: scimListIndex },
    pk,
    'SELECT VALUE COUNT(1)',
    where,
    parameters,
  );
}

/** A SCIM list page: the next `count + 1` identities after `after` in id order. */
export function scimListPage(
  pk: string,
  range: ModifiedRange,
  after: string | undefined,
  count: number,
): NamedQuery<Whole> {
  const { where, parameters } = rangeWhere(range);
  if (after !== undefined) {
    where.push('c.id > @after');
    parameters.push({ name: '@after', value: after });
  }
  return inPartition(
    { name: 'scimListPage', container, index: scimListIndex },
    pk,
    `SELECT TOP ${count + 1} *`,
    where,
    parameters,
    'c.id',
  );
}

/** The ids of a SCIM list in order (to find where a page without a cursor starts). */
export function scimListIds(pk: string, range: ModifiedRange): NamedQuery<string> {
  const { where, parameters } = rangeWhere(range);
  return inPartition(
    { name: 'scimListIds', container, index: scimListIndex },
    pk,
    'SELECT VALUE c.id',
    where,
    parameters,
    'c.id',
  );
}

/** How many identities of a partition have a link status (the console's source summary). */
export function countByLinkStatus(pk: string, status: string): NamedQuery<number> {
  return inPartition(
    { name: 'countByLinkStatus', container, index: { paths: ['/link/status/?'] } },
    pk,
    'SELECT VALUE COUNT(1)',
    ['c.link.status = @s'],
    [{ name: '@s', value: status }],
  );
}

export interface ConsoleFilter {
  externalIdKey?: string;
  /**
   * An externalId, or a UPN asserted, linked or looked up: `key` (its upnKey) is compared with the stored
   * UPN keys, `text` with the externalId and, as stored, the UPNs of identities written before they had keys.
   */
  search?: { text: string; key: string };
  linkStatus?: string;
  after?: string;
}

/** The console's page of a source's identities: by externalId (at most one), or in id order. */
export function consolePage(pk: string, filter: ConsoleFilter, first: number): NamedQuery<Whole> {
  const where: string[] = [];
  const parameters: Array<{ name: string; value: string }> = [];
  if (filter.externalIdKey !== undefined) {
    where.push('c.externalIdKey = @e');
    parameters.push({ name: '@e', value: filter.externalIdKey });
  }
  if (filter.search) {
    // The stored keys are folded once, where they are written; the query folds nothing. The exact-UPN terms
    // find identities stored before `upnKeys` existed until the backfill (docs/operations.md) has run.
    where.push(
      '(c.externalIdKey = @q OR ARRAY_CONTAINS(c.upnKeys, @k) OR c.directoryUserPrincipalName = @q OR c.link.userPrincipalName = @q OR c.link.lookedUpUpn = @q)',
    );
    parameters.push({ name: '@q', value: filter.search.text }, { name: '@k', value: filter.search.key });
  }
  if (filter.linkStatus !== undefined) {
    where.push('c.link.status = @s');
    parameters.push({ name: '@s', value: filter.linkStatus });
  }
  if (filter.after !== undefined) {
    where.push('c.id > @after');
    parameters.push({ name: '@after', value: filter.after });
  }
  return inPartition(
    {
      name: 'consolePage',
      container,
      index: {
        paths: [
          '/externalIdKey/?',
          '/directoryUserPrincipalName/?',
          '/link/userPrincipalName/?',
          '/link/lookedUpUpn/?',
          '/upnKeys/[]/?',
          '/link/status/?',
        ],
        composites: [[asc('/link/status'), asc('/id')]],
      },
    },
    pk,
    `SELECT TOP ${first + 1} *`,
    where,
    parameters,
    // externalId is unique in the source: at most one identity, no order (and no composite index) needed.
    filter.externalIdKey !== undefined ? undefined : 'c.id',
  );
}

const RETENTION_DUE = 'c.hasSensitive = true AND c.inactiveSince <= @cutoff';

/** The next partition (after `after`, in pk order) holding identities whose sensitive data is due for deletion. */
export function nextPartitionDueForRetention(
  cutoff: string,
  after: string,
  tenantId?: string,
): NamedQuery<{ tenantId: string; pk: string }> {
  return acrossPartitions(
    {
      name: 'nextPartitionDueForRetention',
      container,
      index: {
        paths: ['/hasSensitive/?', '/inactiveSince/?', '/tenantId/?'],
        composites: [[asc('/hasSensitive'), asc('/pk')]],
      },
    },
    `SELECT TOP 1 c.tenantId, c.pk FROM c WHERE ${RETENTION_DUE} AND c.pk > @after${
      tenantId ? ' AND c.tenantId = @tenantId' : ''
    } ORDER BY c.pk`,
    [
      { name: '@cutoff', value: cutoff },
      { name: '@after', value: after },
      ...(tenantId ? [{ name: '@tenantId', value: tenantId }] : []),
    ],
  );
}

/** Ids of a partition's identities whose sensitive data is due for deletion (at most `limit`). */
export function dueForRetention(pk: string, cutoff: string, limit: number): NamedQuery<string> {
  return inPartition(
    { name: 'dueForRetention', container, index: { paths: ['/hasSensitive/?', '/inactiveSince/?'] } },
    pk,
    `SELECT TOP ${limit} VALUE c.id`,
    [RETENTION_DUE],
    [{ name: '@cutoff', value: cutoff }],
  );
}

/** A link check is due: never scheduled, or its time has come. */
const CHECK_DUE = '(NOT IS_DEFINED(c.link.nextCheckAt) OR c.link.nextCheckAt <= @now)';

/** A tenant's identities in conflict over a user that back off (to wake them when the user is free). */
export function conflictsBackingOffOn(tenantId: string, userId: string): NamedQuery<{ id: string; pk: string }> {
  return acrossPartitions(
    {
      name: 'conflictsBackingOffOn',
      container,
      index: { paths: ['/tenantId/?', '/link/status/?', '/link/conflictUserId/?', '/link/nextCheckAt/?'] },
    },
    "SELECT c.id, c.pk FROM c WHERE c.tenantId = @tenantId AND c.link.status = 'conflict' AND c.link.conflictUserId = @userId AND IS_DEFINED(c.link.nextCheckAt)",
    [
      { name: '@tenantId', value: tenantId },
      { name: '@userId', value: userId },
    ],
  );
}

/** A tenant's conflicts that are due, and pending identities whose look-up is owed. `R`: the caller's row. */
export function conflictsToRecheck<R>(tenantId: string, now: string): NamedQuery<R> {
  return acrossPartitions(
    {
      name: 'conflictsToRecheck',
      container,
      index: { paths: ['/tenantId/?', '/link/status/?', '/link/nextCheckAt/?', '/link/lookUpOwed/?'] },
    },
    `SELECT * FROM c WHERE c.tenantId = @tenantId AND ((c.link.status = 'conflict' AND ${CHECK_DUE}) OR (c.link.status = 'pending' AND c.link.lookUpOwed = true))`,
    [
      { name: '@tenantId', value: tenantId },
      { name: '@now', value: now },
    ],
  );
}

/** A tenant's pending identities that are due, in id order after `after` (the safety sweep). */
export function pendingToSweep<R>(tenantId: string, now: string, after: string): NamedQuery<R> {
  return acrossPartitions(
    {
      name: 'pendingToSweep',
      container,
      index: {
        paths: ['/tenantId/?', '/link/status/?', '/link/nextCheckAt/?'],
        composites: [[asc('/link/status'), asc('/id')]],
      },
    },
    `SELECT * FROM c WHERE c.tenantId = @tenantId AND c.link.status = 'pending' AND ${CHECK_DUE} AND c.id > @after ORDER BY c.id`,
    [
      { name: '@tenantId', value: tenantId },
      { name: '@now', value: now },
      { name: '@after', value: after },
    ],
  );
}

/**
 * A tenant's pending and conflict identities that wait for one of these UPNs: by UPN key, or (stored
 * before the key existed) by the UPN as the directory spells it.
 */
export function waitingForUpns<R>(
  tenantId: string,
  changed: ReadonlyArray<{ key: string; upn: string }>,
): NamedQuery<R> {
  const keys = listParameters(
    'k',
    changed.map((c) => c.key),
  );
  const upns = listParameters(
    'u',
    changed.map((c) => c.upn),
  );
  return acrossPartitions(
    {
      name: 'waitingForUpns',
      container,
      index: { paths: ['/tenantId/?', '/link/status/?', '/link/upnKey/?', '/link/lookedUpUpn/?'] },
    },
    `SELECT * FROM c WHERE c.tenantId = @tenantId AND (c.link.status = 'pending' OR c.link.status = 'conflict')` +
      ` AND (c.link.upnKey IN (${keys.names}) OR (NOT IS_DEFINED(c.link.upnKey) AND c.link.lookedUpUpn IN (${upns.names})))`,
    [{ name: '@tenantId', value: tenantId }, ...keys.parameters, ...upns.parameters],
  );
}

/**
 * Every identity of a tenant, page by page (the UPN-key backfill: it writes only those without keys; an
 * unindexed filter on the missing field would read every document all the same).
 */
export function tenantIdentities(tenantId: string): NamedQuery<Whole> {
  return acrossPartitions(
    { name: 'tenantIdentities', container, index: { paths: ['/tenantId/?'] } },
    'SELECT * FROM c WHERE c.tenantId = @tenantId',
    [{ name: '@tenantId', value: tenantId }],
  );
}

/** What the source's activity orders identities by: every change (`lastModified`) or changes not made by a run (`activityAt`). */
export type ActivityOrder = 'lastModified' | 'activityAt';

const CHANGED_FIELDS = 'c.id, c.externalId, c.lastModified, c.activityAt, c.history, c.historyOmitted';

/**
 * A source's identities newest first by `order`, at or below `upTo` and from `since` on, at most `top`
 * (a keyset page: the next one asks `upTo` = the last one's time); of one externalId, the one identity.
 * An identity without the field (never changed but by runs) is not read.
 */
export function changedIdentities<R>(
  pk: string,
  filter: { order: ActivityOrder; since?: string; upTo?: string; externalId?: string },
  top: number,
): NamedQuery<R> {
  const where: string[] = [];
  const parameters: Array<{ name: string; value: string }> = [];
  const field = `c.${filter.order}`;
  if (filter.externalId !== undefined) {
    where.push('c.externalIdKey = @externalId');
    parameters.push({ name: '@externalId', value: filter.externalId });
  }
  where.push(`${field} >= @since`);
  parameters.push({ name: '@since', value: filter.since ?? '' });
  if (filter.upTo !== undefined) {
    where.push(`${field} <= @upTo`);
    parameters.push({ name: '@upTo', value: filter.upTo });
  }
  return inPartition(
    { name: 'changedIdentities', container, index: { paths: ['/externalIdKey/?', `/${filter.order}/?`] } },
    pk,
    `SELECT TOP ${Math.max(1, Math.floor(top))} ${CHANGED_FIELDS}`,
    where,
    parameters,
    filter.externalId !== undefined ? undefined : `${field} DESC`,
  );
}

/** The identities a run changed last (`lastRunId`), in id order after `afterId`, at most `top`. */
export function runChangedIdentities<R>(
  pk: string,
  runId: string,
  afterId: string | undefined,
  top: number,
): NamedQuery<R> {
  const where = ['c.lastRunId = @run'];
  const parameters = [{ name: '@run', value: runId }];
  if (afterId !== undefined) {
    where.push('c.id > @after');
    parameters.push({ name: '@after', value: afterId });
  }
  return inPartition(
    {
      name: 'runChangedIdentities',
      container,
      index: { paths: ['/lastRunId/?'], composites: [[asc('/lastRunId'), asc('/id')]] },
    },
    pk,
    `SELECT TOP ${Math.max(1, Math.floor(top))} ${CHANGED_FIELDS}`,
    where,
    parameters,
    'c.id',
  );
}

/** Every query of this container with example arguments, each variant once (read by the index-coverage test). */
export function examples(): Array<NamedQuery<unknown>> {
  const pk = 't|s';
  const range = { lower: { value: 'a', inclusive: true }, upper: { value: 'b', inclusive: false } };
  return [
    byUniqueKey(pk, 'externalIdKey', 'x'),
    byUniqueKey(pk, 'userNameKey', 'x'),
    byIds(pk, ['a', 'b']),
    linksByExternalIds(pk, ['a', 'b']),
    scimListCount(pk, {}),
    scimListCount(pk, range),
    scimListPage(pk, range, 'a', 10),
    scimListPage(pk, {}, undefined, 10),
    scimListIds(pk, range),
    countByLinkStatus(pk, 'linked'),
    consolePage(pk, { externalIdKey: 'e' }, 10),
    consolePage(pk, { search: { text: 'X', key: 'x' }, linkStatus: 'pending', after: 'a' }, 10),
    consolePage(pk, {}, 10),
    nextPartitionDueForRetention('c', ''),
    nextPartitionDueForRetention('c', '', 't'),
    dueForRetention(pk, 'c', 10),
    conflictsBackingOffOn('t', 'u'),
    conflictsToRecheck('t', 'n'),
    pendingToSweep('t', 'n', ''),
    waitingForUpns('t', [{ key: 'k', upn: 'U' }]),
    tenantIdentities('t'),
    changedIdentities(pk, { order: 'lastModified' }, 10),
    changedIdentities(pk, { order: 'activityAt', since: '2026-01-01', upTo: '2026-02-01' }, 10),
    changedIdentities(pk, { order: 'activityAt', externalId: 'e', since: '2026-01-01' }, 10),
    runChangedIdentities(pk, 'r', undefined, 10),
    runChangedIdentities(pk, 'r', 'a', 10),
  ];
}
