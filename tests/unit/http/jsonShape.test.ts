import fc from 'fast-check';
import { JsonShapeMeter } from '../../../lib/http/jsonShape';

/** The reference: every value JSON.parse builds (keys not counted), and the deepest array/object nesting. */
function reference(text: string): { values: number; depth: number } {
  const walk = (v: unknown): { values: number; depth: number } => {
    if (v === null || typeof v !== 'object') return { values: 1, depth: 0 };
    const children = (Array.isArray(v) ? v : Object.values(v as object)).map(walk);
    return {
      values: 1 + children.reduce((n, c) => n + c.values, 0),
      depth: 1 + children.reduce((d, c) => Math.max(d, c.depth), 0),
    };
  };
  return walk(JSON.parse(text));
}

/** The bytes cut at the given positions (any order, repeats allowed). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}

function measure(chunks: Uint8Array[], maxValues = 1e9, maxDepth = 1e4) {
  const meter = new JsonShapeMeter(maxValues, maxDepth);
  let excess: string | undefined;
  for (const chunk of chunks) {
    excess = meter.feed(chunk);
    if (excess) break;
  }
  return { excess, values: meter.values, depth: meter.maxNesting };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
/** Characters of strings and keys: often JSON's own (quotes and backslashes are escaped), else any Unicode. */
const stringUnit = fc.oneof(
  fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ':', ' ', '\n', '\u0000', '\u2028', '1', 't'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
/** JSON text of a random value, compact or indented. */
const jsonText = fc
  .tuple(
    fc.jsonValue({ stringUnit, maxDepth: 8 }),
    fc.constantFrom<string | number | undefined>(undefined, 1, '\t', ' \r'),
  )
  .map(([value, indent]) => JSON.stringify(value, null, indent));
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe('JsonShapeMeter', () => {
  it('counts the values and depth JSON.parse finds in any JSON text, however its bytes are split', () => {
    fc.assert(
      fc.property(jsonText, cuts, (text, at) => {
        const expected = reference(text);
        const got = measure(split(utf8(text), at));
        expect(got).toEqual({ excess: undefined, ...expected });
      }),
      { numRuns: 500, seed: 35 },
    );
  });

  it('refuses exactly past each bound: at the bound the text passes, one below it is refused', () => {
    fc.assert(
      fc.property(jsonText, cuts, (text, at) => {
        const { values, depth } = reference(text);
        const chunks = split(utf8(text), at);
        expect(measure(chunks, values, Math.max(depth, 1)).excess).toBeUndefined();
        expect(measure(chunks, values - 1).excess).toBe('values');
        if (depth > 1) expect(measure(chunks, 1e9, depth - 1).excess).toBe('depth');
      }),
      { numRuns: 300, seed: 36 },
    );
  });

  it.each([
    ['an escaped quote', '["a\\"b",{"k\\"":"v"}]', 4],
    ['an escaped backslash before the closing quote', '["a\\\\",["\\\\"]]', 4],
    ['escaped structure characters', '{"x":"\\u005b\\u007b[{,:"}', 2],
    ['keys and values that look like structure', '{"[":"]","{":"}",",":":"}', 4],
    ['numbers and literals', '[-1.5e+10,0,true,false,null,{"n":-0}]', 8],
    ['multi-byte characters', '{"å":"日本語 😀","b":["ø"]}', 4],
    ['whitespace everywhere', ' \t\r\n[ 1 , [ ] , { "a" : 2 } ] \n', 5],
  ])('%s: the same count at every single split', (_what, text, values) => {
    const bytes = utf8(text);
    expect(reference(text).values).toBe(values);
    for (let cut = 0; cut <= bytes.length; cut++) expect(measure(split(bytes, [cut])).values).toBe(values);
    expect(measure([...bytes].map((b) => Uint8Array.of(b))).values).toBe(values);
  });

  it('stops a large body of tiny values at the first value past the bound, in the chunk that passed it', () => {
    const chunk = utf8('[],'.repeat(64 * 1024));
    const meter = new JsonShapeMeter(100_000, 64);
    expect(meter.feed(utf8('{"query":"{ x }","variables":{"x":['))).toBeUndefined();
    let chunks = 0;
    let excess;
    while (!(excess = meter.feed(chunk))) chunks++;
    expect(excess).toBe('values');
    expect(meter.values).toBe(100_001);
    // 64 Ki arrays a chunk: the bound is passed in the second chunk.
    expect(chunks).toBe(1);
  });

  it('stops a deep body at the first level past the bound', () => {
    const meter = new JsonShapeMeter(1e6, 64);
    expect(meter.feed(utf8('{"variables":' + '['.repeat(63)))).toBeUndefined();
    expect(meter.feed(utf8('['))).toBe('depth');
    expect(meter.maxNesting).toBe(65);
  });

  it('never throws on bytes that are not JSON', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        const meter = new JsonShapeMeter(1e9, 16);
        for (const c of chunks) meter.feed(c);
        expect(meter.values).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300, seed: 37 },
    );
  });
});
