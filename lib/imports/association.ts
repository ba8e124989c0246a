/**
 * associateBusinessIdentities (spec §3.4): link identities of a custom source to directory users.
 * Each pair is processed on its own; the mutation never removes a link except to replace it.
 */
import type { Store } from '../store/store';
import { isStoreError } from '../store/errors';
import type { IdentityDoc } from '../identities/model';
import { IdentityRepository } from '../identities/repository';
import type { DirectoryClient } from '../directory/directoryClient';
import type { LinkClaims } from '../links/claims';
import type { AuditLog, Actor } from '../audit/auditLog';
import { badInput, DomainError, type FieldProblem } from '../util/domainError';
import { forEachBounded, MAX_CHANGED_ATTEMPTS, withThrottleRetry } from '../util/concurrency';
import { validateSourceName } from './importInput';
import { ImportManifest } from './manifest';
import { customSourceKey } from './importer';
import { partitionKey } from '../identities/model';

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

const UPN_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_UPN_LENGTH = 1024;
/** Pairs processed at once; each is a read, a claim, a replace and an audit entry in sequence. */
export const ASSOCIATION_PARALLELISM = 64;

export function validateAssociations(associations: AssociationInput[]): void {
  const problems: FieldProblem[] = [];
  if (associations.length === 0) throw badInput([{ field: 'input.associations', problem: 'must not be empty' }]);
  const seen = new Map<string, number>();
  associations.forEach((a, i) => {
    const prior = seen.get(a.externalId);
    if (prior !== undefined) problems.push({ field: `associations[${i}].externalId`, problem: `occurs more than once (also at associations[${prior}])` });
    else seen.set(a.externalId, i);
    if (a.externalId === '') problems.push({ field: `associations[${i}].externalId`, problem: 'must not be empty' });
    if (a.userPrincipalName.length > MAX_UPN_LENGTH || !UPN_SHAPE.test(a.userPrincipalName)) {
      problems.push({ field: `associations[${i}].userPrincipalName`, problem: 'must be a user principal name (name@domain)' });
    }
  });
  if (problems.length > 0) throw badInput(problems.slice(0, 100), `The association list was rejected: ${problems.length} problem(s); nothing was changed`);
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

  async associate(tenantId: string, sourceInput: unknown, associations: AssociationInput[], actor: Actor): Promise<AssociationResult> {
    const source = validateSourceName(sourceInput);
    if (associations.length > this.maxPairs) {
      // Every pair may cost a claim, a replace and an audit entry: a list this long would not finish inside one HTTP request.
      throw new DomainError('ASSOCIATION_TOO_LARGE', `An association list holds at most ${this.maxPairs} pairs (ASSOCIATION_MAX_PAIRS); send the list in parts, each part is processed on its own`);
    }
    validateAssociations(associations);
    const pk = partitionKey(tenantId, customSourceKey(source));
    const manifest = await ImportManifest.load(this.store, pk);
    const users = await this.directory.findByUpns(tenantId, associations.map((a) => a.userPrincipalName));

    const result: AssociationResult = { associated: 0, unchanged: 0, unknownExternalIds: [], unknownUserPrincipalNames: [], conflictingUserPrincipalNames: [] };
    const unknownUpns = new Set<string>();
    const conflicting = new Set<string>();
    await forEachBounded(associations, ASSOCIATION_PARALLELISM, async (a) => {
      const entry = manifest.entries.get(a.externalId);
      const identity = entry ? await this.repo.get(pk, entry.id) : await this.repo.findOne(pk, 'externalIdKey', a.externalId);
      if (!identity) {
        result.unknownExternalIds.push(a.externalId);
        return;
      }
      const user = users.get(a.userPrincipalName.toLowerCase());
      if (!user) {
        unknownUpns.add(a.userPrincipalName);
        return;
      }
      const outcome = await withThrottleRetry(() => this.linkLatest(tenantId, identity, user.id, actor));
      if (outcome === 'conflict') conflicting.add(a.userPrincipalName);
      else if (outcome === 'gone') result.unknownExternalIds.push(a.externalId);
      else result[outcome]++;
    });
    result.unknownUserPrincipalNames = [...unknownUpns];
    result.conflictingUserPrincipalNames = [...conflicting];
    return result;
  }

  /**
   * Links the identity, reading it again when another write changed it in the meantime (the same pair
   * sent twice at once, an import updating it): the outcome is then judged on the stored identity.
   */
  private async linkLatest(tenantId: string, identity: IdentityDoc, userId: string, actor: Actor): Promise<'associated' | 'unchanged' | 'conflict' | 'gone'> {
    let current: IdentityDoc | undefined = identity;
    for (let attempt = 1; ; attempt++) {
      if (!current) return 'gone';
      try {
        return await this.link(tenantId, current, userId, actor);
      } catch (err) {
        if (isStoreError(err, 'notFound')) return 'gone'; // deleted by an import meanwhile
        if (!isStoreError(err, 'preconditionFailed')) throw err;
        if (attempt >= MAX_CHANGED_ATTEMPTS) {
          throw new DomainError('CONCURRENT_CHANGE', 'Identities kept changing while they were being associated; send the association again');
        }
      }
      current = await this.repo.get(current.pk, current.id);
    }
  }

  private async link(tenantId: string, identity: IdentityDoc, userId: string, actor: Actor): Promise<'associated' | 'unchanged' | 'conflict'> {
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
      await this.claims.release(tenantId, userId, identity);
      throw err;
    }
    if (previousUser) await this.claims.release(tenantId, previousUser, identity);
    await this.audit.write(tenantId, {
      actor,
      action: 'link.associated',
      target: { type: 'businessIdentity', id: identity.id },
      before: { status: identity.link.status, userId: previousUser ?? null },
      after: { status: 'linked', userId },
    });
    return 'associated';
  }
}
