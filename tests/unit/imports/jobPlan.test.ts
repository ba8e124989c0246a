import type { ManifestEntry } from '../../../lib/imports/manifest';
import {
  MAX_STEP_ATTEMPTS,
  RESUME_AFTER_MS,
  SetCheck,
  STEP_READ_BUDGET_MS,
  UNCOMMITTED_AFTER_MS,
  WRITES_PER_STEP,
  resumeDecision,
  stepDecision,
  takesAnotherPart,
  planAfter,
  inRange,
  rangeCount,
  rangeOf,
  type JobProgress,
  type JobState,
  type SetCheckResult,
} from '../../../lib/imports/jobPlan';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the check of a whole staged set', () => {
  const manifest = new Map<string, ManifestEntry>([
    ['same', { id: '1', hash: 'h-same' }],
    ['changed', { id: '2', hash: 'h-old' }],
    ['gone', { id: '3', hash: 'h' }],
    ['pending', { id: '4', hash: null }],
  ]);

  it('counts what the set would create, update, leave and delete', () => {
    const check = new SetCheck(manifest);
    check.addPart(1, [
      ['same', 'h-same'],
      ['changed', 'h-new'],
    ]);
    check.addPart(2, [
      ['new', 'h'],
      ['pending', 'h'],
    ]);
    expect(check.result()).toEqual({
      duplicates: 0,
      planned: { created: 1, updated: 2, unchanged: 1, deleted: 1 },
      held: 4,
    });
  });

  it('finds an externalId in two parts, new to the source or not, and where it came again first', () => {
    const check = new SetCheck(manifest);
    check.addPart(1, [
      ['new', 'h'],
      ['same', 'h-same'],
    ]);
    check.addPart(2, [
      ['other', 'h'],
      ['same', 'h-same'],
      ['new', 'h'],
    ]);
    expect(check.result()).toMatchObject({ duplicates: 2, firstDuplicate: { sequence: 2, index: 1 } });
  });

  it('does not change the manifest it checks against', () => {
    new SetCheck(manifest).addPart(1, [['same', 'x']]);
    expect([...manifest.keys()]).toEqual(['same', 'changed', 'gone', 'pending']);
  });
});

const job = (over: Partial<JobState> = {}): JobState => ({
  phase: 'apply',
  step: 4,
  attempts: 0,
  enqueuedAt: iso(NOW - 5_000),
  createdAt: iso(NOW - 60_000),
  ...over,
});

describe('a queue message of a job', () => {
  it('runs its step when no one holds the job', () => {
    expect(stepDecision(job(), 4, NOW)).toBe('run');
    // A hold that lapsed (its step's process stopped) does not keep the job.
    expect(stepDecision(job({ holder: 'h', heldUntil: iso(NOW - 1) }), 4, NOW)).toBe('run');
  });
  it('does nothing for a step done already, a job that ended, or a job another step holds', () => {
    expect(stepDecision(job(), 3, NOW)).toBe('stale');
    expect(stepDecision(job(), 5, NOW)).toBe('stale');
    expect(stepDecision(job({ phase: 'done' }), 4, NOW)).toBe('stale');
    expect(stepDecision(job({ holder: 'h', heldUntil: iso(NOW + 1_000) }), 4, NOW)).toBe('held');
  });
  it('ends the run once its step has failed too often', () => {
    expect(stepDecision(job({ attempts: MAX_STEP_ATTEMPTS - 1 }), 4, NOW)).toBe('run');
    expect(stepDecision(job({ attempts: MAX_STEP_ATTEMPTS }), 4, NOW)).toBe('exhausted');
  });
});

describe('the resumer', () => {
  it('hands a job to the queue again only when its step is not held and was queued a while ago', () => {
    expect(resumeDecision(job({ enqueuedAt: iso(NOW - RESUME_AFTER_MS - 1) }), 'committed', NOW)).toBe('resume');
    expect(resumeDecision(job({ enqueuedAt: iso(NOW - RESUME_AFTER_MS + 1_000) }), 'committed', NOW)).toBe('wait');
    expect(
      resumeDecision(
        job({ enqueuedAt: iso(NOW - 10 * RESUME_AFTER_MS), holder: 'h', heldUntil: iso(NOW + 1_000) }),
        'committed',
        NOW,
      ),
    ).toBe('wait');
    // A lapsed hold: its step started and stopped with its process; resumed however recently it was queued.
    expect(
      resumeDecision(job({ enqueuedAt: iso(NOW - 1_000), holder: 'h', heldUntil: iso(NOW - 1_000) }), 'committed', NOW),
    ).toBe('resume');
  });
  it('forgets ended jobs and removes completions that never recorded themselves, after a grace', () => {
    expect(resumeDecision(undefined, 'missing', NOW)).toBe('ended');
    expect(resumeDecision(job({ phase: 'done' }), 'committed', NOW)).toBe('ended');
    expect(resumeDecision(job({ createdAt: iso(NOW - UNCOMMITTED_AFTER_MS + 1_000) }), 'uncommitted', NOW)).toBe(
      'wait',
    );
    expect(resumeDecision(job({ createdAt: iso(NOW - UNCOMMITTED_AFTER_MS - 1) }), 'uncommitted', NOW)).toBe(
      'uncommitted',
    );
  });
  it('ends the run of a job whose import expired (its parts are gone)', () => {
    expect(resumeDecision(job(), 'missing', NOW)).toBe('expired');
  });
});

describe('how much one apply step takes on', () => {
  it('always one part, then more while its writes and its reading time allow', () => {
    expect(takesAnotherPart({ parts: 0, writes: 10 * WRITES_PER_STEP, elapsedMs: 10 * STEP_READ_BUDGET_MS })).toBe(
      true,
    );
    expect(takesAnotherPart({ parts: 3, writes: WRITES_PER_STEP - 1, elapsedMs: 0 })).toBe(true);
    expect(takesAnotherPart({ parts: 3, writes: WRITES_PER_STEP, elapsedMs: 0 })).toBe(false);
    expect(takesAnotherPart({ parts: 3, writes: 0, elapsedMs: STEP_READ_BUDGET_MS })).toBe(false);
    expect(takesAnotherPart({ parts: 3, writes: 99, elapsedMs: 0 }, 100)).toBe(true);
    expect(takesAnotherPart({ parts: 3, writes: 100, elapsedMs: 0 }, 100)).toBe(false);
  });
});

describe('what the job does after each phase (planAfter)', () => {
  const counts = (c: Partial<JobProgress['counts']> = {}) => ({
    created: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    ...c,
  });
  const job = (j: Partial<JobProgress> = {}): JobProgress => ({
    phase: 'check',
    dryRun: false,
    nextPart: 0,
    applied: 0,
    total: 10,
    counts: counts(),
    ...j,
  });
  const found = (f: Partial<SetCheckResult> = {}): SetCheckResult => ({
    duplicates: 0,
    planned: counts({ created: 4, updated: 1, unchanged: 5 }),
    held: 6,
    ...f,
  });
  const checked = (j: JobProgress, f: SetCheckResult, strictestRatio?: number) =>
    planAfter(j, { phase: 'check', found: f, strictestRatio, parts: 3 });

  it('rejects a set with an externalId in two parts, naming where, never the value', () => {
    const plan = checked(job(), found({ duplicates: 2, firstDuplicate: { sequence: 3, index: 7 } }));
    expect(plan).toMatchObject({ end: 'rejected', failure: { code: 'BAD_USER_INPUT' } });
    expect('failure' in plan && plan.failure.message).toContain('part 3, identities[7]');
  });

  it('rejects a set that deletes more than the strictest ratio allows, before anything is written', () => {
    const f = found({ planned: counts({ deleted: 4, unchanged: 2 }), held: 6 });
    expect(checked(job(), f, 0.5)).toMatchObject({
      end: 'rejected',
      failure: { code: 'IMPORT_DELETE_LIMIT_EXCEEDED' },
    });
    expect(checked(job(), f, 0.8)).toMatchObject({ next: { phase: 'delete' } });
    expect(checked(job(), f)).toMatchObject({ next: { phase: 'delete' } });
  });

  it('ends a dry run after the check with the counts it would write', () => {
    expect(checked(job({ dryRun: true }), found())).toEqual({
      end: 'completed',
      job: job({ dryRun: true, counts: found().planned, applied: 10 }),
    });
  });

  it('applies the parts when something is created or updated; skips them when nothing is', () => {
    expect(checked(job(), found())).toEqual({ next: job({ phase: 'apply', planned: found().planned }) });
    const unchanged = found({ planned: counts({ unchanged: 10 }), held: 10 });
    expect(checked(job(), unchanged)).toEqual({
      end: 'completed',
      job: job({ planned: unchanged.planned, counts: counts({ unchanged: 10 }), applied: 10, nextPart: 3 }),
    });
  });

  it('adds up what each apply step wrote, then deletes when the check found deletions, else ends', () => {
    const applying = job({
      phase: 'apply',
      planned: counts({ created: 6, deleted: 1 }),
      counts: counts({ created: 2 }),
    });
    const step = {
      phase: 'apply' as const,
      counts: counts({ created: 3, unchanged: 1 }),
      identities: 4,
      parts: 3,
      requestUnits: 40,
    };
    expect(planAfter(applying, { ...step, nextPart: 2 })).toEqual({
      next: {
        ...applying,
        counts: counts({ created: 5, unchanged: 1 }),
        applied: 4,
        nextPart: 2,
        writeRequestUnits: 40,
      },
    });
    expect(planAfter(applying, { ...step, nextPart: 3 })).toMatchObject({ next: { phase: 'delete', nextPart: 3 } });
    const noDeletions = { ...applying, planned: counts({ created: 6 }) };
    expect(planAfter(noDeletions, { ...step, nextPart: 3 })).toMatchObject({ end: 'completed', job: { applied: 4 } });
  });

  it('deletes in steps until nothing the set lacks is left, adding up what the writes cost', () => {
    const deleting = job({ phase: 'delete', counts: counts({ unchanged: 5, deleted: 2 }), writeRequestUnits: 100 });
    const step = { phase: 'delete' as const, requestUnits: 30 };
    expect(planAfter(deleting, { ...step, counts: counts({ deleted: 3 }), more: true })).toEqual({
      next: { ...deleting, counts: counts({ unchanged: 5, deleted: 5 }), writeRequestUnits: 130 },
    });
    expect(planAfter(deleting, { ...step, counts: counts({ deleted: 1 }), more: false })).toMatchObject({
      end: 'completed',
      job: { counts: { deleted: 3 }, writeRequestUnits: 130 },
    });
  });

  it('checks a large set one hash range at a time and decides on the whole set after the last range', () => {
    const range = (r: number, f: SetCheckResult, strictestRatio?: number) =>
      ({ phase: 'check', found: f, strictestRatio, parts: 3, range: r, ranges: 3 }) as const;
    const first = planAfter(job(), range(0, found({ planned: counts({ created: 2, deleted: 1 }), held: 3 })));
    expect(first).toEqual({
      next: job({
        ranges: 3,
        range: 1,
        deleteRanges: [0],
        checked: found({ planned: counts({ created: 2, deleted: 1 }), held: 3 }),
      }),
    });
    const second = planAfter(
      'next' in first ? first.next : job(),
      range(
        1,
        found({ planned: counts({ unchanged: 2 }), held: 2, duplicates: 1, firstDuplicate: { sequence: 2, index: 5 } }),
      ),
    );
    expect(second).toMatchObject({ next: { range: 2, checked: { duplicates: 1, held: 5 } } });
    const last = planAfter(
      'next' in second ? second.next : job(),
      range(
        2,
        found({ planned: counts({ deleted: 1 }), held: 1, duplicates: 1, firstDuplicate: { sequence: 2, index: 1 } }),
      ),
    );
    // Duplicates in any range refuse the set, naming the first in the order of the parts.
    expect(last).toMatchObject({ end: 'rejected', failure: { code: 'BAD_USER_INPUT' } });
    expect('failure' in last && last.failure.message).toContain('2 identit(ies)');
    expect('failure' in last && last.failure.message).toContain('part 2, identities[1]');

    // Without duplicates: the delete guard counts the deletions of every range against the whole source.
    const clean = {
      ...job(),
      ranges: 3,
      range: 2,
      deleteRanges: [0],
      checked: found({ planned: counts({ created: 2, deleted: 1 }), held: 3 }),
    };
    const guarded = planAfter(clean, range(2, found({ planned: counts({ deleted: 1 }), held: 1 }), 0.4));
    expect(guarded).toMatchObject({ end: 'rejected', failure: { code: 'IMPORT_DELETE_LIMIT_EXCEEDED' } });
    const applying = planAfter(clean, range(2, found({ planned: counts({ deleted: 1 }), held: 1 }), 0.5));
    expect(applying).toEqual({
      next: job({
        phase: 'apply',
        ranges: 3,
        deleteRanges: [0, 2],
        planned: counts({ created: 2, deleted: 2 }),
      }),
    });
  });

  it('deletes range by range: stays in a range while it has more, then the next range with deletions', () => {
    const deleting = job({ phase: 'delete', ranges: 4, deleteRanges: [1, 3] });
    const step = { phase: 'delete' as const, requestUnits: 0, counts: counts({ deleted: 2 }) };
    expect(planAfter(deleting, { ...step, more: true })).toMatchObject({ next: { deleteRanges: [1, 3] } });
    const next = planAfter(deleting, { ...step, more: false });
    expect(next).toMatchObject({ next: { deleteRanges: [3], counts: { deleted: 2 } } });
    expect(planAfter('next' in next ? next.next : deleting, { ...step, more: false })).toMatchObject({
      end: 'completed',
      job: { counts: { deleted: 4 } },
    });
  });
});

describe('hash ranges of externalIds', () => {
  it('as many as the set needs for its size; each id in one range, the same in every process', () => {
    expect(rangeCount(0)).toBe(1);
    expect(rangeCount(200_000)).toBe(1);
    expect(rangeCount(1_000_000)).toBe(5);
    expect(rangeCount(10, 3)).toBe(4);
    expect(rangeOf('EMP-1', 1)).toBe(0);
    expect(inRange(0, 1)).toBeUndefined();
    const ids = Array.from({ length: 4_000 }, (_, i) => `EMP-${i}`);
    const sizes = [0, 1, 2, 3].map((r) => ids.filter((id) => inRange(r, 4)?.(id)).length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(4_000);
    for (const size of sizes) expect(size).toBeGreaterThan(800);
    // FNV-1a of the code units: a fixed value, so ranges stay where they were after a restart or on another instance.
    expect(rangeOf('EMP-123456', 1_000_003)).toBe(rangeOf('EMP-123456', 1_000_003));
    expect(rangeOf('a', 2 ** 31)).toBe(0xe40c292c % 2 ** 31);
  });
});
