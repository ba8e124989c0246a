import fc from 'fast-check';
import { QueryTextMeter } from '../../../lib/graphql/queryTextMeter';

/** Feeds `body` in chunks of `size` bytes; the index of the chunk at which the meter refused, or -1. */
function refusedAt(body: string, max: number, size: number): number {
  const meter = new QueryTextMeter(max);
  const bytes = Buffer.from(body, 'utf8');
  for (let i = 0, n = 0; i < bytes.length; i += size, n++) if (meter.exceeded(bytes.subarray(i, i + size))) return n;
  return -1;
}

describe('QueryTextMeter', () => {
  it('refuses a query text longer than the cap as soon as the cap is passed, whatever the chunking', () => {
    const body = JSON.stringify({ query: `{ ${'__typename '.repeat(1000)}}` });
    for (const size of [1, 7, 64, 100_000]) expect(refusedAt(body, 1000, size)).not.toBe(-1);
    // Byte by byte: refused within the first 1,000 bytes of the text, not at its end.
    expect(refusedAt(body, 1000, 1)).toBeLessThan(1100);
  });

  it('accepts a query text at the cap, and does not count variables, operationName or nested "query" members', () => {
    const query = 'x'.repeat(1000);
    const big = 'y'.repeat(50_000);
    const body = JSON.stringify({
      variables: { query: big, list: [big, { query: big }] },
      operationName: 'Q',
      query,
      extensions: { query: big },
    });
    expect(refusedAt(body, 1000, 13)).toBe(-1);
    expect(refusedAt(body, 999, 13)).not.toBe(-1);
  });

  it('counts an escape sequence as one byte (never more than the decoded text), and escaped quotes do not end the text', () => {
    const body = `{"query":"${'\\"\\u0041\\n'.repeat(400)}"}`;
    expect(refusedAt(body, 1200, 5)).toBe(-1);
    expect(refusedAt(body, 1199, 5)).not.toBe(-1);
  });

  it('measures the value of a key written with escapes (it may decode to "query")', () => {
    const body = `{"\\u0071uery":"${'a'.repeat(2000)}"}`;
    expect(JSON.parse(body)).toHaveProperty('query');
    expect(refusedAt(body, 1000, 64)).not.toBe(-1);
  });

  it('keeps track across numbers, literals and arrays at the top level', () => {
    const body = `{"a":1,"b":true,"c":[1,"${'z'.repeat(5000)}"],"d":null,"query":"${'q'.repeat(2000)}"}`;
    expect(refusedAt(body, 1000, 3)).not.toBe(-1);
    expect(refusedAt(body, 2000, 3)).toBe(-1);
  });

  it('measures the query text exactly among any other members, escapes and chunk splits (strings it skips included)', () => {
    const unit = fc.oneof(
      fc.constantFrom('"', '\\', '{', '}', '[', ']', ':', ',', 'q', 'é', '\n', '\u0001'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const member = fc.tuple(
      // Keys without escapes (a key written with escapes is measured as if it were "query").
      fc
        .string({ unit: fc.constantFrom('q', 'u', 'e', 'r', 'y', 'é', '{', '[', ':', ',', ' '), maxLength: 8 })
        .filter((k) => k !== 'query'),
      fc.jsonValue({ stringUnit: unit, maxDepth: 3 }),
    );
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 4 }),
        fc.string({ unit, maxLength: 40 }),
        fc.array(member, { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (before, query, after, cuts) => {
          const body = `{${[...before, ['query', query] as const, ...after]
            .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
            .join(',')}}`;
          // Each escape sequence counts as one byte, everything else as its UTF-8 bytes.
          const expected = Buffer.byteLength(
            JSON.stringify(query)
              .slice(1, -1)
              .replace(/\\u[0-9a-f]{4}|\\./gi, 'E'),
          );
          const bytes = Buffer.from(body, 'utf8');
          const meter = new QueryTextMeter(1e9);
          let from = 0;
          for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
            expect(meter.exceeded(bytes.subarray(from, cut))).toBe(false);
            from = cut;
          }
          expect(meter.exceeded(bytes.subarray(from))).toBe(false);
          expect(meter.measured).toBe(expected);
        },
      ),
      { numRuns: 400, seed: 35 },
    );
  });
});
