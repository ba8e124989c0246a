import type { InvocationContext } from '@azure/functions';
import type { Logger } from '../log/logger';
import { invocationLogger } from '../log/invocationLog';
import { configuredLogLevel } from '../services';

/** A timer run's logger; its correlation id is the invocation id. */
export function loggerForTimer(context: InvocationContext): Logger {
  return invocationLogger(context, { correlationId: context.invocationId }, configuredLogLevel());
}

/** A queue-triggered invocation's logger; its correlation id is the invocation id. */
export function loggerForQueueMessage(context: InvocationContext): Logger {
  return invocationLogger(context, { correlationId: context.invocationId }, configuredLogLevel());
}

/** How long a queue message waited since it was enqueued (the trigger's insertionTime); undefined when unknown. */
export function queuedMsOf(context: InvocationContext, now: number = Date.now()): number | undefined {
  const inserted = context.triggerMetadata?.insertionTime;
  const at = typeof inserted === 'string' || inserted instanceof Date ? new Date(inserted).getTime() : NaN;
  return Number.isFinite(at) ? Math.max(0, now - at) : undefined;
}
