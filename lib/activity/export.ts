/**
 * The export of an activity selection as CSV or JSON lines: the same columns, by the same names, in both
 * (and in `npm run ops -- activity --format`). Lines are made page by page as the reader takes them (an async
 * generator: the next page is read only when the lines of the one before are taken), so a selection of any
 * size holds one page in memory; at MAX_EXPORT_ENTRIES the export ends with a line that says so.
 *
 * CSV follows RFC 4180 (a field with a comma, quote or line break is quoted, quotes doubled); a field that a
 * spreadsheet would read as a formula (beginning with = + - @, a tab or a carriage return) is prefixed with `'`,
 * as OWASP advises against CSV injection: an externalId is a value a connector sent.
 */
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';
import {
  activityPage,
  type ActivityDeps,
  type ActivityPage,
  type ActivityRow,
  type ActivitySelection,
} from './activityPage';

export type ExportFormat = 'csv' | 'json';

/** Entries one export holds at most; past it the export ends with a line that says so. */
export const MAX_EXPORT_ENTRIES = 100_000;
/** Entries read per page of the store. */
export const EXPORT_PAGE = 100;

export const EXPORT_COLUMNS = [
  'at',
  'source',
  'action',
  'outcome',
  'operation',
  'httpStatus',
  'scimType',
  'code',
  'externalId',
  'identityId',
  'runId',
  'actorKind',
  'actorId',
  'actorName',
  'changedAttributes',
  'counts',
  'durationMs',
  'correlationId',
  'detail',
  'recommendedAction',
] as const;

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
export type ExportRecord = Record<ExportColumn, string | number | null>;

/** One entry as the export writes it: lists joined (`a;b`, `created=3;updated=1`), absent values null. */
export function exportRecord(row: ActivityRow): ExportRecord {
  return {
    at: row.at,
    source: row.source,
    action: row.action,
    outcome: row.outcome,
    operation: row.operation,
    httpStatus: row.httpStatus,
    scimType: row.scimType,
    code: row.code,
    externalId: row.externalId,
    identityId: row.identityId,
    runId: row.runId,
    actorKind: row.actor?.kind ?? null,
    actorId: row.actor?.id ?? null,
    actorName: row.actor?.displayName ?? null,
    changedAttributes: row.changedAttributes ? row.changedAttributes.join(';') : null,
    counts: row.counts ? row.counts.map((c) => `${c.name}=${c.value}`).join(';') : null,
    durationMs: row.durationMs,
    correlationId: row.correlationId,
    detail: row.detail,
    recommendedAction: row.recommendedAction,
  };
}

const FORMULA = /^[=+\-@\t\r]/;

/** One CSV field (RFC 4180), neutralized against formulas. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvHeader = (): string => EXPORT_COLUMNS.join(',');
export const csvLine = (r: ExportRecord): string => EXPORT_COLUMNS.map((c) => csvField(r[c])).join(',');
export const jsonLine = (r: ExportRecord): string => JSON.stringify(r);

/** The last line of an export that stopped before the selection's end: why, and what to do. */
export function stopLine(format: ExportFormat, reason: string): string {
  const message = `export stopped: ${reason}; narrow the selection (from, until, source, run, action, outcome)`;
  return format === 'csv' ? `# ${message}` : JSON.stringify({ stopped: true, message });
}

const TOO_FAR = 'the rest is too far back to be read at once';

/** Reads one page of the selection: at most `first` entries after the cursor (none: the first page). */
export type PageReader = (page: { first: number; after?: string }) => Promise<ActivityPage>;

/** The page reader of a selection of the organization's activity. */
export function selectionReader(deps: ActivityDeps, tenantId: string, selection: ActivitySelection): PageReader {
  return (page) => activityPage(deps, tenantId, selection, page);
}

/**
 * The lines of a selection (CSV: a header first), newest first, page by page: a page is read only when the
 * lines of the one before have been taken. The first page is read before the lines are handed out, so a
 * selection the service refuses fails before anything is written.
 */
export async function exportLines(
  read: PageReader,
  format: ExportFormat,
  limits: { maxEntries?: number; pageSize?: number } = {},
): Promise<AsyncGenerator<string>> {
  const max = limits.maxEntries ?? MAX_EXPORT_ENTRIES;
  const size = limits.pageSize ?? EXPORT_PAGE;
  const line = format === 'csv' ? csvLine : jsonLine;
  const first = await read({ first: Math.min(size, max) });
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield csvHeader();
    let page = first;
    let written = 0;
    for (;;) {
      for (const row of page.rows) {
        yield line(exportRecord(row));
        written++;
      }
      if (!page.hasNextPage || page.endCursor === null) return;
      if (written >= max) {
        yield stopLine(format, `at ${max} entries (the most one export holds)`);
        return;
      }
      try {
        page = await read({ first: Math.min(size, max - written), after: page.endCursor });
      } catch (err) {
        if (err instanceof DomainError && err.code === CODE.BAD_USER_INPUT) {
          yield stopLine(format, TOO_FAR);
          return;
        }
        throw err;
      }
    }
  }
  return lines();
}
