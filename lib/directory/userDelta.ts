/**
 * Microsoft Graph delta query on the users of a customer tenant (`GET /users/delta`): a first round
 * pages every user (`@odata.nextLink`) and ends with an `@odata.deltaLink`; that link later returns
 * only the users created, changed or removed since. Graph answers 410 (`syncStateNotFound`,
 * `resyncRequired`) when a token can no longer be used: the caller starts a new first round.
 * The `$select` of the first request is carried by the links Graph hands out.
 */
import { GraphError } from '@microsoft/microsoft-graph-client';
import type { DirectoryClient } from './directoryClient';

export const USERS_DELTA_START = '/users/delta?$select=id,userPrincipalName,accountEnabled';

/** A user as one delta page reports it: its state now, or its removal. */
export type DeltaUser =
  { id: string; removed: false; userPrincipalName?: string; accountEnabled?: boolean } | { id: string; removed: true };

export interface DeltaPage {
  users: DeltaUser[];
  /** More pages of this round follow. */
  nextLink?: string;
  /** The round is complete: ask this link next time for what changed since. */
  deltaLink?: string;
}

/** Graph can no longer answer for the token: a new first round is needed. */
export class DeltaTokenExpiredError extends Error {
  constructor() {
    super('The directory no longer knows the delta token; a full round is needed');
    this.name = 'DeltaTokenExpiredError';
  }
}

interface RawDeltaPage {
  value?: Array<Record<string, unknown>>;
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

function toDeltaUser(raw: Record<string, unknown>): DeltaUser | undefined {
  if (typeof raw.id !== 'string' || !raw.id) return undefined;
  if (raw['@removed'] !== undefined) return { id: raw.id, removed: true };
  return {
    id: raw.id,
    removed: false,
    ...(typeof raw.userPrincipalName === 'string' ? { userPrincipalName: raw.userPrincipalName } : {}),
    ...(typeof raw.accountEnabled === 'boolean' ? { accountEnabled: raw.accountEnabled } : {}),
  };
}

/** One page of the tenant's user delta: from `link` (a nextLink or deltaLink), or a first round without one. */
export async function fetchUserDeltaPage(
  directory: DirectoryClient,
  tenantId: string,
  link: string | undefined,
): Promise<DeltaPage> {
  let raw: RawDeltaPage;
  try {
    raw = await directory.getLink<RawDeltaPage>(tenantId, link ?? USERS_DELTA_START);
  } catch (err) {
    if (err instanceof GraphError && err.statusCode === 410) throw new DeltaTokenExpiredError();
    throw err;
  }
  const users = (raw.value ?? []).map(toDeltaUser).filter((u): u is DeltaUser => u !== undefined);
  const nextLink = raw['@odata.nextLink'];
  const deltaLink = raw['@odata.deltaLink'];
  return {
    users,
    ...(typeof nextLink === 'string' ? { nextLink } : {}),
    ...(typeof deltaLink === 'string' && typeof nextLink !== 'string' ? { deltaLink } : {}),
  };
}
