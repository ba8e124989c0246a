/**
 * Logging through the Functions host's invocation context, so the host attaches its own ids too. Both seams
 * (HTTP handlers and queue/timer handlers) use it; it names the context by the methods it needs, so this
 * layer does not depend on @azure/functions (InvocationContext has them).
 */
import { createLogger, type Logger, type LogLevel, type LogSink } from './logger';

export interface InvocationLog {
  readonly functionName: string;
  error(line: string): void;
  warn(line: string): void;
  info(line: string): void;
  debug(line: string): void;
}

/** Writes formatted log lines through the invocation context. */
export function sinkFor(context: InvocationLog): LogSink {
  return (level, line) => {
    if (level === 'error') context.error(line);
    else if (level === 'warn') context.warn(line);
    else if (level === 'debug') context.debug(line);
    else context.info(line);
  };
}

/** A logger of one invocation; lines below `level` are dropped before anything is formatted. */
export function invocationLogger(context: InvocationLog, fields: Record<string, string>, level: LogLevel): Logger {
  return createLogger(sinkFor(context), { function: context.functionName, ...fields }, level);
}
