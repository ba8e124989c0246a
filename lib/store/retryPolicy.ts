/**
 * The one retry policy of the service's store calls: which failures are tried again, how long to wait
 * before the next try, and when to give up, as named budgets (RETRY). The kinds of failure:
 * - throttled: 429; the store's Retry-After is honoured;
 * - unavailable: 408, 449, 5xx and timeouts (the store's Retry-After where it names one);
 * - changed: 412, a replace or delete with If-Match lost to another writer (read again and re-apply);
 * - raced: 409 on a create, another writer created the item first (read again and decide).
 * `retrying` runs a call under a budget; `readModifyWrite` is the read / pure change / If-Match write cycle.
 * `retryDelay` is the decision alone (pure), so the budgets are tested without a store or a clock.
 */
import { isStoreError } from './errors';
import type { Collection, StoredDoc, WithEtag } from './store';

export type RetryKind = 'throttled' | 'unavailable' | 'changed' | 'raced' | 'other';

/** How one kind of failure is tried again. */
export interface RetryRule {
  /** Tries this kind of failure may cost, the first try included (Infinity: bounded by time only). */
  readonly attempts: number;
  /** The wait when the failure names none: firstMs · factor^(n-1) + stepMs · (n-1) before the n-th retry, at most capMs. */
  readonly firstMs: number;
  readonly factor?: number;
  readonly stepMs?: number;
  readonly capMs?: number;
  /** A random part of that wait (spreads writers that lost the same race). */
  readonly jitter?: boolean;
  /** Never waits less than this. */
  readonly minMs?: number;
  /** A wait longer than this is shortened to it ('clamp') or ends the retries ('giveUp'). */
  readonly maxWaitMs?: number;
  readonly longerWait?: 'clamp' | 'giveUp';
  /** The waits for this kind together at most this long: a wait beyond it passes the failure on. */
  readonly totalWaitMs?: number;
}

export interface RetryBudget {
  readonly name: string;
  /** Tries in all, whatever the failures (Infinity: as each kind's rule allows). */
  readonly attempts?: number;
  /** No try starts later than this after the first. */
  readonly withinMs?: number;
  readonly throttled?: RetryRule;
  readonly unavailable?: RetryRule;
  readonly changed?: RetryRule;
  readonly raced?: RetryRule;
  /** Failures a caller names retryable (options.alsoRetry), e.g. a domain error that reports a lost race. */
  readonly other?: RetryRule;
}

/** The store's default wait when a throttled or unavailable answer names none. */
const STORE_WAIT_MS = 1_000;

const throttledWithin10s: RetryRule = { attempts: Infinity, firstMs: STORE_WAIT_MS, minMs: 1, totalWaitMs: 10_000 };
const throttledClamped: RetryRule = { attempts: 6, firstMs: STORE_WAIT_MS, maxWaitMs: 10_000, longerWait: 'clamp' };
const unitRule: RetryRule = { attempts: 3, firstMs: 100, factor: 4, maxWaitMs: 5_000, longerWait: 'giveUp' };
const fewChanges: RetryRule = { attempts: 4, firstMs: 0 };
const manyWriters: RetryRule = { attempts: 60, firstMs: 2, stepMs: 2, capMs: 50, jitter: true };

export const RETRY = {
  /**
   * A write a caller waits for whose document carries the time of its write (stampedWrite.ts): throttling
   * is waited out for at most 10 s in all, as the store client would, each try sent again with a new time.
   */
  interactive: { name: 'interactive', throttled: throttledWithin10s },
  /** Background and import bookkeeping (leases, manifests, runs, staged documents): 6 tries against throttling. */
  background: { name: 'background', throttled: throttledClamped },
  /** One identity write of an import: throttling is waited out while a try can start within 2 minutes. */
  bulkWrite: { name: 'bulkWrite', withinMs: 120_000, throttled: { ...throttledClamped, attempts: Infinity } },
  /**
   * One unit of work that may be reported not done (an association pair, an audit entry): 3 tries in all
   * against throttling, outages and lost races, a growing wait; a Retry-After beyond 5 s is not waited.
   */
  unit: { name: 'unit', attempts: 3, throttled: unitRule, unavailable: unitRule, other: unitRule },
  /** A read-modify-write whose entity-tag check may lose to another writer now and then: 4 tries. */
  changed: { name: 'changed', changed: fewChanges, raced: fewChanges },
  /** A read-modify-write of one document that many writers change at once (a SCIM User, a tenant's list). */
  contention: { name: 'contention', changed: manyWriters, raced: manyWriters },
} as const satisfies Record<string, RetryBudget>;

export type RetryOptions = {
  /** Other failures to try again under the budget's `other` rule. */
  alsoRetry?: (err: unknown) => boolean;
  /** The error passed on when the budget ran out (instead of the last failure). */
  exhausted?: (last: unknown) => unknown;
};

/** What the tries so far cost: tries of each kind of failure, their waits, and the time since the first try. */
export interface RetryHistory {
  tries: number;
  failures: Partial<Record<RetryKind, number>>;
  waitedMs: Partial<Record<RetryKind, number>>;
  sinceFirstMs: number;
}

export function kindOf(err: unknown, alsoRetry?: (err: unknown) => boolean): RetryKind | undefined {
  if (isStoreError(err, 'throttled')) return 'throttled';
  if (isStoreError(err, 'unavailable')) return 'unavailable';
  if (isStoreError(err, 'preconditionFailed')) return 'changed';
  if (isStoreError(err, 'conflict')) return 'raced';
  return alsoRetry?.(err) ? 'other' : undefined;
}

/**
 * How long to wait before trying again after `err`, or undefined when the budget says to give up.
 * `history` counts the failed tries before this one; `err` is the failure of the latest.
 */
export function retryDelay(
  budget: RetryBudget,
  err: unknown,
  history: RetryHistory,
  options: Pick<RetryOptions, 'alsoRetry'> & { random?: () => number } = {},
): number | undefined {
  const kind = kindOf(err, options.alsoRetry);
  const rule = kind ? budget[kind] : undefined;
  if (!kind || !rule) return undefined;
  const failures = (history.failures[kind] ?? 0) + 1;
  if (history.tries >= (budget.attempts ?? Infinity) || failures >= rule.attempts) return undefined;
  const named = (kind === 'throttled' || kind === 'unavailable') && isStoreError(err) ? err.retryAfterMs : undefined;
  let wait =
    named ??
    Math.min(
      rule.capMs ?? Infinity,
      rule.firstMs * (rule.factor ?? 1) ** (failures - 1) + (rule.stepMs ?? 0) * (failures - 1),
    );
  if (named === undefined && rule.jitter) wait *= (options.random ?? Math.random)();
  if (rule.maxWaitMs !== undefined && wait > rule.maxWaitMs) {
    if (rule.longerWait === 'giveUp') return undefined;
    wait = rule.maxWaitMs;
  }
  wait = Math.max(rule.minMs ?? 0, wait);
  if (rule.totalWaitMs !== undefined && (history.waitedMs[kind] ?? 0) + wait > rule.totalWaitMs) return undefined;
  if (budget.withinMs !== undefined && history.sinceFirstMs + wait > budget.withinMs) return undefined;
  return wait;
}

/** The clock and timer the policy waits with (a test passes fake ones). */
export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/**
 * Runs `attempt` under the budget: a failure the budget retries is tried again after its wait; any other
 * failure, or one beyond the budget, is passed on. With `retryResult`, an answer can fail a try too (a
 * batch whose every item was throttled): when the budget runs out that last answer is returned.
 */
export async function retrying<T>(
  budget: RetryBudget,
  attempt: (tryNumber: number) => Promise<T>,
  options: RetryOptions & { retryResult?: (result: T) => unknown; clock?: RetryClock } = {},
): Promise<T> {
  const clock = options.clock ?? realClock;
  const started = clock.now();
  const history: RetryHistory = { tries: 0, failures: {}, waitedMs: {}, sinceFirstMs: 0 };
  for (;;) {
    let failure: unknown;
    let answer: { value: T } | undefined;
    try {
      const value = await attempt(history.tries + 1);
      const failed = options.retryResult?.(value);
      if (failed === undefined) return value;
      failure = failed;
      answer = { value };
    } catch (err) {
      failure = err;
    }
    history.tries++;
    history.sinceFirstMs = clock.now() - started;
    const wait = retryDelay(budget, failure, history, options);
    if (wait === undefined) {
      if (answer) return answer.value;
      const kind = kindOf(failure, options.alsoRetry);
      throw kind && budget[kind] && options.exhausted ? options.exhausted(failure) : failure;
    }
    const kind = kindOf(failure, options.alsoRetry) as RetryKind;
    history.failures[kind] = (history.failures[kind] ?? 0) + 1;
    history.waitedMs[kind] = (history.waitedMs[kind] ?? 0) + wait;
    if (wait > 0) await clock.sleep(wait);
  }
}

/**
 * Reads a document with its entity tag, applies a change, and writes the result only if nobody wrote the
 * document meanwhile (If-Match; a create when it did not exist). Another writer first: read again and
 * apply again, within the budget. `change` returns the new document, or undefined to write nothing (the
 * document as read is returned then). Each read and write is itself retried under `options.each`.
 */
export async function readModifyWrite<T extends StoredDoc>(
  collection: Collection<T>,
  pk: string,
  id: string,
  change: (current: WithEtag<T> | undefined) => T | undefined | Promise<T | undefined>,
  budget: RetryBudget,
  options: RetryOptions & { each?: RetryBudget; retryThrottled?: boolean; clock?: RetryClock } = {},
): Promise<WithEtag<T> | undefined> {
  const each = <R>(call: () => Promise<R>) => (options.each ? retrying(options.each, call) : call());
  const write = { retryThrottled: options.retryThrottled };
  return retrying(
    budget,
    async () => {
      const current = await each(() => collection.read(pk, id));
      const next = await change(current);
      if (next === undefined) return current;
      if (!current) return each(() => collection.create(next, write));
      return each(() => collection.replace(next, current._etag, write));
    },
    options,
  );
}
