/** A selection as it arrives (GraphQL input, query string, ops options) is checked field by field, never echoing a value. */
import { parseSelection } from '../../../lib/activity/activityPage';
import { DomainError } from '../../../lib/util/domainError';

const problems = (input: Parameters<typeof parseSelection>[0], field?: string) => {
  try {
    parseSelection(input, field);
  } catch (err) {
    if (err instanceof DomainError) return err.problems;
    throw err;
  }
  return [];
};

describe('parseSelection', () => {
  it('reads from, until, action, outcome, run, externalId and source; since is the older name of from', () => {
    expect(
      parseSelection({
        source: 'HR',
        from: '2026-03-01',
        until: '2026-03-02T08:00:00+02:00',
        action: 'UNLINK',
        outcome: 'refused',
        run: '0190ABCD-0000-7000-8000-000000000000',
        externalId: 'E-1',
      }),
    ).toEqual({
      source: 'HR',
      from: '2026-03-01T00:00:00.000Z',
      until: '2026-03-02T06:00:00.000Z',
      action: 'unlink',
      outcome: 'refused',
      run: '0190abcd-0000-7000-8000-000000000000',
      externalId: 'E-1',
    });
    expect(parseSelection({ since: '2026-03-01' })).toEqual({ from: '2026-03-01T00:00:00.000Z' });
    expect(parseSelection({ source: '', from: null })).toEqual({});
  });

  it('names each field that is wrong, in the form the caller used, and never its value', () => {
    const found = problems(
      { since: 'soon-X1', until: 'later-X2', action: 'smile-X3', outcome: 'fine-X4', run: 'r-X5' },
      'query',
    );
    expect(found.map((p) => p.field)).toEqual([
      'query.outcome',
      'query.action',
      'query.since',
      'query.until',
      'query.run',
    ]);
    expect(JSON.stringify(found)).not.toMatch(/X\d/);
  });
});
