import { randomUUID } from 'node:crypto';
import type { HttpRequest, InvocationContext } from '@azure/functions';
import { createLogger, type Logger, type LogSink } from '../log/logger';

const CORRELATION = /^[A-Za-z0-9._:-]{1,64}$/;

/** The caller's correlation id when it is well-formed, otherwise the invocation id. */
export function correlationIdOf(request: HttpRequest, context: InvocationContext): string {
  const given = request.headers.get('x-correlation-id') ?? request.headers.get('x-ms-client-request-id');
  if (given && CORRELATION.test(given)) return given;
  return context.invocationId && context.invocationId !== 'unknown' ? context.invocationId : randomUUID();
}

/** A logger that writes through the invocation context, so the host attaches its own ids too. */
export function loggerFor(context: InvocationContext, fields: Record<string, string>): Logger {
  const sink: LogSink = (level, line) => {
    if (level === 'error') context.error(line);
    else if (level === 'warn') context.warn(line);
    else if (level === 'debug') context.debug(line);
    else context.info(line);
  };
  return createLogger(sink, { function: context.functionName, ...fields });
}

/** Headers every response carries. */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the body with a size limit; 'tooLarge' past it, 'invalidEncoding' when it is not UTF-8. */
export async function readBodyText(request: HttpRequest, maxBytes: number): Promise<string | 'tooLarge' | 'invalidEncoding'> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) return 'tooLarge';
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.length > maxBytes) return 'tooLarge';
  try {
    return UTF8.decode(bytes);
  } catch {
    return 'invalidEncoding';
  }
}
