import { app } from '@azure/functions';
import { resumeImportsRun } from '../lib/triggers/backgroundHandlers';

/**
 * Every minute: hands the job of a staged import whose step stopped (its process ended, its queue message
 * was lost) to the background-work queue again, so it continues from where the store says it is.
 */
app.timer('resumeImports', {
  schedule: '0 * * * * *',
  handler: resumeImportsRun,
});
