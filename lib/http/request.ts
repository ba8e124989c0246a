import { randomUUID } from 'node:crypto';
import type { HttpRequest, InvocationContext } from '@azure/functions';
import type { Logger } from '../log/logger';
import { invocationLogger } from '../log/invocationLog';
import { configuredLogLevel } from '../services';
import { hasNumberRun } from '../util/numberRuns';

const CORRELATION = /^[A-Za-z0-9._:-]{1,64}$/;
/** 8-4-4-4-12 hex: what Entra's provisioning sends as client-request-id; kept even where digits run across its dashes. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a caller-chosen correlation id may be used as is (and so be logged and sent back): a canonical UUID,
 * or a safe shape with no run of six or more digits, whatever separates them (a caller could send a personal
 * number as its id, written 010190-1234, 010190.1234 or 010190_1234; it would reach the logs and the answer).
 * About half of random UUIDs hold such a run across their dashes; support needs them (Entra's
 * client-request-id), and the fixed 8-4-4-4-12 hex shape holds no free text; that its digits may run is accepted.
 */
export function isSafeCorrelationId(value: string): boolean {
  return CANONICAL_UUID.test(value) || (CORRELATION.test(value) && !hasNumberRun(value));
}

/** The caller's correlation id when it is of a safe shape, otherwise the invocation id. */
export function correlationIdOf(request: HttpRequest, context: InvocationContext): string {
  const given = request.headers.get('x-correlation-id') ?? request.headers.get('x-ms-client-request-id');
  if (given && isSafeCorrelationId(given)) return given;
  return context.invocationId && context.invocationId !== 'unknown' ? context.invocationId : randomUUID();
}

/**
 * A logger that writes through the invocation context, so the host attaches its own ids too.
 * Lines below LOG_LEVEL are dropped before anything is formatted.
 */
export function loggerFor(context: InvocationContext, fields: Record<string, string>): Logger {
  return invocationLogger(context, fields, configuredLogLevel());
}

/** Headers every response carries. */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Time a body may take before it must keep up MIN_BODY_BYTES_PER_SECOND. */
export const BODY_GRACE_MS = 5_000;
/**
 * The slowest a body may arrive on average after the grace time (512 kbit/s): below a real client's upload,
 * and fast enough that a body never holds its place for long. A body must have arrived whole within
 * BODY_GRACE_MS plus one second per MIN_BODY_BYTES_PER_SECOND of its size (an 8 MiB body: 133 s), and a
 * caller that trickles (or declares more than it sends) is refused once it falls behind: at 24 KB/s after
 * about 8 s, whatever size it declared, so the body bytes it holds are soon free for others.
 */
export const MIN_BODY_BYTES_PER_SECOND = 65_536;

/**
 * The longest a body may pause between two chunks (or before its first) once the headers are in: a
 * caller that declares a body and sends nothing stops holding the invocation after this, not after the
 * grace time.
 */
export const BODY_IDLE_MS = 2_000;

export type BodyText = string | 'tooLarge' | 'invalidEncoding' | 'tooSlow' | 'refused';

export interface BodyReadOptions {
  /** Sees every chunk as it arrives; returning true stops the read at once ('refused'). */
  refuseAfter?: (chunk: Uint8Array) => boolean;
  now?: () => number;
}

/**
 * Reads the body with a size limit; 'tooLarge' past it, 'invalidEncoding' when it is not UTF-8, 'tooSlow'
 * when no chunk arrives for BODY_IDLE_MS or the body falls behind BODY_GRACE_MS plus one second per
 * MIN_BODY_BYTES_PER_SECOND received, 'refused' when `refuseAfter` says so.
 * The body arrives as a stream: reading stops at the limit, so at most `maxBytes` (plus one chunk) is held.
 */
export async function readBodyText(
  request: HttpRequest,
  maxBytes: number,
  options: BodyReadOptions = {},
): Promise<BodyText> {
  const now = options.now ?? Date.now;
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) return 'tooLarge';
  const stream = request.body as ReadableStream<Uint8Array> | null;
  const chunks: Uint8Array[] = [];
  if (stream) {
    const reader = stream.getReader();
    const started = now();
    let size = 0;
    for (;;) {
      const averageDeadline = started + BODY_GRACE_MS + (size * 1000) / MIN_BODY_BYTES_PER_SECOND;
      const next = await withDeadline(reader.read(), Math.min(averageDeadline - now(), BODY_IDLE_MS));
      if (next === 'late') {
        // Released, not cancelled: cancelling would close the connection before the answer is sent.
        reader.releaseLock();
        return 'tooSlow';
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > maxBytes) {
        reader.releaseLock();
        return 'tooLarge';
      }
      if (options.refuseAfter?.(next.value)) {
        reader.releaseLock();
        return 'refused';
      }
      chunks.push(next.value);
    }
  }
  try {
    return UTF8.decode(Buffer.concat(chunks));
  } catch {
    return 'invalidEncoding';
  }
}

/** The read, or 'late' when it has not settled within `ms` (the read is then abandoned: its failure is ignored). */
function withDeadline<T>(read: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, ms))));
  read.catch(() => undefined);
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/**
 * Whether the request carried more than one Authorization header. The Functions host (and the dev host)
 * joins repeated headers with ", "; a bearer token never contains a comma. Which credential counts would
 * be ambiguous, so such a request is refused (400) rather than judged by one of them.
 */
export function hasRepeatedAuthorization(request: HttpRequest): boolean {
  return request.headers.get('authorization')?.includes(',') ?? false;
}
