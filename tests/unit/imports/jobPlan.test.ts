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
  type JobState,
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
