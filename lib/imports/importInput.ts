/**
 * Validation of a whole import set before anything is written (spec §4.2 rule 2): every problem
 * is collected with its index and field, never its value; one problem rejects the set.
 */
import { createHash } from 'node:crypto';
import type { AffiliationType, DocumentType, IdentityAttributes } from '../identities/model';
import {
  isPlausibleEmail,
  isValidLocalDate,
  normalizeCountryCode,
  normalizeCpr,
  normalizeE164,
} from '../identities/formats';
import { IDENTITY_LIMITS } from '../identities/rules';
import { badInput, type FieldProblem } from '../util/domainError';

export interface ImportIdentityInput {
  externalId: string;
  affiliationType: string;
  firstName: string;
  lastName: string;
  birthDate?: string | null;
  nationality?: string | null;
  personalEmail?: string | null;
  personalPhone?: string | null;
  personalNumbers?: Array<{ type: string; value: string }> | null;
  identityDocumentReferences?: Array<{ type: string; issuingCountry: string; documentNumber?: string | null }> | null;
}

export interface ValidImportIdentity {
  attributes: IdentityAttributes;
  /** Hash of the attributes, to find what changed since the last import. */
  hash: string;
}

const MAX_NAME_LENGTH = IDENTITY_LIMITS.name;
const MAX_EMAIL_LENGTH = IDENTITY_LIMITS.personalEmail;
const MAX_EXTERNAL_ID_LENGTH = IDENTITY_LIMITS.externalId;
const MAX_DOCUMENT_NUMBER_LENGTH = IDENTITY_LIMITS.documentNumber;
export const MAX_REPORTED_PROBLEMS = 100;
export const RESERVED_SOURCE = 'manual';

const AFFILIATIONS: Record<string, AffiliationType> = {
  EMPLOYMENT: 'employment',
  ENROLLMENT: 'enrollment',
  ENGAGEMENT: 'engagement',
  OTHER: 'other',
};
const DOCUMENT_TYPES: Record<string, DocumentType> = { PASSPORT: 'Passport', IDENTITY_CARD: 'IdentityCard' };

/** Source names: not empty, not `Manual` in any case, no control characters, at most 128 characters. */
export function validateSourceName(source: unknown, field = 'input.source'): string {
  if (typeof source !== 'string' || source.trim() === '') throw badInput([{ field, problem: 'must not be empty' }]);
  if (source.trim().toLowerCase() === RESERVED_SOURCE)
    throw badInput([{ field, problem: 'Manual is reserved for identities that administrators create' }]);
  // eslint-disable-next-line no-control-regex
  if (source.length > 128 || /[\u0000-\u001f\u007f]/.test(source))
    throw badInput([{ field, problem: 'must be at most 128 printable characters' }]);
  return source;
}

export function contentHash(a: IdentityAttributes): string {
  const canonical = [
    a.externalId,
    a.affiliationType,
    a.givenName,
    a.familyName,
    a.active,
    a.birthDate ?? null,
    a.nationality ?? null,
    a.personalEmail ?? null,
    a.personalPhone ?? null,
    a.personalNumbers.map((p) => [p.type, p.value]),
    a.identityDocumentReferences.map((d) => [d.type, d.issuingCountry, d.documentNumber]),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
}

function validateOne(
  input: ImportIdentityInput,
  index: number,
  problems: FieldProblem[],
): IdentityAttributes | undefined {
  const start = problems.length;
  const at = `identities[${index}]`;
  const add = (field: string, problem: string) => problems.push({ index, field: `${at}.${field}`, problem });

  if (typeof input.externalId !== 'string' || input.externalId === '') add('externalId', 'must not be empty');
  else if (input.externalId.length > MAX_EXTERNAL_ID_LENGTH)
    add('externalId', `must be at most ${MAX_EXTERNAL_ID_LENGTH} characters`);
  const affiliationType = AFFILIATIONS[input.affiliationType];
  if (!affiliationType) add('affiliationType', 'must be EMPLOYMENT, ENROLLMENT, ENGAGEMENT or OTHER');
  for (const field of ['firstName', 'lastName'] as const) {
    const v = input[field];
    if (typeof v !== 'string' || v.trim() === '') add(field, 'must not be empty');
    else if (v.length > MAX_NAME_LENGTH) add(field, `must be at most ${MAX_NAME_LENGTH} characters`);
  }
  if (input.birthDate != null && !isValidLocalDate(input.birthDate)) add('birthDate', 'must be a date YYYY-MM-DD');
  let nationality: string | undefined;
  if (input.nationality != null) {
    const r = normalizeCountryCode(input.nationality);
    if (r.ok) nationality = r.value;
    else add('nationality', 'must be an ISO 3166-1 alpha-2 country code');
  }
  if (input.personalEmail != null) {
    if (input.personalEmail.length > MAX_EMAIL_LENGTH)
      add('personalEmail', `must be at most ${MAX_EMAIL_LENGTH} characters`);
    else if (!isPlausibleEmail(input.personalEmail)) add('personalEmail', 'must be an email address');
  }
  let personalPhone: string | undefined;
  if (input.personalPhone != null) {
    const r = normalizeE164(input.personalPhone);
    if (r.ok) personalPhone = r.value;
    else add('personalPhone', 'must be an E.164 number (+, country code, number, no spaces)');
  }
  const personalNumbers: IdentityAttributes['personalNumbers'] = [];
  const seenTypes = new Set<string>();
  (input.personalNumbers ?? []).forEach((p, i) => {
    if (p.type !== 'DK_CPR') add(`personalNumbers[${i}].type`, 'must be DK_CPR');
    else if (seenTypes.has(p.type)) add(`personalNumbers[${i}].type`, 'only one personal number per type');
    seenTypes.add(p.type);
    const r = normalizeCpr(p.value);
    if (r.ok) personalNumbers.push({ type: 'DkCpr', value: r.value });
    else add(`personalNumbers[${i}].value`, 'must be a valid CPR number');
  });
  const identityDocumentReferences: IdentityAttributes['identityDocumentReferences'] = [];
  (input.identityDocumentReferences ?? []).forEach((d, i) => {
    const type = DOCUMENT_TYPES[d.type];
    if (!type) add(`identityDocumentReferences[${i}].type`, 'must be PASSPORT or IDENTITY_CARD');
    const country = normalizeCountryCode(d.issuingCountry ?? '');
    if (!country.ok)
      add(`identityDocumentReferences[${i}].issuingCountry`, 'must be an ISO 3166-1 alpha-2 country code');
    const number = d.documentNumber;
    if (typeof number !== 'string' || number.trim() === '')
      add(`identityDocumentReferences[${i}].documentNumber`, 'must be present');
    else if (number.length > MAX_DOCUMENT_NUMBER_LENGTH)
      add(
        `identityDocumentReferences[${i}].documentNumber`,
        `must be at most ${MAX_DOCUMENT_NUMBER_LENGTH} characters`,
      );
    if (type && country.ok && typeof number === 'string')
      identityDocumentReferences.push({ type, issuingCountry: country.value, documentNumber: number });
  });
  if (problems.length > start || !affiliationType) return undefined;
  return {
    externalId: input.externalId,
    givenName: input.firstName,
    familyName: input.lastName,
    active: true,
    affiliationType,
    ...(input.birthDate != null ? { birthDate: input.birthDate } : {}),
    ...(nationality !== undefined ? { nationality } : {}),
    ...(input.personalEmail != null ? { personalEmail: input.personalEmail } : {}),
    ...(personalPhone !== undefined ? { personalPhone } : {}),
    personalNumbers,
    identityDocumentReferences,
  };
}

/** What is validated: a whole set (importBusinessIdentities) or one part of a staged import (addImportPart). */
export type ImportListKind = 'set' | 'part';

/**
 * Validates a whole set, or one part of a staged import; throws BAD_USER_INPUT listing the problems (first
 * 100, each with the identity's index in the list) when any exists.
 */
export function validateImportSet(
  identities: ImportIdentityInput[],
  kind: ImportListKind = 'set',
): ValidImportIdentity[] {
  const problems: FieldProblem[] = [];
  if (identities.length === 0)
    throw badInput(
      [{ field: 'input.identities', problem: 'must not be empty' }],
      kind === 'set' ? 'The import set is empty' : 'The part is empty',
    );
  const out: ValidImportIdentity[] = [];
  const firstIndex = new Map<string, number>();
  identities.forEach((input, i) => {
    const seen = firstIndex.get(input.externalId);
    if (seen !== undefined)
      problems.push({
        index: i,
        field: `identities[${i}].externalId`,
        problem: `occurs more than once (also at identities[${seen}])`,
      });
    else firstIndex.set(input.externalId, i);
    const attributes = validateOne(input, i, problems);
    if (attributes) out.push({ attributes, hash: contentHash(attributes) });
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
    throw badInput(
      shown,
      kind === 'set'
        ? `The import was rejected: ${problems.length} problem(s) in the set; nothing was changed`
        : `The part was refused: ${problems.length} problem(s) in it; it was not stored`,
    );
  }
  return out;
}
