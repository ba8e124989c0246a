import type { ImportIdentityInput } from '../../../lib/imports/importInput';
import {
  MAX_PARTS,
  PART_MAX_STORED_BYTES,
  checkSequence,
  missingSequences,
  preparePart,
} from '../../../lib/imports/stagedParts';
import { DomainError } from '../../../lib/util/domainError';

const person = (n: number, extra: Partial<ImportIdentityInput> = {}): ImportIdentityInput => ({
  externalId: `E${n}`,
  affiliationType: 'EMPLOYMENT',
  firstName: `First${n}`,
  lastName: `Last${n}`,
  ...extra,
});

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('a part of a staged import', () => {
  it('is validated by the rules of a whole set: every problem by index and field, never the value', () => {
    const err = refusal(() =>
      preparePart(
        [person(1), person(2, { lastName: '', personalNumbers: [{ type: 'DK_CPR', value: '3213999999' }] }), person(1)],
        10,
      ),
    );
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.problems).toEqual([
      { index: 1, field: 'identities[1].lastName', problem: 'must not be empty' },
      { index: 1, field: 'identities[1].personalNumbers[0].value', problem: 'must be a valid CPR number' },
      { index: 2, field: 'identities[2].externalId', problem: 'occurs more than once (also at identities[0])' },
    ]);
    expect(err.message).toBe('The part was refused: 3 problem(s) in it; it was not stored');
    expect(JSON.stringify(err)).not.toContain('3213999999');
    expect(refusal(() => preparePart([], 10)).problems).toEqual([
      { field: 'input.identities', problem: 'must not be empty' },
    ]);
  });

  it('has the same hash for the same content (as normalised) and another for other content or order', () => {
    const a = preparePart([person(1, { personalNumbers: [{ type: 'DK_CPR', value: '010190-1234' }] }), person(2)], 5);
    const same = preparePart([person(1, { personalNumbers: [{ type: 'DK_CPR', value: '0101901234' }] }), person(2)], 5);
    expect(same.hash).toBe(a.hash);
    expect(preparePart([person(2), person(1)], 5).hash).not.toBe(a.hash);
    expect(preparePart([person(1), person(2, { firstName: 'Other' })], 5).hash).not.toBe(a.hash);
    expect(a.keys).toEqual([
      ['E1', a.identities[0]!.hash],
      ['E2', a.identities[1]!.hash],
    ]);
  });

  it('is refused with more identities than a part may carry, or a stored form near the item limit', () => {
    expect(refusal(() => preparePart([person(1), person(2), person(3)], 2)).code).toBe('IMPORT_PART_TOO_LARGE');
    // 20 document references of the longest number each: about 2 KB an identity.
    const heavy = (n: number) =>
      person(n, {
        identityDocumentReferences: Array.from({ length: 20 }, () => ({
          type: 'PASSPORT',
          issuingCountry: 'DK',
          documentNumber: 'N'.repeat(64),
        })),
      });
    const many = Array.from({ length: Math.ceil(PART_MAX_STORED_BYTES / 2_000) + 10 }, (_, i) => heavy(i));
    const err = refusal(() => preparePart(many, 5_000));
    expect(err.code).toBe('IMPORT_PART_TOO_LARGE');
    expect(err.message).not.toContain('NNNN');
    expect(preparePart(many.slice(0, 100), 5_000).identities).toHaveLength(100);
  });

  it('counts the stored form with its numbers sealed: a part that fits plain but not encrypted is refused', () => {
    // 20 short document numbers an identity: about 1.1 KB plain, 2.4 KB sealed.
    const numbered = (n: number) =>
      person(n, {
        identityDocumentReferences: Array.from({ length: 20 }, (_, k) => ({
          type: 'PASSPORT',
          issuingCountry: 'DK',
          documentNumber: `P${k}`,
        })),
      });
    const count = Math.floor(PART_MAX_STORED_BYTES / 1_800);
    const part = Array.from({ length: count }, (_, i) => numbered(i));
    expect(
      Buffer.byteLength(JSON.stringify(preparePart(part.slice(0, 10), 5_000).identities.map((v) => v.attributes))) *
        (count / 10),
    ).toBeLessThan(PART_MAX_STORED_BYTES);
    expect(refusal(() => preparePart(part, 5_000)).code).toBe('IMPORT_PART_TOO_LARGE');
  });

  it('has a sequence from 1 to MAX_PARTS', () => {
    expect(checkSequence(1)).toBe(1);
    expect(checkSequence(MAX_PARTS)).toBe(MAX_PARTS);
    for (const bad of [0, -1, 1.5, MAX_PARTS + 1, '2', null])
      expect(refusal(() => checkSequence(bad)).problems).toEqual([
        { field: 'input.sequence', problem: `must be a whole number from 1 to ${MAX_PARTS}` },
      ]);
  });

  it('names the sequences missing below the highest received', () => {
    expect(missingSequences([])).toEqual([]);
    expect(missingSequences([1, 2, 3])).toEqual([]);
    expect(missingSequences([4, 1])).toEqual([2, 3]);
  });
});
