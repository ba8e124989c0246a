/**
 * One part of a staged import, checked as it arrives (pure): its identities by the same rules as a whole
 * import set (importInput.ts: every problem by index and field, never a value), its size, and a hash of its
 * content, so that the same part sent again is recognised and another one under the same sequence is not.
 */
import { createHash } from 'node:crypto';
import { badInput, DomainError } from '../util/domainError';
import { validateImportSet, type ImportIdentityInput, type ValidImportIdentity } from './importInput';
import { CODE } from '../util/errorCodes';
import { sealedGrowth } from '../crypto/fieldCrypto';

/** A staged import has at most this many parts (sequences 1 to MAX_PARTS). */
export const MAX_PARTS = 10_000;
/**
 * The largest stored form of a part's identities, in bytes of JSON: well under Cosmos DB's 2 MB item limit
 * (2,000 identities of typical size take about 0.5 MB).
 */
export const PART_MAX_STORED_BYTES = 1_500_000;

export interface PreparedPart {
  identities: ValidImportIdentity[];
  /** The identities' content hashes in order, hashed: equal for the same content (values as normalised). */
  hash: string;
  /** [externalId, content hash] per identity, in order: what the job reads to find what changed. */
  keys: Array<[string, string]>;
}

export function partHash(identities: readonly ValidImportIdentity[]): string {
  const h = createHash('sha256');
  for (const v of identities) h.update(v.hash).update('\n');
  return h.digest('base64url').slice(0, 22);
}

export function tooLarge(message: string): DomainError {
  return new DomainError(CODE.IMPORT_PART_TOO_LARGE, message);
}

/** The sequence of a part: a whole number from 1 to MAX_PARTS. */
export function checkSequence(sequence: unknown): number {
  if (typeof sequence !== 'number' || !Number.isInteger(sequence) || sequence < 1 || sequence > MAX_PARTS)
    throw badInput([{ field: 'input.sequence', problem: `must be a whole number from 1 to ${MAX_PARTS}` }]);
  return sequence;
}

/**
 * Checks a part: at most `maxIdentities` identities (IMPORT_PART_TOO_LARGE), each valid and no externalId
 * twice (BAD_USER_INPUT, index and field), and a stored form of at most PART_MAX_STORED_BYTES.
 */
export function preparePart(
  identities: ImportIdentityInput[],
  maxIdentities: number,
  /** Keys the content hashes for the tenant (lib/crypto/contentHashes.ts); plain without it. */
  keyHash: (plainHash: string) => string = (plainHash) => plainHash,
): PreparedPart {
  if (identities.length > maxIdentities)
    throw tooLarge(
      `A part carries at most ${maxIdentities} identities (maxIdentitiesPerPart); send the set in more parts`,
    );
  const valid = validateImportSet(identities, 'part').map((v) => ({ ...v, hash: keyHash(v.hash) }));
  const attributes = valid.map((v) => v.attributes);
  // As stored: its numbers sealed (lib/crypto), each several times its plain length.
  const stored = Buffer.byteLength(JSON.stringify(attributes), 'utf8') + sealedGrowth(attributes);
  if (stored > PART_MAX_STORED_BYTES)
    throw tooLarge(
      `The part's identities take more than ${PART_MAX_STORED_BYTES} bytes to store; send fewer identities per part`,
    );
  return {
    identities: valid,
    hash: partHash(valid),
    keys: valid.map((v) => [v.attributes.externalId, v.hash]),
  };
}

/** The sequences from 1 to the highest received that are not there, ascending. */
export function missingSequences(received: readonly number[]): number[] {
  const have = new Set(received);
  const highest = received.reduce((m, s) => Math.max(m, s), 0);
  const missing: number[] = [];
  for (let s = 1; s <= highest; s++) if (!have.has(s)) missing.push(s);
  return missing;
}
