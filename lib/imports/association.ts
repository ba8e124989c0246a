/**
 * associateBusinessIdentities (spec §3.4): link identities of a custom source to directory users.
 * Only list-level rules refuse the call; each pair is processed on its own and a pair that fails
 * does not stop the others. The mutation never removes a link except to replace it.
 */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from '../identities/model';
import { IdentityRepository } from '../identities/repository';
import { DirectoryUnavailableError, type DirectoryClient, type DirectoryUser } from '../directory/directoryClient';
import { REQUESTS_PER_BATCH, UPNS_PER_FILTER } from '../directory/directoryClient';
import type { LinkClaims } from '../links/claims';
import type { AuditLog, Actor } from '../audit/auditLog';
import type { Logger } from '../log/logger';
import { badInput, DomainError, type FieldProblem } from '../util/domainError';
import { forEachBounded, MAX_CHANGED_ATTEMPTS } from '../util/concurrency';
import { MAX_EXTERNAL_ID_LENGTH, validateSourceName } from './importInput';
import { ImportManifest } from './manifest';
import { customSourceKey } from './importer';
import { partitionKey } from '../identities/model';
import { withTransientRetry } from './transientRetry';

export interface AssociationInput {
  externalId: string;
  userPrincipalName: string;
}

export interface AssociationResult {
  associated: number;
  unchanged: number;
  unknownExternalIds: string[];
  unknownUserPrincipalNames: string[];
  conflictingUserPrincipalNames: string[];
}

/** The result, and the externalIds of pairs that still failed after their retries (the caller sends them again). */
export interface AssociationOutcome extends AssociationResult {
  sendAgain: string[];
}

const UPN_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_UPN_LENGTH = 1024;
/** Pairs processed at once; each is a read, a claim, a replace and an audit entry in sequence. */
export const ASSOCIATION_PARALLELISM = 64;
/** UPNs looked up per directory call: one Graph `$batch` of filter queries. */
const UPNS_PER_LOOKUP = UPNS_PER_FILTER * REQUESTS_PER_BATCH;
/** Graph `$batch` requests in flight at once. */
const LOOKUP_PARALLELISM = 4;

export function isUpnShaped(upn: string): boolean {
  return upn.length <= MAX_UPN_LENGTH && UPN_SHAPE.test(upn);
}

/** An externalId no identity can have (empty or longer than an import accepts): the pair is unknown, not a bad list. */
function isPossibleExternalId(externalId: string): boolean {
  return externalId !== '' && externalId.length <= MAX_EXTERNAL_ID_LENGTH;
}

/** The rules of the list as a whole; a single pair's malformed value only makes that pair unknown. */
export function validateAssociations(associations: AssociationInput[]): void {
  if (associations.length === 0) throw badInput([{ field: 'input.associations', problem: 'must not be empty' }]);
  const problems: FieldProblem[] = [];
  const seen = new Map<string, number>();
  associations.forEach((a, i) => {
    const prior = seen.get(a.externalId);
    if (prior !== undefined) problems.push({ field: `associations[${i}].externalId`, problem: `occurs more than once (also at associations[${prior}])` });
    else seen.set(a.externalId, i);
  });
  if (problems.length > 0) throw badInput(problems.slice(0, 100), `The association list was rejected: ${problems.length} problem(s); nothing was changed`);
}

type PairOutcome = 'associated' | 'unchanged' | 'conflict' | 'unknownExternalId' | 'unknownUpn';

/** What kind of failure a pair had, for the log (never a value). */
function failureKind(err: unknown): string {
  if (isStoreError(err)) return `store.${err.failure}`;
  if (err instanceof DomainError) return err.code;
  return err instanceof Error ? err.name : 'unknown';
}

export class Associator {
  private readonly repo: IdentityRepository;

  constructor(
    private readonly store: Store,
    private readonly directory: DirectoryClient,
    private readonly claims: LinkClaims,
    private readonly audit: AuditLog,
    private readonly maxPairs = Number.POSITIVE_INFINITY,
  ) {
    this.repo = new IdentityRepository(store);
  }

  async associate(tenantId: string, sourceInput: unknown, associations: AssociationInput[], actor: Actor, log?: Logger): Promise<AssociationOutcome> {
    const source = validateSourceName(sourceInput);
    if (associations.length > this.maxPairs) {
      // Every pair may cost a claim, a replace and an audit entry: a list this long would not finish inside one HTTP request.
      throw new DomainError('ASSOCIATION_TOO_LARGE', `An association list holds at most ${this.maxPairs} pairs (ASSOCIATION_MAX_PAIRS); send the list in parts, each part is processed on its own`);
    }
    validateAssociations(associations);
    const pk = partitionKey(tenantId, customSourceKey(source));
    const outcome: AssociationOutcome = { associated: 0, unchanged: 0, unknownExternalIds: [], unknownUserPrincipalNames: [], conflictingUserPrincipalNames: [], sendAgain: [] };
    const pairs = associations.filter((a) => {
      if (isPossibleExternalId(a.externalId)) return true;
      outcome.unknownExternalIds.push(a.externalId);
      return false;
    });
    const lookup = await this.lookUp(tenantId, pairs.filter((a) => isUpnShaped(a.userPrincipalName)).map((a) => a.userPrincipalName));
    const manifest = await ImportManifest.load(this.store, pk);

    const unknownUpns = new Set<string>();
    const conflicting = new Set<string>();
    const failures = new Map<string, number>();
    await forEachBounded(pairs, ASSOCIATION_PARALLELISM, async (a) => {
      if (lookup.unavailable.has(a.userPrincipalName.toLowerCase())) {
        outcome.sendAgain.push(a.externalId);
        failures.set('directory', (failures.get('directory') ?? 0) + 1);
        return;
      }
      let result: PairOutcome;
      try {
        result = await withTransientRetry(() => this.pair(tenantId, pk, manifest, lookup.users, a, actor, log));
      } catch (err) {
        // The pair is reported for sending again; the others go on.
        outcome.sendAgain.push(a.externalId);
        const kind = failureKind(err);
        failures.set(kind, (failures.get(kind) ?? 0) + 1);
        return;
      }
      if (result === 'unknownExternalId') outcome.unknownExternalIds.push(a.externalId);
      else if (result === 'unknownUpn') unknownUpns.add(a.userPrincipalName);
      else if (result === 'conflict') conflicting.add(a.userPrincipalName);
      else outcome[result]++;
    });
    if (failures.size > 0) log?.warn('association pairs not done; the caller is told to send them again', { tenantId, pairsNotDone: outcome.sendAgain.length, ...Object.fromEntries([...failures].map(([k, v]) => [`failed.${k}`, v])) });
    outcome.unknownUserPrincipalNames = [...unknownUpns];
    outcome.conflictingUserPrincipalNames = [...conflicting];
    return outcome;
  }

  /**
   * Looks the UPNs up, one Graph `$batch` per part. A part the directory keeps throttling or failing
   * leaves its UPNs `unavailable` (their pairs are sent again, never reported unknown); when no part
   * could be looked up, or the tenant's directory cannot be reached at all, the call fails as a whole.
   */
  private async lookUp(tenantId: string, upns: string[]): Promise<{ users: Map<string, DirectoryUser>; unavailable: Set<string> }> {
    const unique = [...new Set(upns.map((u) => u.toLowerCase()))];
    const parts: string[][] = [];
    for (let i = 0; i < unique.length; i += UPNS_PER_LOOKUP) parts.push(unique.slice(i, i + UPNS_PER_LOOKUP));
    const users = new Map<string, DirectoryUser>();
    const unavailable = new Set<string>();
    let trouble: DirectoryUnavailableError | undefined;
    await forEachBounded(parts, LOOKUP_PARALLELISM, async (part) => {
      try {
        for (const [upn, user] of await this.directory.findByUpns(tenantId, part)) users.set(upn, user);
      } catch (err) {
        if (!(err instanceof DirectoryUnavailableError) || err.reason === 'consentMissing') throw err;
        trouble ??= err;
        for (const upn of part) unavailable.add(upn);
      }
    });
    if (trouble && unavailable.size === unique.length) throw trouble;
    return { users, unavailable };
  }

  private async pair(tenantId: string, pk: string, manifest: ImportManifest, users: Map<string, DirectoryUser>, a: AssociationInput, actor: Actor, log: Logger | undefined): Promise<PairOutcome> {
    const entry = manifest.entries.get(a.externalId);
    const identity = entry ? await this.repo.get(pk, entry.id) : await this.repo.findOne(pk, 'externalIdKey', a.externalId);
    if (!identity) return 'unknownExternalId';
    const user = isUpnShaped(a.userPrincipalName) ? users.get(a.userPrincipalName.toLowerCase()) : undefined;
    if (!user) return 'unknownUpn';
    const outcome = await this.linkLatest(tenantId, identity, user.id, actor, log);
    return outcome === 'gone' ? 'unknownExternalId' : outcome;
  }

  /**
   * Links the identity, reading it again when another write changed it in the meantime (the same pair
   * sent twice at once, an import updating it): the outcome is then judged on the stored identity.
   */
  private async linkLatest(tenantId: string, identity: IdentityDoc, userId: string, actor: Actor, log: Logger | undefined): Promise<'associated' | 'unchanged' | 'conflict' | 'gone'> {
    let current: IdentityDoc | undefined = identity;
    for (let attempt = 1; ; attempt++) {
      if (!current) return 'gone';
      try {
        return await this.link(tenantId, current, userId, actor, log);
      } catch (err) {
        if (isStoreError(err, 'notFound')) return 'gone'; // deleted by an import meanwhile
        if (!isStoreError(err, 'preconditionFailed')) throw err;
        if (attempt >= MAX_CHANGED_ATTEMPTS) throw new DomainError('CONCURRENT_CHANGE', 'The identity kept changing while it was being associated');
      }
      current = await this.repo.get(current.pk, current.id);
    }
  }

  private async link(tenantId: string, identity: IdentityDoc, userId: string, actor: Actor, log: Logger | undefined): Promise<'associated' | 'unchanged' | 'conflict'> {
    if (identity.link.status === 'linked' && identity.link.userId === userId) return 'unchanged';
    if ((await this.claims.claim(tenantId, userId, identity)) !== 'claimed') return 'conflict';
    const previousUser = identity.link.status === 'linked' ? identity.link.userId : undefined;
    const { _etag, ...rest } = identity as IdentityDoc & { _etag?: string };
    try {
      await this.repo.replace(
        { ...rest, link: { status: 'linked', source: 'asserted', userId }, lastModified: new Date().toISOString(), version: identity.version + 1 },
        _etag ?? '',
      );
    } catch (err) {
      // A release that fails too leaves an orphan claim, which the background run repairs.
      await this.claims.release(tenantId, userId, identity).catch(() => undefined);
      throw err;
    }
    await this.afterLink(tenantId, identity, previousUser, userId, actor, log);
    return 'associated';
  }

  /**
   * After the link is stored: release the user the identity gave up and write the audit entry. The
   * link stands whatever happens here, so the pair counts as associated; a step that still fails after
   * its retries is logged (an orphan claim is repaired by the background run).
   */
  private async afterLink(tenantId: string, identity: IdentityDoc, previousUser: string | undefined, userId: string, actor: Actor, log: Logger | undefined): Promise<void> {
    try {
      if (previousUser) await withTransientRetry(() => this.claims.release(tenantId, previousUser, identity));
      await withTransientRetry(() =>
        this.audit.write(tenantId, {
          actor,
          action: 'link.associated',
          target: { type: 'businessIdentity', id: identity.id },
          before: { status: identity.link.status, userId: previousUser ?? null },
          after: { status: 'linked', userId },
        }),
      );
    } catch (err) {
      log?.error('association: a link was stored but its audit entry or the release of the user it replaced failed', { tenantId, identityId: identity.id, failure: failureKind(err) });
    }
  }
}
