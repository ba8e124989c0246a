/**
 * The attributes of a business identity, one row each: its name in the model, where SCIM carries it, what
 * GraphQL and imports call it, its type, format and limit, whether it is sensitive, and how SCIM describes it.
 * Everything that lists attributes one by one derives from this table: the model's type, the limits, the
 * SCIM schema at /Schemas, the SCIM and import validators and mappings, the content hash of imports, the
 * GraphQL view and the change list of an identity. schema.graphql is checked against it by a unit test.
 *
 * The order of the rows is the order of each SCIM schema's attributes, of the problems of an import, and of
 * the content hash over the rows marked `contentHash`. Stored hashes compare with it: moving such a row makes
 * the next import rewrite every identity once. A new row goes at the end: the hash leaves out trailing absent
 * values, so identities without the new attribute keep their hash.
 */
import {
  isPlausibleEmail,
  isValidLocalDate,
  normalizeCountryCode,
  normalizeCpr,
  normalizeE164,
  type FormatResult,
} from './formats';
import { MAX_UPN_LENGTH, isUpnShaped } from './upn';

// ---- value formats ----------------------------------------------------------------------------

/** A value format: the stored form of a valid value, and how each API words a value that fails it (never the value). */
export interface ValueFormat {
  normalize: (value: string) => FormatResult;
  /** After the attribute's SCIM path. */
  scimProblem: string;
  /** The problem of an import's field. */
  importProblem: string;
}

const keptIf =
  (check: (v: string) => boolean, reason: string) =>
  (v: string): FormatResult =>
    check(v) ? { ok: true, value: v } : { ok: false, reason };

export const VALUE_FORMATS = {
  cpr: {
    normalize: normalizeCpr,
    scimProblem: 'must be a valid CPR number (10 digits starting with a date DDMMYY, optionally one dash)',
    importProblem: 'must be a valid CPR number',
  },
  localDate: {
    normalize: keptIf(isValidLocalDate, 'must be a real date in the form YYYY-MM-DD'),
    scimProblem: 'must be a real date in the form YYYY-MM-DD',
    importProblem: 'must be a date YYYY-MM-DD',
  },
  countryCode: {
    normalize: normalizeCountryCode,
    scimProblem: 'must be an ISO 3166-1 alpha-2 country code',
    importProblem: 'must be an ISO 3166-1 alpha-2 country code',
  },
  e164: {
    normalize: normalizeE164,
    scimProblem: 'must be an E.164 phone number (+, country code and number, at most 15 digits, no spaces)',
    importProblem: 'must be an E.164 number (+, country code, number, no spaces)',
  },
  email: {
    normalize: keptIf(isPlausibleEmail, 'must be an email address'),
    scimProblem: 'must be an email address (local@domain)',
    importProblem: 'must be an email address',
  },
  upn: {
    normalize: keptIf(isUpnShaped, 'must be a user principal name'),
    scimProblem:
      "must be a user principal name (name@domain) of the characters Entra allows: A-Z a-z 0-9 ' . - _ ! # ^ ~",
    importProblem: 'must be a user principal name',
  },
} as const satisfies Record<string, ValueFormat>;

export type ValueFormatName = keyof typeof VALUE_FORMATS;

// ---- the shape of a row ---------------------------------------------------------------------------

/** A value of an enumeration: as the model (and SCIM) writes it, and as GraphQL's enum names it. */
export interface EnumValue {
  readonly model: string;
  readonly graphql: string;
}

/** A field of an item of a list attribute (a SCIM sub-attribute). Every field of an item is required. */
export interface ItemField {
  readonly name: string;
  readonly type: 'string' | 'enum';
  readonly values?: readonly EnumValue[];
  readonly format?: ValueFormatName;
  readonly maxLength?: number;
  readonly scim: { readonly caseExact: boolean; readonly description: string };
}

export interface AttributeRow {
  /** The name in the identity model (and the stored document). */
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'enum' | 'list';
  readonly values?: readonly EnumValue[];
  readonly format?: ValueFormatName;
  /** Characters of a string. */
  readonly maxLength?: number;
  /** Items of a list. */
  readonly maxItems?: number;
  readonly items?: readonly ItemField[];
  /** A list holds one item per value of its `type` field; the problem each API names when one repeats. */
  readonly oneItemPerType?: { readonly scimProblem: string; readonly importProblem: string };
  /**
   * Optional attributes may be absent (a new version without one removes it); the others are always present
   * (a list may be empty; an attribute with a `default` takes it when a source leaves it out).
   */
  readonly optional: boolean;
  readonly default?: boolean;
  /**
   * Personal numbers and document references: never in a GraphQL answer (their field shows only the kinds
   * stored), never in a SCIM filter, deleted after the retention period, never in logs or errors.
   */
  readonly sensitive: boolean;
  /** Part of the content hash by which an import finds an unchanged identity. */
  readonly contentHash: boolean;
  readonly scim: {
    /** The core User schema or the service extension. */
    readonly schema: 'core' | 'extension';
    /** The path within the schema; `name.givenName` is the sub-attribute givenName of the complex name. */
    readonly path: string;
    readonly required: boolean;
    readonly caseExact: boolean;
    readonly uniqueness: 'none' | 'server';
    readonly mutability: 'readWrite';
    readonly description: string;
    /** An empty string means the attribute is absent. */
    readonly emptyMeansAbsent?: boolean;
  };
  /** The field of GraphQL's BusinessIdentity that shows it; absent: GraphQL does not show it. */
  readonly graphql?: string;
  /** The field of GraphQL's ImportBusinessIdentityInput (the import set); absent: imports do not send it. */
  readonly importField?: string;
  /** The field of GraphQL's UpdateBusinessIdentityInput that changes it on a Manual identity. */
  readonly updateField?: string;
  /** Imports refuse a value of only white space (SCIM accepts it). */
  readonly blankRefusedInImports?: boolean;
}

const notSensitive = { sensitive: false, contentHash: true } as const;
const scimText = { required: false, caseExact: false, uniqueness: 'none', mutability: 'readWrite' } as const;

// ---- the table ----------------------------------------------------------------------------------

export const IDENTITY_ATTRIBUTES = [
  {
    name: 'externalId',
    type: 'string',
    maxLength: 256,
    optional: false,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'core',
      path: 'externalId',
      required: true,
      caseExact: true,
      uniqueness: 'server',
      description: "Identifier of the person in the provisioning system; stays the same for the person's life.",
    },
    graphql: 'externalId',
    importField: 'externalId',
  },
  {
    name: 'userName',
    type: 'string',
    maxLength: 256,
    optional: true,
    sensitive: false,
    contentHash: false,
    scim: {
      ...scimText,
      schema: 'core',
      path: 'userName',
      required: true,
      uniqueness: 'server',
      description: 'Unique within the integration, case-insensitive. Not used to find the directory user.',
    },
    graphql: 'userName',
  },
  {
    name: 'affiliationType',
    type: 'enum',
    values: [
      { model: 'employment', graphql: 'EMPLOYMENT' },
      { model: 'enrollment', graphql: 'ENROLLMENT' },
      { model: 'engagement', graphql: 'ENGAGEMENT' },
      { model: 'other', graphql: 'OTHER' },
    ],
    optional: false,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'extension',
      path: 'affiliationType',
      required: true,
      description: 'employment, enrollment, engagement or other (any case on input).',
    },
    graphql: 'affiliationType',
    importField: 'affiliationType',
    updateField: 'affiliationType',
  },
  {
    name: 'givenName',
    type: 'string',
    maxLength: 128,
    optional: false,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'core',
      path: 'name.givenName',
      required: true,
      description: 'Given name, at most 128 characters.',
    },
    graphql: 'firstName',
    importField: 'firstName',
    updateField: 'firstName',
    blankRefusedInImports: true,
  },
  {
    name: 'familyName',
    type: 'string',
    maxLength: 128,
    optional: false,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'core',
      path: 'name.familyName',
      required: true,
      description: 'Family name, at most 128 characters.',
    },
    graphql: 'lastName',
    importField: 'lastName',
    updateField: 'lastName',
    blankRefusedInImports: true,
  },
  {
    name: 'active',
    type: 'boolean',
    optional: false,
    default: true,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'core',
      path: 'active',
      description: 'false makes the business identity inactive. Default true.',
    },
    graphql: 'active',
    updateField: 'active',
  },
  {
    name: 'birthDate',
    type: 'string',
    format: 'localDate',
    optional: true,
    ...notSensitive,
    scim: { ...scimText, schema: 'extension', path: 'birthDate', description: 'YYYY-MM-DD.' },
    graphql: 'birthDate',
    importField: 'birthDate',
    updateField: 'birthDate',
  },
  {
    name: 'nationality',
    type: 'string',
    format: 'countryCode',
    optional: true,
    ...notSensitive,
    scim: { ...scimText, schema: 'extension', path: 'nationality', description: 'ISO 3166-1 alpha-2 code.' },
    graphql: 'nationality',
    importField: 'nationality',
    updateField: 'nationality',
  },
  {
    name: 'personalEmail',
    type: 'string',
    format: 'email',
    maxLength: 200,
    optional: true,
    ...notSensitive,
    scim: {
      ...scimText,
      schema: 'extension',
      path: 'personalEmail',
      description: 'Private address, not the work address. At most 200 characters.',
    },
    importField: 'personalEmail',
    updateField: 'personalEmail',
  },
  {
    name: 'personalPhone',
    type: 'string',
    format: 'e164',
    optional: true,
    ...notSensitive,
    scim: { ...scimText, schema: 'extension', path: 'personalPhone', description: 'Private number, E.164.' },
    importField: 'personalPhone',
    updateField: 'personalPhone',
  },
  {
    name: 'personalNumbers',
    type: 'list',
    maxItems: 10,
    items: [
      {
        name: 'type',
        type: 'enum',
        values: [{ model: 'DkCpr', graphql: 'DK_CPR' }],
        scim: { caseExact: false, description: 'DkCpr' },
      },
      {
        name: 'value',
        type: 'string',
        format: 'cpr',
        scim: { caseExact: true, description: 'CPR number: 10 digits, returned without dash.' },
      },
    ],
    oneItemPerType: {
      scimProblem: 'repeats a type: one number per type is allowed',
      importProblem: 'only one personal number per type',
    },
    optional: false,
    sensitive: true,
    contentHash: true,
    scim: {
      ...scimText,
      schema: 'extension',
      path: 'personalNumbers',
      description: 'Sensitive. One number per type. Cannot be used in a filter.',
    },
    graphql: 'personalNumberTypes',
    importField: 'personalNumbers',
    updateField: 'personalNumbers',
  },
  {
    name: 'identityDocumentReferences',
    type: 'list',
    maxItems: 20,
    items: [
      {
        name: 'type',
        type: 'enum',
        values: [
          { model: 'Passport', graphql: 'PASSPORT' },
          { model: 'IdentityCard', graphql: 'IDENTITY_CARD' },
        ],
        scim: { caseExact: false, description: 'Passport or IdentityCard' },
      },
      {
        name: 'issuingCountry',
        type: 'string',
        format: 'countryCode',
        scim: { caseExact: false, description: 'ISO 3166-1 alpha-2 code.' },
      },
      {
        name: 'documentNumber',
        type: 'string',
        maxLength: 64,
        scim: { caseExact: true, description: 'The number of the document.' },
      },
    ],
    optional: false,
    sensitive: true,
    contentHash: true,
    scim: {
      ...scimText,
      schema: 'extension',
      path: 'identityDocumentReferences',
      description: 'Sensitive. Cannot be used in a filter.',
    },
    graphql: 'identityDocumentTypes',
    importField: 'identityDocumentReferences',
    updateField: 'identityDocumentReferences',
  },
  {
    name: 'directoryUserPrincipalName',
    type: 'string',
    format: 'upn',
    maxLength: MAX_UPN_LENGTH,
    optional: true,
    sensitive: false,
    contentHash: false,
    scim: {
      ...scimText,
      schema: 'extension',
      path: 'directoryUserPrincipalName',
      description: "UPN of the person's directory user; the service links the identity to that user.",
      emptyMeansAbsent: true,
    },
    graphql: 'directoryUserPrincipalName',
  },
] as const satisfies readonly AttributeRow[];

// ---- types derived from the table -------------------------------------------------------------------

export type IdentityAttributeRow = (typeof IDENTITY_ATTRIBUTES)[number];
export type IdentityAttributeName = IdentityAttributeRow['name'];

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};
type FieldValue<F> = F extends { type: 'enum'; values: readonly (infer V)[] }
  ? V extends { model: infer M }
    ? M
    : never
  : F extends { type: 'boolean' }
    ? boolean
    : string;
type ItemOf<R> = R extends { items: readonly (infer F)[] }
  ? Simplify<{ [I in F as I extends { name: infer N extends string } ? N : never]: FieldValue<I> }>
  : never;
type ValueOf<R> = R extends { type: 'list' } ? Array<ItemOf<R>> : FieldValue<R>;

/** The attributes a source writes. */
export type IdentityAttributes = Simplify<
  { [R in IdentityAttributeRow as R extends { optional: true } ? never : R['name']]: ValueOf<R> } & {
    [R in IdentityAttributeRow as R extends { optional: true } ? R['name'] : never]?: ValueOf<R>;
  }
>;

type RowNamed<N extends IdentityAttributeName> = Extract<IdentityAttributeRow, { name: N }>;
export type AffiliationType = IdentityAttributes['affiliationType'];
export type PersonalNumber = ItemOf<RowNamed<'personalNumbers'>>;
export type PersonalNumberType = PersonalNumber['type'];
export type IdentityDocumentReference = ItemOf<RowNamed<'identityDocumentReferences'>>;
export type DocumentType = IdentityDocumentReference['type'];

// ---- look-ups -----------------------------------------------------------------------------------

/** The rows by model name. */
export const ATTRIBUTE = Object.fromEntries(IDENTITY_ATTRIBUTES.map((r) => [r.name, r])) as {
  readonly [N in IdentityAttributeName]: RowNamed<N>;
};

const modelValues = <T extends string>(values: readonly EnumValue[]): readonly T[] => values.map((v) => v.model as T);
export const AFFILIATION_TYPES = modelValues<AffiliationType>(ATTRIBUTE.affiliationType.values);
export const PERSONAL_NUMBER_TYPES = modelValues<PersonalNumberType>(ATTRIBUTE.personalNumbers.items[0].values);
export const DOCUMENT_TYPES = modelValues<DocumentType>(ATTRIBUTE.identityDocumentReferences.items[0].values);

/** Every length and count limit, by the name of the attribute (or item field) it bounds. */
export const IDENTITY_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(
  IDENTITY_ATTRIBUTES.flatMap((row: AttributeRow) => [
    ...(row.maxLength !== undefined ? [[row.name, row.maxLength] as const] : []),
    ...(row.maxItems !== undefined ? [[row.name, row.maxItems] as const] : []),
    ...(row.items ?? []).flatMap((f) => (f.maxLength !== undefined ? [[f.name, f.maxLength] as const] : [])),
  ]),
);

/** Attributes a source may leave out; absent in a new version means removed from the stored identity. */
export const OPTIONAL_ATTRIBUTES = IDENTITY_ATTRIBUTES.filter((r: AttributeRow) => r.optional).map(
  (r) => r.name,
) as ReadonlyArray<Extract<IdentityAttributeRow, { optional: true }>['name']>;

/** The attributes that hold sensitive data (lists: personal numbers, document references). */
export const SENSITIVE_ATTRIBUTES = IDENTITY_ATTRIBUTES.filter((r: AttributeRow) => r.sensitive).map(
  (r) => r.name,
) as ReadonlyArray<Extract<IdentityAttributeRow, { sensitive: true }>['name']>;

/** The GraphQL enum name of a model value; the last value of the enumeration (the catch-all) for one it does not know. */
export function graphqlEnumName(values: readonly EnumValue[], model: string): string {
  return (values.find((v) => v.model === model) ?? values[values.length - 1])?.graphql ?? model;
}

/** The model value of a GraphQL enum name, or undefined. */
export function modelEnumValue(values: readonly EnumValue[], graphql: unknown): string | undefined {
  return values.find((v) => v.graphql === graphql)?.model;
}

/** "must be A, B or C" for an enumeration's GraphQL names. */
export function oneOfGraphqlNames(values: readonly EnumValue[]): string {
  const names = values.map((v) => v.graphql);
  const last = names.pop() ?? '';
  return names.length === 0 ? `must be ${last}` : `must be ${names.join(', ')} or ${last}`;
}

// ---- comparisons ---------------------------------------------------------------------------------

/** The attribute's value in a comparable form: absent is null, list items are arrays of their fields in table order. */
function comparable(row: AttributeRow, a: IdentityAttributes): unknown {
  const value = (a as Record<string, unknown>)[row.name];
  if (value === undefined) return null;
  if (row.type !== 'list' || !Array.isArray(value)) return value;
  return value.map((item: Record<string, unknown>) => (row.items ?? []).map((f) => item[f.name]));
}

/**
 * The attributes (all of them, or those of the content hash) as one string: equal strings, equal attributes.
 * Trailing absent values are left out, so a row added at the end changes no string of attributes without it.
 */
export function canonicalAttributes(a: IdentityAttributes, which: 'all' | 'contentHash' = 'all'): string {
  const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
  const values = rows.filter((r) => which === 'all' || r.contentHash).map((r) => comparable(r, a));
  while (values.length > 0 && values[values.length - 1] === null) values.pop();
  return JSON.stringify(values);
}

const isPresent = (value: unknown): boolean => value !== null && !(Array.isArray(value) && value.length === 0);

/**
 * The attributes that differ between two versions, each named by its SCIM path without schema URN
 * (`name.givenName`, `personalNumbers`), in table order; never a value. Without `before` (a new identity):
 * every attribute present in `after` (an empty list is not present).
 */
export function changedAttributes(before: IdentityAttributes | undefined, after: IdentityAttributes): string[] {
  const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
  return rows
    .filter((r) => {
      const next = comparable(r, after);
      if (before === undefined) return isPresent(next);
      return JSON.stringify(comparable(r, before)) !== JSON.stringify(next);
    })
    .map((r) => r.scim.path);
}
