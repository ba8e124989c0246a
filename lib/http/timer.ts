import type { InvocationContext } from '@azure/functions';
import type { Logger } from '../log/logger';
import { loggerFor } from './request';

/** A timer run's logger; its correlation id is the invocation id. */
export function loggerForTimer(context: InvocationContext): Logger {
  return loggerFor(context, { correlationId: context.invocationId });
}

/** A queue-triggered invocation's logger; its correlation id is the invocation id. */
export function loggerForQueueMessage(context: InvocationContext): Logger {
  return loggerFor(context, { correlationId: context.invocationId });
}
