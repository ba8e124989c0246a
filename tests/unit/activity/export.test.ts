/**
 * The export of a selection: CSV and JSON lines with the same columns and data, a page read only when the
 * lines of the one before are taken (so a selection of any size holds one page), a cap with a line that says
 * so, and CSV fields quoted (RFC 4180) and neutralized against spreadsheet formulas.
 */
import type { ActivityPage, ActivityRow } from '../../../lib/activity/activityPage';
import { DomainError } from '../../../lib/util/domainError';
import { EXPORT_COLUMNS, csvField, exportLines, exportRecord, type PageReader } from '../../../lib/activity/export';

const row = (i: number, over: Partial<ActivityRow> = {}): ActivityRow => ({
  key: `k${i}`,
  at: new Date(Date.UTC(2026, 2, 1) - i * 1000).toISOString(),
  source: 'HR',
  operation: 'IMPORT_CREATE',
  outcome: 'succeeded',
  httpStatus: null,
  scimType: null,
  code: null,
  detail: null,
  externalId: `E-${i}`,
  identityId: null,
  changedAttributes: ['name.givenName', 'personalNumbers'],
  correlationId: null,
  action: 'create',
  runId: 'run-1',
  counts: null,
  durationMs: null,
  actor: { kind: 'importRun', id: 'run-1', displayName: 'HR' },
  recommendedAction: null,
  ...over,
});

/** A selection of `total` entries in pages, counting the pages read. */
function selection(total: number): { read: PageReader; pages: () => number } {
  let pages = 0;
  const read: PageReader = async ({ first, after }) => {
    pages++;
    const start = after === undefined ? 0 : Number(after);
    const rows: ActivityRow[] = [];
    for (let i = start; i < Math.min(total, start + first); i++) rows.push(row(i));
    const end = start + rows.length;
    const page: ActivityPage = { rows, endCursor: end < total ? String(end) : null, hasNextPage: end < total };
    return page;
  };
  return { read, pages: () => pages };
}

async function take(lines: AsyncGenerator<string>, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const next = await lines.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('activity export', () => {
  it('reads a page only when the lines of the one before are taken', async () => {
    const s = selection(10_000);
    const lines = await exportLines(s.read, 'csv', { pageSize: 100 });
    expect(s.pages()).toBe(1);
    await take(lines, 101); // the header and the first page
    expect(s.pages()).toBe(1);
    await take(lines, 1);
    expect(s.pages()).toBe(2);
    const rest = await take(lines, 20_000);
    expect(rest).toHaveLength(10_001 - 102);
    expect(s.pages()).toBe(100);
  });

  it('writes the same columns and data as CSV and as JSON lines', async () => {
    const csv = await take(await exportLines(selection(3).read, 'csv'), 10);
    const json = await take(await exportLines(selection(3).read, 'json'), 10);
    expect(csv[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(csv).toHaveLength(4);
    const parsed = json.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(parsed[0]!)).toEqual([...EXPORT_COLUMNS]);
    expect(parsed[1]).toEqual(exportRecord(row(1)));
    expect(csv[2]).toBe(EXPORT_COLUMNS.map((c) => csvField(exportRecord(row(1))[c])).join(','));
    expect(parsed[0]).toMatchObject({ changedAttributes: 'name.givenName;personalNumbers', actorName: 'HR' });
  });

  it('stops at the cap with a line that says so, and when the rest is too far back', async () => {
    const capped = await take(await exportLines(selection(500).read, 'json', { maxEntries: 250, pageSize: 100 }), 1000);
    expect(capped).toHaveLength(251);
    expect(JSON.parse(capped[250]!)).toEqual({ stopped: true, message: expect.stringMatching(/at 250 entries/) });
    let calls = 0;
    const farBack: PageReader = async (page) => {
      if (calls++ > 0) throw new DomainError('BAD_USER_INPUT', 'The page is too far back');
      return selection(500).read(page);
    };
    const csv = await take(await exportLines(farBack, 'csv', { pageSize: 100 }), 1000);
    expect(csv[csv.length - 1]).toMatch(/^# export stopped: the rest is too far back/);
  });

  it('quotes CSV fields and neutralizes formulas', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "x"')).toBe('"say ""x"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('-1')).toBe("'-1");
    expect(csvField(7)).toBe('7');
    expect(csvField(null)).toBe('');
  });
});
