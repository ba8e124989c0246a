/** The local engine serves a query only as far as the container's indexing policy does, and records what it lacked. */
import { CONTAINERS } from '../../../../lib/store/containers';
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';
import { withMeter } from '../../../../devhost/cosmos/chargeMeter';
import { coverageGaps, describeGaps, queryIndexNeeds } from '../../../../devhost/cosmos/indexCoverage';
import { parseQuery } from '../../../../devhost/cosmos/library';
import type { IndexingPolicy } from '../../../../devhost/cosmos/requestCharge';

const identities = CONTAINERS.identities.indexingPolicy as IndexingPolicy;
const gapsOf = (sql: string, policy: IndexingPolicy = identities) =>
  describeGaps(coverageGaps(queryIndexNeeds(parseQuery(sql).ast, ['pk']), policy));

describe('index coverage of a query', () => {
  it('serves the queried paths, the partition key and id without a gap', () => {
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.externalIdKey = @v')).toEqual([]);
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.lastModified > @a AND c.id > @b ORDER BY c.id')).toEqual([]);
    expect(
      gapsOf(
        "SELECT * FROM c WHERE c.tenantId = @t AND (c.link.status = 'pending' OR c.link.status = 'conflict') AND (NOT IS_DEFINED(c.link.nextCheckAt) OR c.link.nextCheckAt <= @now) AND c.id > @after ORDER BY c.id",
      ),
    ).toEqual([]);
  });

  it('names a filtered path the policy does not index, also inside functions and ORs', () => {
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.givenName = @v')).toEqual([
      'filter on /givenName is not indexed (the query scans its partitions)',
    ]);
    expect(gapsOf('SELECT * FROM c WHERE IS_DEFINED(c.personalNumbers) OR c.hasSensitive = true')).toEqual([
      'filter on /personalNumbers is not indexed (the query scans its partitions)',
    ]);
  });

  it('serves ARRAY_CONTAINS by an index on the array elements (/path/[]/?), and names it when missing', () => {
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND ARRAY_CONTAINS(c.upnKeys, @k)')).toEqual([]);
    const withoutElements: IndexingPolicy = {
      ...identities,
      includedPaths: (identities.includedPaths ?? []).filter((p) => p.path !== '/upnKeys/[]/?'),
    };
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND ARRAY_CONTAINS(c.upnKeys, @k)', withoutElements)).toEqual([
      'filter on /upnKeys/[] is not indexed (the query scans its partitions)',
    ]);
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND ARRAY_CONTAINS(c.upnKeys, c.givenName)')).toEqual([
      'filter on /givenName is not indexed (the query scans its partitions)',
    ]);
  });

  it('asks for a range index to order by a path, and a composite for ORDER BY with an equality filter', () => {
    expect(gapsOf('SELECT * FROM c ORDER BY c.familyName')).toEqual([
      'ORDER BY /familyName needs a range index on that path',
    ]);
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.link.status = @s ORDER BY c.id')).toEqual([]);
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.userNameKey = @s ORDER BY c.id')).toEqual([
      'ORDER BY /id with an equality filter on /userNameKey needs a composite index (one of those paths first, /id last)',
    ]);
    const audit = CONTAINERS.audit.indexingPolicy as IndexingPolicy;
    expect(gapsOf('SELECT * FROM c WHERE c.pk = @pk AND c.target.id = @t ORDER BY c.at', audit)).toEqual([]);
    const imports = CONTAINERS.imports.indexingPolicy as IndexingPolicy;
    expect(gapsOf("SELECT TOP 5 * FROM c WHERE c.pk = @pk AND c.kind = 'run' ORDER BY c.id DESC", imports)).toEqual([]);
    expect(gapsOf('SELECT * FROM c ORDER BY c.kind, c.id', imports)).toEqual([
      'ORDER BY /kind, /id needs a composite index on those paths',
    ]);
    expect(gapsOf('SELECT * FROM c ORDER BY c.kind DESC, c.id ASC', imports)).toEqual([]);
  });
});

describe('the engine and the indexing policy', () => {
  function identitiesStore() {
    const engine = new Engine('127.0.0.1', 1);
    engine.account.databases.create({ id: 'db' });
    const db = engine.account.database('db');
    db.collections.create({ ...CONTAINERS.identities, id: 'identities' });
    const store = storeOf(db.collection('identities'))!;
    for (let i = 0; i < 50; i++)
      store.create({ id: `i${i}`, pk: 'p', externalIdKey: `e${i}`, userNameKey: `u${i}`, givenName: `g${i % 5}` });
    return { engine, store };
  }

  it('charges a query on an unindexed path for every document of the partition, and records it', () => {
    const { engine, store } = identitiesStore();
    const indexed = withMeter(() =>
      store.query(
        { query: 'SELECT * FROM c WHERE c.externalIdKey = @v', parameters: [{ name: '@v', value: 'e1' }] },
        {},
        { value: 'p' },
      ),
    );
    expect(indexed.meter.ru).toBe(0);
    expect(engine.indexGaps()).toEqual([]);
    const scan = withMeter(() =>
      store.query(
        { query: 'SELECT * FROM c WHERE c.givenName = @v', parameters: [{ name: '@v', value: 'g1' }] },
        {},
        { value: 'p' },
      ),
    );
    expect(scan.result.result).toHaveLength(10);
    expect(scan.meter.ru).toBe(50);
    expect(engine.indexGaps()).toEqual([
      {
        container: 'identities',
        query: 'SELECT * FROM c WHERE c.givenName = @v',
        gaps: ['filter on /givenName is not indexed (the query scans its partitions)'],
      },
    ]);
  });

  it('refuses ORDER BY a path without a range index, as Cosmos DB does', () => {
    const { store } = identitiesStore();
    expect(() => store.query({ query: 'SELECT * FROM c ORDER BY c.givenName' }, {}, { value: 'p' })).toThrow(
      /cannot serve this ORDER BY: ORDER BY \/givenName needs a range index/,
    );
  });
});
