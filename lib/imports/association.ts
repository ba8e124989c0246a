/**
 * associateBusinessIdentities (spec §3.4): link identities of a custom source to directory users.
 * Only list-level rules refuse the call; each pair is processed on its own and a pair that fails
 * does not stop the others. The mutation never removes a link except to replace it.
 */
import type { Store, WithEtag } from '../store/store';
import { isStoreError } from '../store/errors';
import type { DirectoryLink, IdentityDoc } from '../identities/model';
import { IdentityRepository } from '../identities/repository';
import { byRun, type ChangeActor } from '../identities/history';
import { DirectoryUnavailableError, type DirectoryClient, type DirectoryUser } from '../directory/directoryClient';
import { REQUESTS_PER_BATCH, UPNS_PER_FILTER } from '../directory/directoryClient';
import type { LinkClaims } from '../links/claims';
import { afterAssociationClaim, associationAction } from '../links/linkStateMachine';
import type { AuditLog, Actor } from '../audit/auditLog';
import type { Logger } from '../log/logger';
import { badInput, DomainError, type FieldProblem } from '../util/domainError';
import { forEachBounded } from '../util/concurrency';
import { RETRY, retrying, type RetryClock } from '../store/retryPolicy';
import { writeStamped } from '../store/stampedWrite';
import { validateSourceName } from './importInput';
import { isUpnShaped, upnKey } from '../identities/upn';
import { classifyPairs, isPossibleExternalId, type AssociationPair } from './pairClassification';
import { customSourceKey } from './importer';
import { partitionKey } from '../identities/model';
import {
  afterLinks,
  BatchLinker,
  failureKind,
  isConcurrentChange,
  linkedVersion,
  PAIRS_PER_PART,
  type LinkCandidate,
} from './associationBatches';
import { CODE } from '../util/errorCodes';
import { linksByExternalIds } from '../store/queries/identities';

export type AssociationInput = AssociationPair;

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

/** Pairs done one by one at once (those a batch handed back); each is a read, a claim, a replace and an audit entry. */
export const ASSOCIATION_PARALLELISM = 64;
/** Parts of new links (PAIRS_PER_PART pairs, written in batches of 100) in flight at once. */
const PART_PARALLELISM = 3;
/** externalIds per query of the stored links, and those queries in flight at once. */
const PAIRS_PER_QUERY = 500;
const QUERY_PARALLELISM = 4;
/** UPNs looked up per directory call: one Graph `$batch` of filter queries. */
const UPNS_PER_LOOKUP = UPNS_PER_FILTER * REQUESTS_PER_BATCH;
/** Graph `$batch` requests in flight at once. */
const LOOKUP_PARALLELISM = 4;

/** The rules of the list as a whole; a single pair's malformed value only makes that pair unknown. */
export function validateAssociations(associations: AssociationInput[]): void {
  if (associations.length === 0) throw badInput([{ field: 'input.associations', problem: 'must not be empty' }]);
  const problems: FieldProblem[] = [];
  const seen = new Map<string, number>();
  associations.forEach((a, i) => {
    const prior = seen.get(a.externalId);
    if (prior !== undefined)
      problems.push({
        field: `associations[${i}].externalId`,
        problem: `occurs more than once (also at associations[${prior}])`,
      });
    else seen.set(a.externalId, i);
  });
  if (problems.length > 0)
    throw badInput(
      problems.slice(0, 100),
      `The association list was rejected: ${problems.length} problem(s); nothing was changed`,
    );
}

type PairOutcome = 'associated' | 'unchanged' | 'conflict' | 'unknownExternalId' | 'unknownUpn';

/** An identity's link as read; `doc` is the whole identity when it is not linked now. */
interface StoredIdentity {
  id: string;
  link: DirectoryLink;
  doc?: WithEtag<IdentityDoc>;
}

type LinkRow = { id: string; externalIdKey: string; link: DirectoryLink };

export class Associator {
  private readonly repo: IdentityRepository;
  private readonly batches: BatchLinker;
  /** The clock option of this associator's retries (none: the policy's real one). */
  private readonly timing: { clock?: RetryClock };

  constructor(
    private readonly store: Store,
    private readonly directory: DirectoryClient,
    private readonly claims: LinkClaims,
    private readonly audit: AuditLog,
    private readonly maxPairs = Number.POSITIVE_INFINITY,
    /** The retry policy's waits (a unit test passes one that does not wait in real time). */
    private readonly clock?: RetryClock,
  ) {
    this.repo = new IdentityRepository(store);
    this.batches = new BatchLinker(store, claims, audit, clock);
    this.timing = clock ? { clock } : {};
  }

  async associate(
    tenantId: string,
    sourceInput: unknown,
    associations: AssociationInput[],
    actor: Actor,
    log?: Logger,
    runId?: string,
  ): Promise<AssociationOutcome> {
    const source = validateSourceName(sourceInput);
    // The links are the run's changes (history); without a run id (a direct call), the source's.
    const by = byRun(runId ?? source);
    if (associations.length > this.maxPairs) {
      // Every pair may cost a claim, a replace and an audit entry: a list this long would not finish inside one HTTP request.
      throw new DomainError(
        CODE.ASSOCIATION_TOO_LARGE,
        `An association list holds at most ${this.maxPairs} pairs (ASSOCIATION_MAX_PAIRS); send the list in parts, each part is processed on its own`,
      );
    }
    validateAssociations(associations);
    const pk = partitionKey(tenantId, customSourceKey(source));
    const outcome: AssociationOutcome = {
      associated: 0,
      unchanged: 0,
      unknownExternalIds: [],
      unknownUserPrincipalNames: [],
      conflictingUserPrincipalNames: [],
      sendAgain: [],
    };
    const pairs = associations.filter((a) => isPossibleExternalId(a.externalId));
    const lookup = await this.lookUp(
      tenantId,
      pairs.filter((a) => isUpnShaped(a.userPrincipalName)).map((a) => a.userPrincipalName),
    );
    const stored = await this.readLinks(pk, pairs);
    const classified = classifyPairs(associations, stored, lookup);

    const unknownUpns = new Set<string>(classified.unknownUserPrincipalNames);
    const conflicting = new Set<string>();
    const failures = new Map<string, number>();
    const failed = (a: AssociationInput, kind: string) => {
      outcome.sendAgain.push(a.externalId);
      failures.set(kind, (failures.get(kind) ?? 0) + 1);
    };
    const record = (a: AssociationInput, result: PairOutcome) => {
      if (result === 'unknownExternalId') outcome.unknownExternalIds.push(a.externalId);
      else if (result === 'unknownUpn') unknownUpns.add(a.userPrincipalName);
      else if (result === 'conflict') conflicting.add(a.userPrincipalName);
      else outcome[result]++;
    };
    outcome.unknownExternalIds.push(...classified.unknownExternalIds);
    outcome.unchanged += classified.unchanged;
    for (const a of classified.directoryUnavailable) failed(a, 'directory');

    // A pair whose link already stands is known from the query; new links are written part by part in batches.
    const oneByOne: Array<{ pair: AssociationInput; identityId?: string }> = [...classified.oneByOne];
    const candidates: LinkCandidate[] = classified.toLink.map((c) => ({
      ...c,
      doc: stored.links.get(c.pair.externalId)?.doc,
    }));
    const parts: LinkCandidate[][] = [];
    for (let i = 0; i < candidates.length; i += PAIRS_PER_PART) parts.push(candidates.slice(i, i + PAIRS_PER_PART));
    await forEachBounded(parts, PART_PARALLELISM, async (part) => {
      try {
        const done = await this.batches.link(tenantId, pk, part, actor, by, log);
        outcome.associated += done.associated.length;
        for (const c of done.oneByOne) oneByOne.push({ pair: c.pair, identityId: c.identityId });
      } catch {
        // The part's reads or batches failed as a whole: its pairs are done one by one, with retries.
        for (const c of part) oneByOne.push({ pair: c.pair, identityId: c.identityId });
      }
    });

    await forEachBounded(oneByOne, ASSOCIATION_PARALLELISM, async ({ pair: a, identityId }) => {
      if (isUpnShaped(a.userPrincipalName) && lookup.unavailable.has(upnKey(a.userPrincipalName))) {
        failed(a, 'directory');
        return;
      }
      try {
        const outcome = await retrying(
          RETRY.unit,
          () => this.pair(tenantId, pk, identityId, lookup.users, a, actor, by, log),
          { alsoRetry: isConcurrentChange, ...this.timing },
        );
        record(a, outcome);
      } catch (err) {
        // The pair is reported for sending again; the others go on.
        failed(a, failureKind(err));
      }
    });
    if (failures.size > 0)
      log?.warn('association pairs not done; the caller is told to send them again', {
        tenantId,
        pairsNotDone: outcome.sendAgain.length,
        ...Object.fromEntries([...failures].map(([k, v]) => [`failed.${k}`, v])),
      });
    outcome.unknownUserPrincipalNames = [...unknownUpns];
    outcome.conflictingUserPrincipalNames = [...conflicting];
    return outcome;
  }

  /**
   * The stored link of each pair's identity, by externalId: one query per part of the list. An identity
   * linked now comes as its id and link only (mostly an `unchanged` pair); any other comes whole, as its
   * new link will be written from it. A part whose query still fails after retries is left `unread` (its
   * pairs are then done one by one).
   */
  private async readLinks(
    pk: string,
    pairs: AssociationInput[],
  ): Promise<{ links: Map<string, StoredIdentity>; unread: Set<string> }> {
    const links = new Map<string, StoredIdentity>();
    const unread = new Set<string>();
    const parts: AssociationInput[][] = [];
    for (let i = 0; i < pairs.length; i += PAIRS_PER_QUERY) parts.push(pairs.slice(i, i + PAIRS_PER_QUERY));
    await forEachBounded(parts, QUERY_PARALLELISM, async (part) => {
      try {
        const rows = await retrying(
          RETRY.unit,
          () =>
            this.store.collection<IdentityDoc>('identities').all(
              linksByExternalIds<LinkRow | WithEtag<IdentityDoc>>(
                pk,
                part.map((a) => a.externalId),
              ),
              { maxItemCount: part.length },
            ),
          this.timing,
        );
        for (const r of rows) links.set(r.externalIdKey, { id: r.id, link: r.link, doc: 'pk' in r ? r : undefined });
      } catch {
        for (const a of part) unread.add(a.externalId);
      }
    });
    return { links, unread };
  }

  /**
   * Looks the UPNs up, one Graph `$batch` per part. A part the directory keeps throttling or failing
   * leaves its UPNs `unavailable` (their pairs are sent again, never reported unknown); when no part
   * could be looked up, or the tenant's directory cannot be reached at all, the call fails as a whole.
   */
  private async lookUp(
    tenantId: string,
    upns: string[],
  ): Promise<{ users: Map<string, DirectoryUser>; unavailable: Set<string> }> {
    const unique = [...new Set(upns.map(upnKey))];
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

  private async pair(
    tenantId: string,
    pk: string,
    identityId: string | undefined,
    users: Map<string, DirectoryUser>,
    a: AssociationInput,
    actor: Actor,
    by: ChangeActor,
    log: Logger | undefined,
  ): Promise<PairOutcome> {
    const user = isUpnShaped(a.userPrincipalName) ? users.get(upnKey(a.userPrincipalName)) : undefined;
    const identity =
      (identityId ? await this.repo.get(pk, identityId) : undefined) ??
      (await this.repo.findOne(pk, 'externalIdKey', a.externalId));
    const outcome = !identity
      ? 'gone'
      : !user
        ? 'unknownUpn'
        : await this.linkLatest(tenantId, identity, user.id, actor, by, log);
    if (outcome !== 'gone') return outcome;
    // A batch may have claimed the user for this identity before an import deleted it: that claim goes with it.
    if (identityId && user) await this.claims.release(tenantId, user.id, { pk, id: identityId });
    return 'unknownExternalId';
  }

  /**
   * Links the identity, reading it again when another write changed it in the meantime (the same pair
   * sent twice at once, an import updating it): the outcome is then judged on the stored identity.
   */
  private async linkLatest(
    tenantId: string,
    identity: IdentityDoc,
    userId: string,
    actor: Actor,
    by: ChangeActor,
    log: Logger | undefined,
  ): Promise<'associated' | 'unchanged' | 'conflict' | 'gone'> {
    return retrying(
      RETRY.changed,
      async (tryNumber) => {
        const current = tryNumber === 1 ? identity : await this.repo.get(identity.pk, identity.id);
        if (!current) return 'gone';
        try {
          return await this.link(tenantId, current, userId, actor, by, log);
        } catch (err) {
          if (isStoreError(err, 'notFound')) return 'gone'; // deleted by an import meanwhile
          throw err;
        }
      },
      {
        exhausted: () =>
          new DomainError(CODE.CONCURRENT_CHANGE, 'The identity kept changing while it was being associated'),
        ...this.timing,
      },
    );
  }

  private async link(
    tenantId: string,
    identity: IdentityDoc,
    userId: string,
    actor: Actor,
    by: ChangeActor,
    log: Logger | undefined,
  ): Promise<'associated' | 'unchanged' | 'conflict'> {
    if (associationAction(identity.link, userId) === 'unchanged') return 'unchanged';
    if (
      afterAssociationClaim(identity.link, userId, await this.claims.claim(tenantId, userId, identity)) === 'conflict'
    )
      return 'conflict';
    try {
      await this.replaceStamped(identity, userId, by);
    } catch (err) {
      // A release that fails too leaves an orphan claim, which the background run repairs.
      await this.claims.release(tenantId, userId, identity).catch(() => undefined);
      throw err;
    }
    await afterLinks(this.claims, this.audit, tenantId, [{ before: identity, userId }], actor, log, this.clock);
    return 'associated';
  }

  /** Writes the link; after throttling, again with a new lastModified (see BatchLinker.replaceStamped). */
  private async replaceStamped(identity: IdentityDoc, userId: string, by: ChangeActor): Promise<void> {
    const etag = (identity as IdentityDoc & { _etag?: string })._etag ?? '';
    await writeStamped((now) =>
      this.repo.replace(linkedVersion(identity, userId, by, now), etag, { retryThrottled: false }),
    );
  }
}
