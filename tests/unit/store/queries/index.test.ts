/**
 * Every named query (lib/store/queries) declares the indexes it needs; the declaration must be served by
 * its container's indexing policy (containers.ts) and must cover what the query reads, as the local
 * engine's planner sees it (each example's SQL is parsed as the engine parses it).
 */
import { CONTAINERS } from '../../../../lib/store/containers';
import { QUERY_MODULES } from '../../../../lib/store/queries';
import type { IndexNeed, NamedQuery } from '../../../../lib/store/queries/namedQuery';
import { coverageGaps, describeGaps, queryIndexNeeds } from '../../../../devhost/cosmos/indexCoverage';
import { parseQuery } from '../../../../devhost/cosmos/library';
import type { IndexingPolicy } from '../../../../devhost/cosmos/requestCharge';

const examples = Object.entries(QUERY_MODULES).flatMap(([module, m]) => m.examples().map((q) => ({ module, q })));

/** A policy that indexes exactly what a query declares (and the partition key). */
function declaredPolicy(index: IndexNeed): IndexingPolicy {
  return {
    indexingMode: 'consistent',
    includedPaths: ['/pk/?', ...index.paths].map((path) => ({ path })),
    excludedPaths: [{ path: '/*' }],
    compositeIndexes: (index.composites ?? []).map((c) => c.map((p) => ({ ...p }))),
  } as IndexingPolicy;
}

const policyOf = (q: NamedQuery<unknown>) => CONTAINERS[q.container].indexingPolicy as unknown as IndexingPolicy;
const needsOf = (q: NamedQuery<unknown>) => queryIndexNeeds(parseQuery(q.spec.query).ast, ['pk']);

describe('named queries', () => {
  it('every exported query of each container module has an example (so each is checked below)', () => {
    for (const [module, m] of Object.entries(QUERY_MODULES)) {
      const builders = Object.entries(m)
        .filter(([name, value]) => typeof value === 'function' && name !== 'examples')
        .map(([name]) => name)
        .sort();
      const named = [...new Set(m.examples().map((q) => q.name))].sort();
      expect({ module, named }).toEqual({ module, named: builders });
    }
  });

  it('each names its container module and is scoped to a partition or says it crosses them', () => {
    for (const { module, q } of examples) {
      expect(q.container).toBe(module);
      if (q.partitionKey !== undefined) expect(q.spec.query).toMatch(/WHERE c\.pk = @pk/);
    }
  });

  it.each(examples.map(({ q }) => [q.name, q.spec.query, q] as const))(
    '%s: its declared indexes are in the container policy',
    (_name, _sql, q) => {
      const policy = policyOf(q);
      const included = new Set((policy.includedPaths ?? []).map((p) => p.path));
      for (const path of q.index.paths)
        expect({ path, included: included.has(path) }).toEqual({ path, included: true });
      const composites = (policy.compositeIndexes ?? []).map((c) => JSON.stringify(c.map((p) => [p.path, p.order])));
      for (const c of q.index.composites ?? []) {
        const key = JSON.stringify(c.map((p) => [p.path, p.order]));
        expect({ composite: key, inPolicy: composites.includes(key) }).toEqual({ composite: key, inPolicy: true });
      }
    },
  );

  it.each(examples.map(({ q }) => [q.name, q.spec.query, q] as const))(
    '%s: what it reads is served by its declaration and by the container (%s)',
    (_name, _sql, q) => {
      const needs = needsOf(q);
      expect(describeGaps(coverageGaps(needs, declaredPolicy(q.index)))).toEqual([]);
      expect(describeGaps(coverageGaps(needs, policyOf(q)))).toEqual([]);
    },
  );

  it('fails a query that reads a path it did not declare', () => {
    const q: NamedQuery<unknown> = {
      name: 'undeclared',
      container: 'identities',
      index: { paths: [] },
      spec: { query: 'SELECT * FROM c WHERE c.pk = @pk AND c.externalIdKey = @v' },
      partitionKey: 'p',
    };
    expect(describeGaps(coverageGaps(needsOf(q), declaredPolicy(q.index)))).toEqual([
      'filter on /externalIdKey is not indexed (the query scans its partitions)',
    ]);
  });
});
