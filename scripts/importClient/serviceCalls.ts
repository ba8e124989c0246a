/*
 * GraphQL calls of the staged upload, each with a current token and sent again when the failure may pass:
 * SERVICE_BUSY after the wait the service asks for, a request that got no answer, a connection that broke,
 * or a 5xx without a GraphQL body after a growing wait; a token the service refused once is renewed. Only
 * calls that are harmless to repeat go through here (a part is idempotent by its sequence).
 */
import { graphql, isFetchFailure, RequestGaveUp, ServiceError, ServiceUnavailable } from '../runFollower';
import { TokenRequestFailed } from './credentials';
import type { Progress } from './progress';

/** Sends while the service answers SERVICE_BUSY (each after the wait it asks for, at most a minute). */
export const BUSY_SENDS = 20;
/** Sends while the request gets no answer or a 5xx. */
export const TRANSIENT_SENDS = 6;
/** The longest wait between two sends after a failure without a wait of the service's. */
const MAX_BACKOFF_MS = 30_000;

export interface TokenSource {
  token(): Promise<string>;
  invalidate(): void;
}

export interface ServiceCallOptions {
  service: string;
  credential: TokenSource;
  progress: Progress;
  /** Base of the growing wait after a failure that passes (doubled each time, at most 30 s). */
  backoffMs: number;
  /** How long one request may take. */
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Failures of the network or of the service that the same request may get past later. */
export function isPassing(err: unknown): boolean {
  return (
    err instanceof RequestGaveUp ||
    err instanceof ServiceUnavailable ||
    (err instanceof ServiceError && err.code === 'REQUEST_TIMEOUT') ||
    (err instanceof TokenRequestFailed && (err.status >= 500 || err.status === 429)) ||
    isFetchFailure(err)
  );
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ServiceCalls {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly o: ServiceCallOptions) {
    this.sleep = o.sleep ?? defaultSleep;
  }

  /** One call, sent again while its failure may pass; `what` names it in progress lines (never a value). */
  async call(query: string, variables: unknown, what: string): Promise<Record<string, unknown>> {
    let busy = 0;
    let passing = 0;
    let renewed = false;
    for (;;) {
      try {
        return await graphql(this.o.service, await this.o.credential.token(), query, variables, this.o.timeoutMs);
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'SERVICE_BUSY' && ++busy < BUSY_SENDS) {
          const waitS = Math.min(60, Math.max(1, err.retryAfterSeconds ?? 1));
          this.o.progress(`the service is busy; sending ${what} again in ${waitS} s`);
          await this.sleep(waitS * 1000);
          continue;
        }
        if (err instanceof ServiceError && err.code === 'AUTH_NOT_AUTHENTICATED' && !renewed) {
          renewed = true;
          this.o.credential.invalidate();
          continue;
        }
        if (isPassing(err) && ++passing < TRANSIENT_SENDS) {
          const waitMs = Math.min(MAX_BACKOFF_MS, this.o.backoffMs * 2 ** (passing - 1));
          const failure = isFetchFailure(err)
            ? 'the connection failed'
            : err instanceof Error
              ? err.message.split('\n', 1)[0]
              : 'the request failed';
          this.o.progress(`${failure}; sending ${what} again in ${(waitMs / 1000).toFixed(1)} s`);
          await this.sleep(waitMs);
          continue;
        }
        throw err;
      }
    }
  }
}
