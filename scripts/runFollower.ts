/*
 * The reference client's GraphQL calls, and following a run in the service's run history: when an
 * import or association request gives up (its timeout, or the 502/504 of Azure's front end after
 * 230 s) the service keeps working, so the client finds the run the request started and polls it to
 * its end; when an import is answered IMPORT_IN_PROGRESS, it follows the running import first.
 */
import { randomBytes } from 'node:crypto';
import type { ImportCounts } from '../lib/imports/importer';
import type { AssociationCounts as RunAssociationCounts } from '../lib/imports/runHistory';

/** Progress lines (stderr by default). */
export type Progress = (line: string) => void;

/**
 * A GraphQL error answer, with its code, the running run's id (IMPORT_IN_PROGRESS), and for
 * ASSOCIATION_INCOMPLETE the result the service answered beside it and the externalIds to send again.
 */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly runId?: string,
    readonly partial?: { data: Record<string, unknown>; externalIds: string[] },
    /** The field problems of a BAD_USER_INPUT answer (paths and what is wrong, never values). */
    readonly problems: Array<{ field: string; problem: string }> = [],
    /** SERVICE_BUSY: seconds to wait before sending again. */
    readonly retryAfterSeconds?: number,
    /** Every extension of the error (e.g. IMPORT_PARTS_MISSING's `missing`). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** The request got no answer in time (or the gateway in front of the service gave up on it). */
export class RequestGaveUp extends Error {}

/** The service (or what is in front of it) answered a 5xx without a GraphQL body: it may answer the same request later. */
export class ServiceUnavailable extends Error {}

/** fetch's network failure (a TypeError, possibly of another realm, so not checked with instanceof). */
export function isFetchFailure(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'TypeError' &&
    (err as { message?: unknown }).message === 'fetch failed'
  );
}

export async function graphql(
  service: string,
  accessToken: string,
  query: string,
  variables: unknown,
  timeoutMs?: number,
  correlationId?: string,
): Promise<Record<string, unknown>> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${service}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        ...(correlationId ? { 'x-correlation-id': correlationId } : {}),
      },
      body: JSON.stringify({ query, variables }),
      ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    text = await res.text();
  } catch (err) {
    // fetch rejects with a DOMException (not always an instance of this realm's Error).
    const name = typeof err === 'object' && err !== null && 'name' in err ? err.name : undefined;
    if (name === 'TimeoutError' || name === 'AbortError') throw new RequestGaveUp('the request timed out');
    throw err;
  }
  // Azure's front end answers 502/504 without a GraphQL body when a request outlives its 230 s limit.
  if (res.status === 502 || res.status === 504)
    throw new RequestGaveUp(`the request was given up (HTTP ${res.status})`);
  let body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{
      message: string;
      extensions?: {
        code?: string;
        runId?: string;
        retryAfterSeconds?: number;
        externalIds?: string[];
        problems?: Array<{ field: string; problem: string }>;
        [key: string]: unknown;
      };
    }>;
  };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    const message = `the service answered HTTP ${res.status} without a GraphQL body`;
    throw res.status >= 500 ? new ServiceUnavailable(message) : new Error(message);
  }
  if (body.errors?.length) {
    const first = body.errors[0];
    const problems = (first?.extensions?.problems ?? []).slice(0, 20).map((p) => `  ${p.field}: ${p.problem}`);
    const code = first?.extensions?.code ?? 'ERROR';
    const externalIds = first?.extensions?.externalIds;
    const partial = body.data && Array.isArray(externalIds) ? { data: body.data, externalIds } : undefined;
    throw new ServiceError(
      [`${code}: ${first?.message}`, ...problems].join('\n'),
      code,
      first?.extensions?.runId,
      partial,
      first?.extensions?.problems ?? [],
      first?.extensions?.retryAfterSeconds,
      first?.extensions ?? {},
    );
  }
  if (!body.data)
    throw new Error(
      `the service answered HTTP ${res.status} without a GraphQL result (is --service the service's address?)`,
    );
  return body.data;
}

export type { ImportCounts };

/** Counts of one association answer (the run record's `notDone` is only in the run history). */
export type AssociationCounts = Omit<RunAssociationCounts, 'notDone'>;

/** The operation of a run as GraphQL names it. */
export type RunOperation = 'IMPORT' | 'ASSOCIATION';

/** A run of the service's run history, as the client reads it. */
export interface ServiceRun {
  id: string;
  operation: RunOperation;
  status: string;
  clientId: string;
  correlationId: string;
  importCounts: ImportCounts | null;
  associationCounts: AssociationCounts | null;
  failure: { code: string; message: string } | null;
}

/** Another run the client waited for before its own import could start. */
export interface FollowedRun {
  runId: string;
  status: string;
  importCounts: ImportCounts | null;
  failure: { code: string; message: string } | null;
}

const RUN_FIELDS =
  'id operation status clientId correlationId importCounts { created updated deleted unchanged } associationCounts { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } failure { code message }';

/** A run that ended without completing: the process exits non-zero. */
export class RunFailed extends Error {
  constructor(
    readonly run: ServiceRun,
    what: string,
  ) {
    super(`${what} ${run.status.toLowerCase()}${run.failure ? `: ${run.failure.code}: ${run.failure.message}` : ''}`);
    this.name = 'RunFailed';
  }
}

/** How long a request that gave up may take to show up in the run history before the client gives up on it. */
export const RUN_APPEARS_WITHIN_MS = 120_000;
/** Tries of one look at the run history while the service is busy or unreachable. */
const LOOK_ATTEMPTS = 10;
/** Sends of an import while other imports of the source keep running. */
const MAX_IMPORT_ATTEMPTS = 3;
/** Sends of one mutation while the service answers SERVICE_BUSY (each after the wait it asks for, at most a minute). */
const BUSY_SENDS = 20;

/** The counts of a completed run (a completed run always has them). */
function countsOf<K extends 'importCounts' | 'associationCounts'>(run: ServiceRun, key: K): NonNullable<ServiceRun[K]> {
  const counts = run[key];
  if (!counts) throw new Error(`run ${run.id} completed without counts`);
  return counts as NonNullable<ServiceRun[K]>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Letters only: the service keeps a caller's correlation id only when it holds no run of digits that could be a personal number. */
function newCorrelationId(): string {
  return `import-client-${[...randomBytes(16)].map((b) => String.fromCharCode(97 + (b % 26))).join('')}`;
}

export interface FollowerOptions {
  service: string;
  /** A token, or where to get a current one for each request (a long run outlasts one token). */
  accessToken: string | (() => Promise<string>);
  source: string;
  /** How long a mutation may take before the client follows its run instead. */
  timeoutMs: number;
  /** Between two looks at a followed run. */
  pollMs: number;
  progress: Progress;
}

/** Sends imports and associations of one source and follows their runs when the requests give up. */
export class RunFollower {
  /** Runs of other imports this client waited for. */
  readonly followed: FollowedRun[] = [];

  constructor(private readonly o: FollowerOptions) {}

  private token(): Promise<string> {
    const t = this.o.accessToken;
    return typeof t === 'string' ? Promise.resolve(t) : t();
  }

  /** A look at the run history, tried again while the service is busy or unreachable (the run goes on meanwhile). */
  private async look(query: string, variables: unknown): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await graphql(this.o.service, await this.token(), query, variables, this.o.pollMs + 30_000);
      } catch (err) {
        const passing =
          (err instanceof ServiceError && err.code === 'SERVICE_BUSY') ||
          err instanceof RequestGaveUp ||
          isFetchFailure(err);
        if (!passing || attempt >= LOOK_ATTEMPTS) throw err;
        await sleep(this.o.pollMs);
      }
    }
  }

  private async recentRuns(): Promise<ServiceRun[]> {
    return (
      await this.look(`query($s: String!) { importRuns(source: $s, first: 20) { ${RUN_FIELDS} } }`, {
        s: this.o.source,
      })
    ).importRuns as ServiceRun[];
  }

  /** Polls the run until it is no longer QUEUED or RUNNING. */
  async follow(id: string): Promise<ServiceRun> {
    for (;;) {
      const run = (await this.look(`query($id: ID!) { importRun(id: $id) { ${RUN_FIELDS} } }`, { id }))
        .importRun as ServiceRun | null;
      if (!run) throw new Error(`run ${id} is not in the run history`);
      if (run.status !== 'RUNNING' && run.status !== 'QUEUED') return run;
      await sleep(this.o.pollMs);
    }
  }

  /** Sends a mutation; while the service answers SERVICE_BUSY (a tenant budget, the instance's memory), again after its wait. */
  private async sendWhileBusy(
    query: string,
    variables: unknown,
    correlationId: string,
  ): Promise<Record<string, unknown>> {
    for (let send = 1; ; send++) {
      try {
        return await graphql(this.o.service, await this.token(), query, variables, this.o.timeoutMs, correlationId);
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === 'SERVICE_BUSY' && send < BUSY_SENDS)) throw err;
        const waitS = Math.min(60, Math.max(1, err.retryAfterSeconds ?? 1));
        this.o.progress(`the service is busy; sending again in ${waitS} s`);
        await sleep(waitS * 1000);
      }
    }
  }

  /**
   * Sends one mutation under a correlation id of its own. When the request gives up, finds the run it
   * started by that id (the service keeps it in the run record) and follows it to its end; another
   * process importing the same source with the same credentials meanwhile is never taken for it.
   */
  private async send(
    operation: RunOperation,
    query: string,
    variables: unknown,
  ): Promise<{ data: Record<string, unknown> } | { run: ServiceRun }> {
    const correlationId = newCorrelationId();
    const sentAt = Date.now();
    try {
      return { data: await this.sendWhileBusy(query, variables, correlationId) };
    } catch (err) {
      // A connection that broke (the service restarted) is a request that gave up: its run, if it started, is followed.
      if (!(err instanceof RequestGaveUp || isFetchFailure(err))) throw err;
      this.o.progress(
        `${err instanceof RequestGaveUp ? err.message : 'fetch failed'} after ${((Date.now() - sentAt) / 1000).toFixed(1)} s; following the ${operation === 'IMPORT' ? 'import' : 'association'}'s run`,
      );
    }
    let mine: ServiceRun | undefined;
    for (const giveUpAt = Date.now() + RUN_APPEARS_WITHIN_MS; !mine; await sleep(this.o.pollMs)) {
      mine = (await this.recentRuns()).find((r) => r.operation === operation && r.correlationId === correlationId);
      if (!mine && Date.now() > giveUpAt)
        throw new Error('the request timed out and its run did not appear in the run history; send it again');
    }
    this.o.progress(`following run ${mine.id}`);
    const ended = await this.follow(mine.id);
    if (ended.status !== 'COMPLETED')
      throw new RunFailed(ended, `${operation === 'IMPORT' ? 'import' : 'association'} run ${ended.id}`);
    return { run: ended };
  }

  /** Imports the set: its counts and run id, from the answer or from the run the client followed. */
  async importSet(
    identities: unknown[],
    request: { dryRun?: boolean; maxDeletedRatio?: number } = {},
  ): Promise<{ counts: ImportCounts; runId: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const sent = await this.send(
          'IMPORT',
          'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }',
          {
            i: { source: this.o.source, identities, ...request },
          },
        );
        if ('run' in sent) return { counts: countsOf(sent.run, 'importCounts'), runId: sent.run.id };
        const { runId, ...counts } = sent.data.importBusinessIdentities as ImportCounts & { runId: string };
        return { counts, runId };
      } catch (err) {
        // The client's own run stopped with the service (a crash): the set is sent again, and continues from what was written.
        if (err instanceof RunFailed && err.run.status === 'ABANDONED' && attempt < MAX_IMPORT_ATTEMPTS) {
          this.o.progress(`run ${err.run.id} was abandoned by the service; sending the set again`);
          continue;
        }
        if (!(
          err instanceof ServiceError &&
          err.code === 'IMPORT_IN_PROGRESS' &&
          err.runId &&
          attempt < MAX_IMPORT_ATTEMPTS
        ))
          throw err;
        this.o.progress(`another import of source ${this.o.source} is running (run ${err.runId}); following it`);
        const other = await this.follow(err.runId);
        this.followed.push({
          runId: other.id,
          status: other.status,
          importCounts: other.importCounts,
          failure: other.failure,
        });
        this.o.progress(`run ${other.id} ended ${other.status.toLowerCase()}; sending the set again`);
      }
    }
  }

  /**
   * Associates one part of the list: its counts, from the answers or from the runs the client followed.
   * Pairs the service answers ASSOCIATION_INCOMPLETE for (a failure that outlasted its own retries) are
   * sent again on their own after a growing wait, up to ASSOCIATION_SENDS sends in all.
   */
  /** What the answers listed by name (answers of followed runs carry counts only): for the client's --report. */
  readonly notAssociated = {
    unknownExternalIds: new Set<string>(),
    unknownUserPrincipalNames: new Set<string>(),
    conflictingUserPrincipalNames: new Set<string>(),
  };

  private noteLists(result: unknown): void {
    const r = (result ?? {}) as Partial<Record<keyof typeof this.notAssociated, unknown>>;
    for (const key of Object.keys(this.notAssociated) as Array<keyof typeof this.notAssociated>) {
      const list = r[key];
      if (Array.isArray(list))
        // UPNs compare in any case, as the directory does; externalIds exactly.
        for (const v of list)
          if (typeof v === 'string') this.notAssociated[key].add(key === 'unknownExternalIds' ? v : v.toLowerCase());
    }
  }

  async associate(associations: Array<{ externalId: string }>): Promise<AssociationCounts> {
    const totals = noAssociationCounts();
    let pending = associations;
    for (let send = 1; ; send++) {
      try {
        return addAssociationCounts(totals, await this.associateOnce(pending));
      } catch (err) {
        if (!(
          err instanceof ServiceError &&
          err.code === 'ASSOCIATION_INCOMPLETE' &&
          err.partial &&
          send < ASSOCIATION_SENDS
        ))
          throw err;
        addAssociationCounts(totals, associationCountsOf(err.partial.data.associateBusinessIdentities));
        this.noteLists(err.partial.data.associateBusinessIdentities);
        const again = new Set(err.partial.externalIds);
        pending = pending.filter((p) => again.has(p.externalId));
        if (pending.length === 0) return totals;
        const waitMs = this.o.pollMs * 2 ** (send - 1);
        this.o.progress(
          `${pending.length} ${pending.length === 1 ? 'pair was' : 'pairs were'} not done; sending ${pending.length === 1 ? 'it' : 'them'} again in ${(waitMs / 1000).toFixed(1)} s`,
        );
        await sleep(waitMs);
      }
    }
  }

  private async associateOnce(associations: unknown[]): Promise<AssociationCounts> {
    const sent = await this.send(
      'ASSOCIATION',
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }',
      { i: { source: this.o.source, associations } },
    );
    if ('run' in sent) return countsOf(sent.run, 'associationCounts');
    this.noteLists(sent.data.associateBusinessIdentities);
    return associationCountsOf(sent.data.associateBusinessIdentities);
  }
}

/** Sends of one association part, the first included, while the service answers ASSOCIATION_INCOMPLETE. */
const ASSOCIATION_SENDS = 3;

function noAssociationCounts(): AssociationCounts {
  return {
    associated: 0,
    unchanged: 0,
    unknownExternalIds: 0,
    unknownUserPrincipalNames: 0,
    conflictingUserPrincipalNames: 0,
  };
}

/** Adds `counts` into `totals` and returns `totals`. */
export function addAssociationCounts(totals: AssociationCounts, counts: AssociationCounts): AssociationCounts {
  for (const k of Object.keys(totals) as Array<keyof AssociationCounts>) totals[k] += counts[k];
  return totals;
}

/** The counts of an associateBusinessIdentities result (numbers, or lists counted by length). */
function associationCountsOf(result: unknown): AssociationCounts {
  const r = (result ?? {}) as Partial<Record<keyof AssociationCounts, unknown[] | number>>;
  const count = (v: unknown[] | number | undefined) => (Array.isArray(v) ? v.length : (v ?? 0));
  return {
    associated: count(r.associated),
    unchanged: count(r.unchanged),
    unknownExternalIds: count(r.unknownExternalIds),
    unknownUserPrincipalNames: count(r.unknownUserPrincipalNames),
    conflictingUserPrincipalNames: count(r.conflictingUserPrincipalNames),
  };
}
