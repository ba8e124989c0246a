/**
 * SCIM User bodies -> business-identity attributes. Two steps:
 * 1. canonicalizeUser: attribute names in any case mapped to canonical names, accepted input
 *    variants normalised (boolean strings, enum case), ignored attributes dropped, unknown
 *    service-extension attributes rejected (invalidSyntax). Built on null-prototype objects,
 *    so keys such as __proto__ can never reach a prototype.
 * 2. toIdentityAttributes: validation (ajv schema compiled once, with the value formats of
 *    lib/identities/formats as ajv formats) and normalisation. `detail` names the path only.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { IdentityAttributes } from '../identities/model';
import { isPlausibleEmail, isValidLocalDate, normalizeCountryCode, normalizeCpr, normalizeE164 } from '../identities/formats';
import { CORE_USER_SCHEMA, SERVICE_ATTRIBUTES, SERVICE_USER_SCHEMA } from './schema';
import { ScimError, invalidSyntax, invalidValue } from './errors';

export type JsonObject = Record<string, unknown>;

export interface ScimServiceExtension {
  affiliationType?: unknown;
  birthDate?: unknown;
  nationality?: unknown;
  personalEmail?: unknown;
  personalPhone?: unknown;
  personalNumbers?: unknown;
  identityDocumentReferences?: unknown;
  directoryUserPrincipalName?: unknown;
}

export interface ScimUserInput {
  externalId?: unknown;
  userName?: unknown;
  name?: { givenName?: unknown; familyName?: unknown };
  active?: unknown;
  [SERVICE_USER_SCHEMA]?: ScimServiceExtension;
}

export const EXT = SERVICE_USER_SCHEMA;
const EXT_LOWER = EXT.toLowerCase();
const CORE_PREFIX = `${CORE_USER_SCHEMA.toLowerCase()}:`;

const CORE_NAMES: Record<string, 'externalId' | 'userName' | 'name' | 'active'> = { externalid: 'externalId', username: 'userName', name: 'name', active: 'active' };
const NAME_PARTS: Record<string, 'givenName' | 'familyName'> = { givenname: 'givenName', familyname: 'familyName' };
/** Writable service-extension attributes by lower-case name. */
export const EXT_WRITABLE: ReadonlyMap<string, string> = new Map(SERVICE_ATTRIBUTES.filter((a) => a.mutability !== 'readOnly').map((a) => [a.name.toLowerCase(), a.name]));
export const EXT_READ_ONLY: ReadonlySet<string> = new Set(SERVICE_ATTRIBUTES.filter((a) => a.mutability === 'readOnly').map((a) => a.name.toLowerCase()));
const ITEM_KEYS: Record<string, Record<string, string>> = {
  personalNumbers: { type: 'type', value: 'value' },
  identityDocumentReferences: { type: 'type', issuingcountry: 'issuingCountry', documentnumber: 'documentNumber' },
};
const DOC_TYPES: Record<string, string> = { passport: 'Passport', identitycard: 'IdentityCard' };
const NUMBER_TYPES: Record<string, string> = { dkcpr: 'DkCpr' };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const blank = (): JsonObject => Object.create(null) as JsonObject;

/** "True"/"false" in any case become booleans (Entra sends strings). */
export function coerceBoolean(v: unknown): unknown {
  if (typeof v === 'string') {
    const l = v.trim().toLowerCase();
    if (l === 'true') return true;
    if (l === 'false') return false;
  }
  return v;
}

function canonicalItem(list: 'personalNumbers' | 'identityDocumentReferences', item: unknown, index: number): unknown {
  if (!isJsonObject(item)) return item;
  const out = blank();
  const keys = ITEM_KEYS[list] ?? {};
  for (const [k, v] of Object.entries(item)) {
    const canonical = keys[k.toLowerCase()];
    if (!canonical) throw invalidSyntax(`Unknown attribute '${k.slice(0, 64)}' in ${EXT}:${list}[${index}]`);
    out[canonical] = v;
  }
  if (typeof out.type === 'string') {
    const table = list === 'personalNumbers' ? NUMBER_TYPES : DOC_TYPES;
    out.type = table[out.type.toLowerCase()] ?? out.type;
  }
  return out;
}

/** Sets one service-extension attribute, by any-case name, with its value variants normalised. */
export function setExtensionAttribute(ext: JsonObject, name: string, value: unknown, onReadOnly: 'ignore' | 'reject'): void {
  const lower = name.toLowerCase();
  if (EXT_READ_ONLY.has(lower)) {
    if (onReadOnly === 'reject') throw new ScimError(400, 'mutability', `${EXT}:${name} is read-only`);
    return;
  }
  const canonical = EXT_WRITABLE.get(lower);
  if (!canonical) throw invalidSyntax(`Unknown attribute '${name.slice(0, 64)}' in the service extension ${EXT}`);
  if (canonical === 'affiliationType' && typeof value === 'string') ext[canonical] = value.toLowerCase();
  else if ((canonical === 'personalNumbers' || canonical === 'identityDocumentReferences') && Array.isArray(value)) {
    ext[canonical] = value.map((item, i) => canonicalItem(canonical, item, i));
  } else ext[canonical] = value;
}

function canonicalExtension(value: unknown, into: JsonObject): void {
  if (!isJsonObject(value)) throw invalidValue(`${EXT} must be an object`);
  for (const [k, v] of Object.entries(value)) setExtensionAttribute(into, k, v, 'ignore');
}

/** Canonical attribute names and normalised value variants; see the module comment. */
export function canonicalizeUser(body: unknown): ScimUserInput {
  if (!isJsonObject(body)) throw invalidSyntax('The body must be a JSON object');
  const out = blank();
  const ext = blank();
  let sawExtension = false;
  for (const [rawKey, value] of Object.entries(body)) {
    let key = rawKey.toLowerCase();
    if (key.startsWith(CORE_PREFIX)) key = key.slice(CORE_PREFIX.length);
    if (key === EXT_LOWER) {
      sawExtension = true;
      canonicalExtension(value, ext);
      continue;
    }
    if (key.startsWith(`${EXT_LOWER}:`)) {
      sawExtension = true;
      setExtensionAttribute(ext, rawKey.slice(EXT.length + 1), value, 'ignore');
      continue;
    }
    const core = CORE_NAMES[key];
    if (!core) continue; // other core attributes and other extensions are ignored
    if (core === 'name') {
      if (!isJsonObject(value)) {
        out.name = value;
        continue;
      }
      const name = blank();
      for (const [nk, nv] of Object.entries(value)) {
        const part = NAME_PARTS[nk.toLowerCase()];
        if (part) name[part] = nv;
      }
      out.name = name;
    } else out[core] = core === 'active' ? coerceBoolean(value) : value;
  }
  if (sawExtension) out[EXT] = ext;
  return out as ScimUserInput;
}

// ---- validation -------------------------------------------------------------------------

const ajv = new Ajv({ allErrors: false, strict: true, strictTypes: false });
ajv.addFormat('cpr', (v: string) => normalizeCpr(v).ok);
ajv.addFormat('localDate', (v: string) => isValidLocalDate(v));
ajv.addFormat('country', (v: string) => normalizeCountryCode(v).ok);
ajv.addFormat('e164', (v: string) => normalizeE164(v).ok);
ajv.addFormat('email', (v: string) => isPlausibleEmail(v));
ajv.addFormat('upn', (v: string) => /^[^\s@]+@[^\s@]+$/.test(v));

const optionalString = (extra: JsonObject = {}) => ({ type: ['string', 'null'], ...extra });

const validateUser = ajv.compile({
  type: 'object',
  required: ['externalId', 'userName', 'name', EXT],
  properties: {
    externalId: { type: 'string', minLength: 1, maxLength: 256 },
    userName: { type: 'string', minLength: 1, maxLength: 256 },
    name: {
      type: 'object',
      required: ['givenName', 'familyName'],
      properties: { givenName: { type: 'string', minLength: 1, maxLength: 128 }, familyName: { type: 'string', minLength: 1, maxLength: 128 } },
    },
    active: { type: ['boolean', 'null'] },
    [EXT]: {
      type: 'object',
      required: ['affiliationType'],
      properties: {
        affiliationType: { type: 'string', enum: ['employment', 'enrollment', 'engagement', 'other'] },
        birthDate: optionalString({ format: 'localDate' }),
        nationality: optionalString({ format: 'country' }),
        personalEmail: optionalString({ maxLength: 200, format: 'email' }),
        personalPhone: optionalString({ format: 'e164' }),
        personalNumbers: {
          type: ['array', 'null'],
          maxItems: 10,
          items: {
            type: 'object',
            required: ['type', 'value'],
            additionalProperties: false,
            properties: { type: { type: 'string', enum: ['DkCpr'] }, value: { type: 'string', format: 'cpr' } },
          },
        },
        identityDocumentReferences: {
          type: ['array', 'null'],
          maxItems: 20,
          items: {
            type: 'object',
            required: ['type', 'issuingCountry', 'documentNumber'],
            additionalProperties: false,
            properties: {
              type: { type: 'string', enum: ['Passport', 'IdentityCard'] },
              issuingCountry: { type: 'string', format: 'country' },
              documentNumber: { type: 'string', minLength: 1, maxLength: 64 },
            },
          },
        },
        directoryUserPrincipalName: optionalString({ maxLength: 1024 }),
      },
    },
  },
});

const FORMAT_PROBLEMS: Record<string, string> = {
  cpr: 'must be a valid CPR number (10 digits, optionally one dash, starting with a date DDMMYY)',
  localDate: 'must be a date YYYY-MM-DD',
  country: 'must be an ISO 3166-1 alpha-2 country code',
  e164: 'must be an E.164 number (+, country code and number, at most 15 digits, no spaces)',
  email: 'must be an email address',
  upn: 'must be a user principal name (name@domain)',
};

/** `/urn:…:User/personalNumbers/0/value` -> `urn:…:User:personalNumbers[0].value`. */
function attributePath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) {
    if (/^\d+$/.test(p)) out += `[${p}]`;
    else if (out === '') out = p;
    else out += out === EXT ? `:${p}` : `.${p}`;
  }
  return out || 'the User';
}

function describe(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${attributePath(e.instancePath, String(params.missingProperty))} is required`;
    case 'type':
      return `${attributePath(e.instancePath)} must be of type ${String(params.type).split(',')[0]}`;
    case 'minLength':
      return `${attributePath(e.instancePath)} must not be empty`;
    case 'maxLength':
      return `${attributePath(e.instancePath)} must be at most ${String(params.limit)} characters`;
    case 'maxItems':
      return `${attributePath(e.instancePath)} must have at most ${String(params.limit)} items`;
    case 'enum':
      return `${attributePath(e.instancePath)} must be one of the allowed values`;
    case 'format':
      return `${attributePath(e.instancePath)} ${FORMAT_PROBLEMS[String(params.format)] ?? 'has an invalid format'}`;
    case 'additionalProperties':
      return `${attributePath(e.instancePath)} has an unknown attribute`;
    default:
      return `${attributePath(e.instancePath)} is not valid`;
  }
}

const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function toIdentityAttributes(user: ScimUserInput): IdentityAttributes {
  // ajv works on ordinary objects; copy out of the null-prototype containers.
  const plain = JSON.parse(JSON.stringify(user)) as JsonObject;
  if (!validateUser(plain)) {
    const first = validateUser.errors?.[0];
    throw invalidValue(first ? describe(first) : 'The User is not valid');
  }
  const ext = (plain[EXT] ?? {}) as Record<string, unknown>;
  const name = plain.name as { givenName: string; familyName: string };
  const numbers = ((ext.personalNumbers as Array<{ type: 'DkCpr'; value: string }> | null) ?? []).map((p) => ({ type: p.type, value: (normalizeCpr(p.value) as { value: string }).value }));
  if (new Set(numbers.map((n) => n.type)).size !== numbers.length) throw invalidValue(`${EXT}:personalNumbers may hold one number per type`);
  const documents = ((ext.identityDocumentReferences as Array<{ type: 'Passport' | 'IdentityCard'; issuingCountry: string; documentNumber: string }> | null) ?? []).map((d) => ({
    type: d.type,
    issuingCountry: (normalizeCountryCode(d.issuingCountry) as { value: string }).value,
    documentNumber: d.documentNumber,
  }));
  const upn = nonEmpty(ext.directoryUserPrincipalName);
  if (upn !== undefined && !/^[^\s@]+@[^\s@]+$/.test(upn)) throw invalidValue(`${EXT}:directoryUserPrincipalName ${FORMAT_PROBLEMS.upn}`);
  const phone = nonEmpty(ext.personalPhone);
  const nationality = nonEmpty(ext.nationality);
  const attrs: IdentityAttributes = {
    externalId: plain.externalId as string,
    userName: plain.userName as string,
    givenName: name.givenName,
    familyName: name.familyName,
    active: typeof plain.active === 'boolean' ? plain.active : true,
    affiliationType: ext.affiliationType as IdentityAttributes['affiliationType'],
    personalNumbers: numbers,
    identityDocumentReferences: documents,
  };
  const birthDate = nonEmpty(ext.birthDate);
  if (birthDate !== undefined) attrs.birthDate = birthDate;
  if (nationality !== undefined) attrs.nationality = (normalizeCountryCode(nationality) as { value: string }).value;
  const email = nonEmpty(ext.personalEmail);
  if (email !== undefined) attrs.personalEmail = email;
  if (phone !== undefined) attrs.personalPhone = (normalizeE164(phone) as { value: string }).value;
  if (upn !== undefined) attrs.directoryUserPrincipalName = upn;
  return attrs;
}

export function parseScimUser(body: unknown): IdentityAttributes {
  return toIdentityAttributes(canonicalizeUser(body));
}

/** The canonical SCIM form of stored attributes (the base a PATCH applies to). */
export function identityToScimInput(a: IdentityAttributes): ScimUserInput {
  const ext: ScimServiceExtension = {
    affiliationType: a.affiliationType,
    personalNumbers: a.personalNumbers.map((p) => ({ ...p })),
    identityDocumentReferences: a.identityDocumentReferences.map((d) => ({ ...d })),
  };
  if (a.birthDate !== undefined) ext.birthDate = a.birthDate;
  if (a.nationality !== undefined) ext.nationality = a.nationality;
  if (a.personalEmail !== undefined) ext.personalEmail = a.personalEmail;
  if (a.personalPhone !== undefined) ext.personalPhone = a.personalPhone;
  if (a.directoryUserPrincipalName !== undefined) ext.directoryUserPrincipalName = a.directoryUserPrincipalName;
  return { externalId: a.externalId, userName: a.userName, name: { givenName: a.givenName, familyName: a.familyName }, active: a.active, [EXT]: ext };
}
