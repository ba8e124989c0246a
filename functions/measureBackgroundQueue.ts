import { app } from '@azure/functions';
import { measureBackgroundQueueRun } from '../lib/triggers/backgroundHandlers';

/**
 * Every minute: the age of the oldest visible message of background-work and the count on its poison queue,
 * peeked from outside the consumer and sent as metrics; the stall and poison alerts read them
 * (infra/modules/diagnostics.bicep, docs/operations.md).
 */
app.timer('measureBackgroundQueue', {
  schedule: '30 * * * * *',
  handler: measureBackgroundQueueRun,
});
