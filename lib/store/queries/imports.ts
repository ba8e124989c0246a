/** Queries of the `imports` container (manifests, runs, staged imports and their pointers). */
import { asc, desc, inPartition, listParameters, type NamedQuery, type Whole } from './namedQuery';

const container = 'imports' as const;
const byKind = { paths: ['/kind/?'] };
const kindNewestFirst = { paths: ['/kind/?'], composites: [[asc('/kind'), desc('/id')]] };

/** The entries of the running-jobs index (partition `_jobs`). */
export function indexedJobs(pk: string): NamedQuery<Whole> {
  return inPartition({ name: 'indexedJobs', container, index: byKind }, pk, 'SELECT *', ["c.kind = 'importJobIndex'"]);
}

/**
 * The ids of every stored part document (keys and body) of a staged import, recorded by its session or not
 * (a resend refused in a race, a write whose session update never came): its job deletes them all when it ends.
 */
export function importPartIds(pk: string, importId: string): NamedQuery<string> {
  return inPartition(
    { name: 'importPartIds', container, index: byKind },
    pk,
    'SELECT VALUE c.id',
    ["c.kind IN ('importPartKeys', 'importPartBody')", 'c.id > @from', 'c.id < @to'],
    [
      // Part ids are `import-<importId>-k…` and `import-<importId>-b…`: between `-` and the next character, `.`.
      { name: '@from', value: `import-${importId}-` },
      { name: '@to', value: `import-${importId}.` },
    ],
  );
}

/** A source's manifest segments, newest first. */
export function manifestSegments(pk: string): NamedQuery<Whole> {
  return inPartition(
    { name: 'manifestSegments', container, index: kindNewestFirst },
    pk,
    'SELECT *',
    ["c.kind = 'manifestSegment'"],
    [],
    'c.id DESC',
  );
}

/** A source's manifest shards of the earlier layout. */
export function legacyManifestShards(pk: string): NamedQuery<Whole> {
  return inPartition({ name: 'legacyManifestShards', container, index: byKind }, pk, 'SELECT *', [
    "c.kind = 'manifestShard'",
  ]);
}

export interface RunFilter {
  /** Only runs with an id below this one (run ids sort by start time). */
  beforeId?: string;
  /** Only runs from this id on. */
  sinceId?: string;
  /** Only runs of these stored statuses. */
  statuses?: readonly string[];
}

/** A source's runs newest first, at most `top`. */
export function runsNewestFirst(pk: string, top: number, filter: RunFilter = {}): NamedQuery<Whole> {
  const where = ["c.kind = 'run'"];
  const parameters: Array<{ name: string; value: string }> = [];
  if (filter.beforeId !== undefined) {
    where.push('c.id < @before');
    parameters.push({ name: '@before', value: filter.beforeId });
  }
  if (filter.sinceId !== undefined) {
    where.push('c.id >= @since');
    parameters.push({ name: '@since', value: filter.sinceId });
  }
  if (filter.statuses) {
    const list = listParameters('s', filter.statuses);
    where.push(`c.status IN (${list.names})`);
    parameters.push(...(list.parameters as Array<{ name: string; value: string }>));
  }
  return inPartition(
    {
      name: 'runsNewestFirst',
      container,
      index: {
        paths: ['/kind/?', '/status/?'],
        composites: [
          [asc('/kind'), desc('/id')],
          [asc('/kind'), asc('/status'), desc('/id')],
        ],
      },
    },
    pk,
    `SELECT TOP ${top} *`,
    where,
    parameters,
    'c.id DESC',
  );
}

/** The sources named by a tenant's run pointers (partition `<tenantId>|_runs`). */
export function runPointerSources(pk: string): NamedQuery<{ source: string }> {
  return inPartition({ name: 'runPointerSources', container, index: byKind }, pk, 'SELECT c.source', [
    "c.kind = 'runPointer'",
  ]);
}

export function examples(): Array<NamedQuery<unknown>> {
  const pk = 't|src:S';
  return [
    indexedJobs('_jobs'),
    importPartIds(pk, '01890000-0000-7000-8000-000000000000'),
    manifestSegments(pk),
    legacyManifestShards(pk),
    runsNewestFirst(pk, 5),
    runsNewestFirst(pk, 5, { beforeId: 'b', sinceId: 'a' }),
    runsNewestFirst(pk, 5, { beforeId: 'b', statuses: ['failed', 'completed'] }),
    runPointerSources('t|_runs'),
  ];
}
