import type { IdentityDoc } from '../identities/model';
import { CORE_USER_SCHEMA, SERVICE_USER_SCHEMA } from './schema';
import { identityToScimValues } from './userInput';

export function etagOf(doc: Pick<IdentityDoc, 'version'>): string {
  return `W/"${doc.version}"`;
}

export function userLocation(baseUrl: string, id: string): string {
  return `${baseUrl}/scim/v2/Users/${encodeURIComponent(id)}`;
}

/** The SCIM representation of an identity of a SCIM integration. */
export function toScimUser(doc: IdentityDoc, baseUrl: string): Record<string, unknown> {
  const { core, ext } = identityToScimValues(doc);
  ext.directoryLinkStatus = doc.link.status;
  if (doc.link.status === 'linked' && doc.link.source) ext.directoryLinkSource = doc.link.source;
  if (doc.link.status === 'linked' && doc.link.userId) ext.directoryLinkedUserId = doc.link.userId;
  return {
    schemas: [CORE_USER_SCHEMA, SERVICE_USER_SCHEMA],
    id: doc.id,
    ...core,
    [SERVICE_USER_SCHEMA]: ext,
    meta: {
      resourceType: 'User',
      created: doc.created,
      lastModified: doc.lastModified,
      version: etagOf(doc),
      location: userLocation(baseUrl, doc.id),
    },
  };
}

const ALWAYS = new Set(['id', 'schemas']);

/**
 * RFC 7644 §3.9 attributes / excludedAttributes: comma-separated attribute paths (any case,
 * optionally URN-prefixed, one level of sub-attribute). id and schemas are always returned.
 */
export function projectAttributes(
  resource: Record<string, unknown>,
  attributes?: string | null,
  excluded?: string | null,
): Record<string, unknown> {
  const parse = (list: string) =>
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(splitPath);
  if (attributes) {
    const wanted = parse(attributes);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(resource)) {
      if (ALWAYS.has(key)) {
        out[key] = value;
        continue;
      }
      const picks = wanted.filter((w) => w.top === key.toLowerCase());
      if (picks.length === 0) continue;
      if (picks.some((p) => p.sub === undefined) || typeof value !== 'object' || value === null) out[key] = value;
      else
        out[key] = pick(
          value as Record<string, unknown>,
          picks.map((p) => p.sub ?? ''),
          true,
        );
    }
    return out;
  }
  if (excluded) {
    const dropped = parse(excluded);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(resource)) {
      const drops = dropped.filter((d) => d.top === key.toLowerCase());
      if (ALWAYS.has(key) || drops.length === 0) out[key] = value;
      else if (drops.every((d) => d.sub !== undefined) && typeof value === 'object' && value !== null) {
        out[key] = pick(
          value as Record<string, unknown>,
          drops.map((d) => d.sub ?? ''),
          false,
        );
      }
    }
    return out;
  }
  return resource;
}

function pick(obj: Record<string, unknown>, subs: string[], keep: boolean): Record<string, unknown> {
  const set = new Set(subs);
  return Object.fromEntries(Object.entries(obj).filter(([k]) => set.has(k.toLowerCase()) === keep));
}

/** Splits `name.givenName`, `urn:…:User:<attribute>` or `urn:…:User` into top-level key and sub-attribute, lower-cased. */
function splitPath(path: string): { top: string; sub?: string } {
  const lower = path.toLowerCase();
  for (const urn of [SERVICE_USER_SCHEMA.toLowerCase(), CORE_USER_SCHEMA.toLowerCase()]) {
    if (lower === urn)
      return { top: urn === SERVICE_USER_SCHEMA.toLowerCase() ? SERVICE_USER_SCHEMA.toLowerCase() : 'schemas' };
    if (lower.startsWith(urn + ':')) {
      const rest = lower.slice(urn.length + 1);
      if (urn === SERVICE_USER_SCHEMA.toLowerCase())
        return { top: SERVICE_USER_SCHEMA.toLowerCase(), sub: rest.split('.')[0] };
      return splitPath(rest);
    }
  }
  const [top = '', sub] = lower.split('.');
  return sub === undefined ? { top } : { top, sub };
}
