/**
 * The rules of a business identity, whatever API wrote it: the limits of its attributes (./attributes), the one
 * shape of a user principal name (./upn), how a new identity and the next version of an identity are built,
 * and when an identity turns inactive. SCIM saves, imports, associations, administrator links and
 * background work all build identities here.
 */
import type { DirectoryLink, IdentityAttributes, IdentityDoc, SourceKind } from './model';
import { partitionKey } from './model';
import { IDENTITY_ATTRIBUTES, OPTIONAL_ATTRIBUTES, SENSITIVE_ATTRIBUTES } from './attributes';
import { upnKeysOf } from './upn';

export { IDENTITY_LIMITS, OPTIONAL_ATTRIBUTES } from './attributes';

export function hasSensitiveData(a: Pick<IdentityAttributes, (typeof SENSITIVE_ATTRIBUTES)[number]>): boolean {
  return SENSITIVE_ATTRIBUTES.some((name) => a[name].length > 0);
}

/** The attributes without their sensitive data (what retention leaves). */
export function withoutSensitiveData(a: IdentityAttributes): IdentityAttributes {
  const out: IdentityAttributes = { ...a };
  for (const name of SENSITIVE_ATTRIBUTES) out[name] = [];
  return out;
}

/** The userName unique key: case-insensitive for SCIM; identities without userName get a key that cannot collide. */
export function userNameKeyOf(userName: string | undefined, externalId: string): string {
  return userName !== undefined ? userName.toLowerCase() : `\u0000ext:${externalId}`;
}

/**
 * The keys of the UPNs an identity is found by (lib/identities/upn.ts): the asserted one, the linked user's
 * and the one last looked up. Stored on every version, so a search compares them as they are, by index.
 */
export function upnKeysFor(doc: Pick<IdentityDoc, 'directoryUserPrincipalName' | 'link'>): string[] {
  return upnKeysOf([doc.directoryUserPrincipalName, doc.link.userPrincipalName, doc.link.lookedUpUpn]);
}

/** The identity with its UPN keys as its UPNs now are. */
export function withUpnKeys<T extends IdentityDoc>(doc: T): T {
  return { ...doc, upnKeys: upnKeysFor(doc) };
}

/**
 * When the identity became inactive, written at `now`: absent while active; `now` when it turns
 * inactive (or is created inactive); kept while it stays inactive.
 */
export function inactiveSinceAfter(
  previous: Pick<IdentityDoc, 'active' | 'inactiveSince'> | undefined,
  active: boolean,
  now: string,
): string | undefined {
  if (active) return undefined;
  return previous === undefined || previous.active ? now : previous.inactiveSince;
}

/** A new identity document of a source, as every creation path stores it. */
export function newIdentityDoc(o: {
  id: string;
  tenantId: string;
  sourceKind: SourceKind;
  sourceKey: string;
  attributes: IdentityAttributes;
  now: string;
  link?: DirectoryLink;
  contentHash?: string;
}): IdentityDoc {
  const a = o.attributes;
  const inactiveSince = inactiveSinceAfter(undefined, a.active, o.now);
  return withUpnKeys({
    id: o.id,
    pk: partitionKey(o.tenantId, o.sourceKey),
    tenantId: o.tenantId,
    sourceKind: o.sourceKind,
    sourceKey: o.sourceKey,
    ...a,
    externalIdKey: a.externalId,
    userNameKey: userNameKeyOf(a.userName, a.externalId),
    link: o.link ?? { status: 'notAsserted' },
    created: o.now,
    lastModified: o.now,
    version: 1,
    ...(inactiveSince !== undefined ? { inactiveSince } : {}),
    hasSensitive: hasSensitiveData(a),
    ...(o.contentHash !== undefined ? { contentHash: o.contentHash } : {}),
  });
}

/** The attributes a source wrote, as stored (absent optional attributes are undefined). */
export function attributesOf(doc: IdentityDoc): IdentityAttributes {
  const out: Record<string, unknown> = {};
  for (const row of IDENTITY_ATTRIBUTES) out[row.name] = doc[row.name];
  return out as IdentityAttributes;
}

/** What a write changes: new attributes (a save or an import), a new link, the import's content hash. */
export interface IdentityChange {
  attributes?: IdentityAttributes;
  link?: DirectoryLink;
  contentHash?: string;
}

/**
 * The next version of a stored identity, written at `now`: the version counts up and lastModified is
 * the time of the write. New attributes replace the old ones (an optional attribute they leave out is
 * removed) together with the unique keys, the sensitive-data flag and inactiveSince; a link-only change
 * keeps the attributes as they are. The UPN keys follow both. The entity tag of `current` is not carried over.
 */
export function nextIdentityVersion(current: IdentityDoc, change: IdentityChange, now: string): IdentityDoc {
  const { _etag: _ignored, ...rest } = current as IdentityDoc & { _etag?: string };
  const next: IdentityDoc = { ...rest, lastModified: now, version: current.version + 1 };
  const a = change.attributes;
  if (a !== undefined) {
    Object.assign(next, a, {
      externalIdKey: a.externalId,
      userNameKey: userNameKeyOf(a.userName, a.externalId),
      hasSensitive: hasSensitiveData(a),
    });
    for (const key of OPTIONAL_ATTRIBUTES) if (a[key] === undefined) delete next[key];
    const inactiveSince = inactiveSinceAfter(current, a.active, now);
    if (inactiveSince === undefined) delete next.inactiveSince;
    else next.inactiveSince = inactiveSince;
  }
  if (change.link !== undefined) next.link = change.link;
  if (change.contentHash !== undefined) next.contentHash = change.contentHash;
  return withUpnKeys(next);
}

/**
 * The stored identity with the link's bookkeeping changed (back-off, look-up marks): not a change of the
 * resource, so version and lastModified stay. The entity tag of `current` is not carried over.
 */
export function withLinkBookkeeping(current: IdentityDoc, link: DirectoryLink): IdentityDoc {
  const { _etag: _ignored, ...rest } = current as IdentityDoc & { _etag?: string };
  return withUpnKeys({ ...rest, link });
}
