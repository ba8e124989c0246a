import { app } from '@azure/functions';
import { BACKGROUND_QUEUE_NAME, doBackgroundWork } from '../lib/triggers/backgroundHandlers';

/**
 * One unit of background work from the background-work queue (planned by the timers): one tenant's
 * pending links or retention. Connection BACKGROUND_QUEUE: identity-based in Azure
 * (BACKGROUND_QUEUE__queueServiceUri), Azurite's connection string locally. A unit that keeps failing
 * ends in background-work-poison after maxDequeueCount (host.json).
 */
app.storageQueue('backgroundWork', {
  queueName: BACKGROUND_QUEUE_NAME,
  connection: 'BACKGROUND_QUEUE',
  handler: doBackgroundWork,
});
