import type { InvocationContext } from '@azure/functions';
import type { Logger } from '../log/logger';
import { loggerFor } from '../http/request';

/** A timer run's logger; its correlation id is the invocation id. */
export function loggerForTimer(context: InvocationContext): Logger {
  return loggerFor(context, { correlationId: context.invocationId });
}

/** A queue-triggered invocation's logger; its correlation id is the invocation id. */
export function loggerForQueueMessage(context: InvocationContext): Logger {
  return loggerFor(context, { correlationId: context.invocationId });
}

/** How long a queue message waited since it was enqueued (the trigger's insertionTime); undefined when unknown. */
export function queuedMsOf(context: InvocationContext, now: number = Date.now()): number | undefined {
  const inserted = context.triggerMetadata?.insertionTime;
  const at = typeof inserted === 'string' || inserted instanceof Date ? new Date(inserted).getTime() : NaN;
  return Number.isFinite(at) ? Math.max(0, now - at) : undefined;
}
