import { runEntry } from '../../../lib/activity/runActivity';
import type { RunView } from '../../../lib/imports/runHistory';

const run = (more: Partial<RunView>): RunView => ({
  id: '019cab12-3456-7000-8000-000000000001',
  operation: 'import',
  source: 'HR',
  clientId: 'aaaaaaaa-0000-4000-8000-000000000001',
  correlationId: 'corr-1',
  status: 'completed',
  startedAt: '2026-03-01T08:00:00.000Z',
  endedAt: '2026-03-01T08:00:05.000Z',
  submitted: 2,
  dryRun: false,
  importCounts: { created: 2, updated: 0, deleted: 0, unchanged: 0 },
  associationCounts: null,
  failure: null,
  progress: null,
  ...more,
});

describe('run outcomes as activity', () => {
  it('maps COMPLETED, REJECTED, FAILED and ABANDONED to succeeded, refused and failed', () => {
    expect(runEntry(run({}))).toMatchObject({
      operation: 'import',
      outcome: 'succeeded',
      code: null,
      detail: 'created 2, updated 0, deleted 0, unchanged 0',
      correlationId: 'corr-1',
    });
    const failure = { code: 'IMPORT_DELETE_LIMIT_EXCEEDED', message: 'The import would delete too much' };
    expect(runEntry(run({ status: 'rejected', failure, importCounts: null }))).toMatchObject({
      outcome: 'refused',
      code: 'IMPORT_DELETE_LIMIT_EXCEEDED',
      detail: failure.message,
    });
    expect(runEntry(run({ status: 'failed', failure }))?.outcome).toBe('failed');
    expect(runEntry(run({ status: 'abandoned' }))?.outcome).toBe('failed');
    expect(runEntry(run({ status: 'running' }))).toBeUndefined();
    expect(runEntry(run({ dryRun: true }))?.operation).toBe('import (dry run)');
  });

  it('orders by the run id, which holds its start time', () => {
    const key = runEntry(run({}))!.key;
    expect(key.endsWith('|019cab12-3456-7000-8000-000000000001')).toBe(true);
    expect(Date.parse(key.slice(0, 24))).toBe(parseInt('019cab123456', 16));
  });
});
