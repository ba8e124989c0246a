import { app } from '@azure/functions';
import { planRetentionRun } from '../lib/triggers/backgroundHandlers';

/**
 * Daily (RETENTION_SCHEDULE): plans one unit of retention work per identity partition (tenant and source)
 * with identities inactive for RETENTION_INACTIVE_DAYS (default 90) that still hold sensitive lists;
 * backgroundWork deletes them.
 */
app.timer('retention', {
  schedule: '%RETENTION_SCHEDULE%',
  handler: planRetentionRun,
});
