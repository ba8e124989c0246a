import { parse } from 'graphql';
import { ByteBoundedCache } from '../../../lib/graphql/documentCache';
import { fieldCount, MAX_FIELDS } from '../../../lib/graphql/limits';

describe('ByteBoundedCache', () => {
  it('never keeps an entry longer than the entry limit', () => {
    const cache = new ByteBoundedCache<number>(1000, 10);
    cache.set('x'.repeat(11), 1);
    expect(cache.get('x'.repeat(11))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stays within the byte bound, dropping the least recently used first', () => {
    const cache = new ByteBoundedCache<number>(30, 10);
    for (let i = 0; i < 3; i++) cache.set(`k${i}`.padEnd(10, '.'), i);
    expect(cache.get('k0'.padEnd(10, '.'))).toBe(0); // k0 is now the most recent
    cache.set('k3'.padEnd(10, '.'), 3);
    expect(cache.totalBytes).toBeLessThanOrEqual(30);
    expect(cache.get('k1'.padEnd(10, '.'))).toBeUndefined();
    expect([0, 2, 3].map((i) => cache.get(`k${i}`.padEnd(10, '.')))).toEqual([0, 2, 3]);
  });

  it('counts a key once when it is set again', () => {
    const cache = new ByteBoundedCache<number>(100, 10);
    cache.set('abc', 1);
    cache.set('abc', 2);
    expect({ size: cache.size, bytes: cache.totalBytes, value: cache.get('abc') }).toEqual({
      size: 1,
      bytes: 3,
      value: 2,
    });
  });

  it('holds a bounded total under a flood of distinct documents', () => {
    const cache = new ByteBoundedCache<number>(10_000, 1_000);
    for (let i = 0; i < 10_000; i++) cache.set(`query Q${i} { a }`.padEnd(900, ' '), i);
    expect(cache.totalBytes).toBeLessThanOrEqual(10_000);
  });
});

describe('fieldCount', () => {
  it('counts every field selection of every definition, fragments once', () => {
    expect(fieldCount(parse('{ a { b c } d ... on Q { e } } fragment F on Q { f g }'))).toBe(7);
  });

  it('goes past the limit for the repeated-field shape of a flood', () => {
    expect(fieldCount(parse(`{ ${'a { b } '.repeat(MAX_FIELDS)} }`))).toBe(2 * MAX_FIELDS);
  });
});
