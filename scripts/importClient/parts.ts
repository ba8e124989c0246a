/*
 * Cutting a list (identities of a staged import, pairs of an association) into requests that stay within
 * both bounds of the service: at most so many items per request, and at most so many body bytes (the
 * service refuses a larger GraphQL body with USE_STAGED_IMPORT before it reads it). The cut depends only
 * on the items and the bounds, so the same file cut again gives the same parts: a resumed upload sends
 * the same identities under the same sequence numbers.
 */

/** GRAPHQL_MAX_BODY_BYTES's default: the largest GraphQL request body the service reads. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Room kept in each body for the query text and the variables around the list. */
export const ENVELOPE_BYTES = 4 * 1024;

export interface PartLimits {
  /** Items per request. */
  maxItems: number;
  /** Bytes of the whole request body. */
  maxBytes: number;
}

/** Items [start, end) of the list, sent as `sequence` (1, 2, 3, …). */
export interface Part {
  sequence: number;
  start: number;
  end: number;
}

/** One item alone does not fit in a request body. */
export class ItemTooLarge extends Error {
  constructor(readonly index: number) {
    super(`item ${index} is larger than a request may be`);
    this.name = 'ItemTooLarge';
  }
}

/** Each item's size in a JSON body (UTF-8 bytes of its JSON text). */
export function jsonSizes(items: readonly unknown[]): number[] {
  return items.map((item) => Buffer.byteLength(JSON.stringify(item)));
}

/**
 * Greedy cut: a part takes items while it has fewer than maxItems and its body (envelope, items and the
 * commas between them) stays within maxBytes.
 */
export function planParts(sizes: readonly number[], limits: PartLimits): Part[] {
  if (!(limits.maxItems >= 1)) throw new RangeError('maxItems must be at least 1');
  const budget = limits.maxBytes - ENVELOPE_BYTES;
  const parts: Part[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = (sizes[i] ?? 0) + 1;
    if (size > budget) throw new ItemTooLarge(i);
    if (i > start && (i - start >= limits.maxItems || bytes + size > budget)) {
      parts.push({ sequence: parts.length + 1, start, end: i });
      start = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (sizes.length > start) parts.push({ sequence: parts.length + 1, start, end: sizes.length });
  return parts;
}
