import { describe, expect, it } from 'vitest';
import { deletedShare, median, runTrend, type RunInput } from '../src/runTrend';

const NOW = new Date('2026-06-30T12:00:00Z');
let n = 0;
function run(day: string, counts: RunInput['importCounts'], extra: Partial<RunInput> = {}): RunInput {
  n += 1;
  return {
    id: `r${n}`,
    operation: 'IMPORT',
    status: 'COMPLETED',
    startedAt: `${day}T02:00:00Z`,
    dryRun: false,
    importCounts: counts,
    failure: null,
    ...extra,
  };
}
const nightly = (day: string, deleted: number) =>
  run(day, { created: 2, updated: 10, deleted, unchanged: 1000 - 10 - deleted });

describe('deletedShare', () => {
  it('is deleted of what the source held before the run (as the delete guard measures), created not counted', () => {
    expect(deletedShare({ updated: 10, deleted: 30, unchanged: 60 })).toBe(0.3);
    expect(deletedShare({ updated: 0, deleted: 0, unchanged: 0 })).toBeNull();
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('runTrend', () => {
  it('marks the night that deleted 30 % when the others deleted 0.1 %, and explains it in words', () => {
    const runs = [
      nightly('2026-06-25', 1),
      nightly('2026-06-26', 1),
      nightly('2026-06-27', 300),
      nightly('2026-06-28', 1),
    ];
    const trend = runTrend(runs, NOW);
    expect(trend.medianShare).toBeCloseTo(0.001);
    const marked = trend.runs.filter((r) => r.standsOut);
    expect(marked.map((r) => r.startedAt)).toEqual(['2026-06-27T02:00:00Z']);
    expect(marked[0]!.standsOut).toBe(
      'Deleted 30 % of the source (300 of 1000), more than 3 times the median of 0.1 % over the last 90 days.',
    );
  });

  it('does not mark a share at exactly three times the median, and marks one just above it', () => {
    const base = [nightly('2026-06-20', 10), nightly('2026-06-21', 10), nightly('2026-06-22', 10)];
    expect(runTrend([...base, nightly('2026-06-23', 30)], NOW).runs.some((r) => r.standsOut)).toBe(false);
    expect(runTrend([...base, nightly('2026-06-23', 31)], NOW).runs.filter((r) => r.standsOut)).toHaveLength(1);
  });

  it('marks no run on the median rule with fewer than three runs with counts', () => {
    const trend = runTrend([nightly('2026-06-25', 0), nightly('2026-06-26', 500)], NOW);
    expect(trend.medianShare).toBeNull();
    expect(trend.runs.every((r) => r.standsOut === null)).toBe(true);
  });

  it('marks a deleting run when the median is 0, never a run that deleted nothing', () => {
    const trend = runTrend(
      [nightly('2026-06-24', 0), nightly('2026-06-25', 0), nightly('2026-06-26', 0), nightly('2026-06-27', 5)],
      NOW,
    );
    expect(trend.runs.map((r) => r.standsOut !== null)).toEqual([false, false, false, true]);
  });

  it('marks a run the delete guard refused, with the service words, though it has no counts', () => {
    const message =
      'The import would delete 400 of 1000 identities of the source, more than IMPORT_MAX_DELETE_RATIO allows; nothing was changed';
    const refused = run('2026-06-28', null, {
      status: 'REJECTED',
      failure: { code: 'IMPORT_DELETE_LIMIT_EXCEEDED', message },
    });
    const trend = runTrend([nightly('2026-06-27', 1), refused], NOW);
    const last = trend.runs.at(-1)!;
    expect(last).toMatchObject({ created: 0, updated: 0, deleted: 0, deletedShare: null });
    expect(last.standsOut).toBe(`Refused by the delete guard (IMPORT_DELETE_LIMIT_EXCEEDED): ${message}`);
  });

  it('keeps import runs of the last 90 days only, oldest first, without dry runs and associations', () => {
    const runs = [
      nightly('2026-06-28', 0),
      nightly('2026-03-01', 0), // 121 days before
      nightly('2026-04-02', 0), // 89 days before
      run('2026-06-27', { created: 0, updated: 0, deleted: 900, unchanged: 100 }, { dryRun: true }),
      run('2026-06-26', null, { operation: 'ASSOCIATION' }),
    ];
    expect(runTrend(runs, NOW).runs.map((r) => r.startedAt.slice(0, 10))).toEqual(['2026-04-02', '2026-06-28']);
  });

  it('counts a failed run by what it wrote before the failure', () => {
    const failed = run(
      '2026-06-28',
      { created: 0, updated: 0, deleted: 200, unchanged: 800 },
      { status: 'FAILED', failure: { code: 'STORE_UNAVAILABLE', message: 'The store was unavailable' } },
    );
    const trend = runTrend([nightly('2026-06-25', 1), nightly('2026-06-26', 1), nightly('2026-06-27', 1), failed], NOW);
    expect(trend.runs.at(-1)!.standsOut).toMatch(/^Deleted 20 % of the source \(200 of 1000\)/);
  });
});
