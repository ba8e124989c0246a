/**
 * GraphQL JSON bodies of a given size made chunk by chunk (for postStreamed in scripts/bench/streamedPost.ts),
 * so a test can send 100 MB without holding it.
 */
import type { BodyChunks } from '../../scripts/bench/streamedPost';

const QUERY = '{"query":"query Bounded { __typename }","variables":';

/** `size` bytes: the prefix, spaces, then `unit` repeated up to the suffix. */
function repeated(size: number, prefix: string, unit: string, suffix: string): BodyChunks {
  const head = Buffer.from(prefix);
  const tail = Buffer.from(suffix);
  const units = Math.floor((size - head.length - tail.length) / unit.length);
  const bodyStart = size - tail.length - units * unit.length;
  const bodyEnd = size - tail.length;
  // Copied from, so a chunk of the repeated part costs one copy.
  const pattern = Buffer.from(unit.repeat(Math.ceil((64 * 1024) / unit.length) + 2));
  return (offset, length) => {
    const out = Buffer.alloc(length, 0x20);
    for (let i = 0; i < length;) {
      const at = offset + i;
      if (at < head.length) out[i++] = head[at] ?? 0x20;
      else if (at >= bodyEnd) out[i++] = tail[at - bodyEnd] ?? 0x20;
      else if (at < bodyStart) i++;
      else {
        const phase = (at - bodyStart) % unit.length;
        const n = Math.min(length - i, bodyEnd - at, pattern.length - phase);
        pattern.copy(out, i, phase, phase + n);
        i += n;
      }
    }
    return out;
  };
}

/** `{"query":…,"variables":{"x":[[],[],…,[]]}}`: a value every 3 bytes. */
export const tinyValuesBody = (size: number): BodyChunks => repeated(size, `${QUERY}{"x":[`, '[],', '[]]}}');

/** `{"query":…,"variables":{"s":"aaa…"}}`: one long string, three values in all. */
export const longStringBody = (size: number): BodyChunks => repeated(size, `${QUERY}{"s":"`, 'a', '"}}');

/** A JSON body whose variable `x` nests `depth` arrays (the whole body `depth` + 2 levels deep). */
export const deepBody = (depth: number): string => `${QUERY}{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
