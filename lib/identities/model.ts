import type { StoredDoc } from '../store/store';
import type { IdentityAttributes } from './attributes';

/** The business identity, independent of the API that sent it; its attributes are the rows of ./attributes. */

export { AFFILIATION_TYPES, DOCUMENT_TYPES, PERSONAL_NUMBER_TYPES } from './attributes';
export type {
  AffiliationType,
  DocumentType,
  IdentityAttributes,
  IdentityDocumentReference,
  PersonalNumber,
  PersonalNumberType,
} from './attributes';
export type LinkStatus = 'linked' | 'pending' | 'conflict' | 'notAsserted';
export type LinkSource = 'asserted' | 'manual';

/** The link from the identity to a directory user (see lib/links). */
export interface DirectoryLink {
  status: LinkStatus;
  source?: LinkSource;
  /** Object id of the linked directory user. */
  userId?: string;
  /** Linked: the directory user's UPN when it was linked (administrator links and associations). */
  userPrincipalName?: string;
  /** The UPN the last look-up was made for (asserted links); a look-up happens only when it changes. */
  lookedUpUpn?: string;
  /** For conflict: the object id of the user that is linked elsewhere. */
  conflictUserId?: string;
  /** Pending or conflict: the normalized UPN waited for (see lib/identities/upn.ts); directory changes are matched on it. */
  upnKey?: string;
  /** Pending: saved while the directory could not be asked; the next background cycle looks the UPN up. */
  lookUpOwed?: boolean;
  /** Pending: the directory refused to look this UPN up (no user can hold it); checked again only after its back-off. */
  lookupRefused?: boolean;
  /** Pending or conflict: background checks made since the assertion last changed (drives the back-off). */
  checks?: number;
  /** Pending or conflict: the background work looks at the identity again from this time on (ISO 8601); absent = now. */
  nextCheckAt?: string;
}

export type SourceKind = 'scim' | 'custom' | 'manual';

/** Who made a change: a SCIM integration, an import or association run, an administrator, or the service's background work. */
export type ChangeActorKind = 'integration' | 'importRun' | 'administrator' | 'background';

/** One change of an identity (lib/identities/history.ts): names of attributes only, never a value. */
export interface IdentityHistoryEntry {
  at: string;
  /** `name`: an administrator's display name as the token said at the time of the change. */
  actor: { kind: ChangeActorKind; id: string; name?: string };
  operation: string;
  changedAttributes: string[];
}

/**
 * An identity's history as it is stored: written and read only by lib/identities/history.ts (`readHistory`).
 * Its compact form: the actors (`<kind letter>:<id>`) and attribute names the changes refer to, once each, and
 * the changes, newest first, each one string `<time> <actor> <operation> <names>`. Identities last changed
 * before that form hold the readable entries themselves.
 */
export type StoredHistory = { a: string[]; n: string[]; e: string[] } | IdentityHistoryEntry[];

export interface IdentityDoc extends StoredDoc, IdentityAttributes {
  tenantId: string;
  sourceKind: SourceKind;
  /** SCIM integration id, or the custom source name. */
  sourceKey: string;
  /** Unique-key fields of the container (see lib/store/containers). */
  externalIdKey: string;
  userNameKey: string;
  link: DirectoryLink;
  created: string;
  lastModified: string;
  version: number;
  /** When the identity last became inactive; drives the retention of sensitive data. */
  inactiveSince?: string;
  /**
   * The keys (lib/identities/upn.ts) of its asserted, linked and looked-up UPNs, set by every write
   * (lib/identities/rules.ts): the console's search compares them. Absent on identities stored before
   * the field existed until `npm run ops -- backfill-upn-keys` has run (docs/operations.md).
   */
  upnKeys?: string[];
  /** True while personalNumbers or identityDocumentReferences hold anything (indexed, for retention). */
  hasSensitive: boolean;
  /** Import content hash (custom sources). */
  contentHash?: string;
  /** Its changes, newest first, at most MAX_HISTORY; absent before the first recorded one. Read with `readHistory` (lib/identities/history.ts). */
  history?: StoredHistory;
  /** Older changes dropped from `history`. */
  historyOmitted?: number;
  /** When its newest change not made by an import or association run was made (indexed: the source's activity). */
  activityAt?: string;
  /** The import or association run that changed it last (indexed: the run's drill-in). */
  lastRunId?: string;
}

export function partitionKey(tenantId: string, sourceKey: string): string {
  return `${tenantId}|${sourceKey}`;
}
