/** Limits of one Cosmos DB transactional batch, and how a list of documents is cut to fit them. */

/** Operations in one transactional batch (a Cosmos DB limit). */
export const MAX_BATCH_OPERATIONS = 100;
/** Request body of one batch: Cosmos DB allows 2 MB; the rest is headroom for the envelope. */
export const MAX_BATCH_BYTES = 1_800_000;

/**
 * Cuts `docs` into consecutive groups of at most `maxOps` documents and `maxBytes` of JSON each,
 * keeping their order. A document larger than `maxBytes` on its own forms its own group.
 */
export function splitForBatches<T>(
  docs: readonly T[],
  maxOps = MAX_BATCH_OPERATIONS,
  maxBytes = MAX_BATCH_BYTES,
): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const doc of docs) {
    const size = Buffer.byteLength(JSON.stringify(doc), 'utf8');
    if (current.length > 0 && (current.length >= maxOps || bytes + size > maxBytes)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(doc);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
