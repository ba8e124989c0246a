/*
 * Reference client for a scheduled custom integration (`npm run import -- --help`):
 *   npm run import -- --service https://<app> --source HR --file people.csv --tenant <tenantId> \
 *     --client-id <appId> --client-secret-env HR_IMPORT_SECRET --scope <service appId>/.default
 *     [--authority https://login.microsoftonline.com] [--association-chunk 10000] [--delimiter ';'] [--timeout 225]
 *     [--dry-run] [--allow-deletes] [--report not-associated.csv]
 *   npm run import -- --local --source HR --file people.csv      (the local stack of `npm start`, as recorded in .local/stack.json)
 * Checks the set with the service's own rules first (problems by CSV line and column, never a value),
 * gets a token, imports the complete set, then associates the rows that carry a userPrincipalName
 * (in parts of --association-chunk pairs), prints the counts, and exits non-zero on any error.
 * When the import request or an association part times out (--timeout seconds, just under the 230 s
 * HTTP limit of Azure Functions) the service keeps running it: the client then follows its run in the
 * run history until it ends and counts what the run reports (scripts/runFollower.ts). Answered
 * IMPORT_IN_PROGRESS, it follows the running import to its end and sends the set again.
 * CSV (RFC 4180, UTF-8 with or without BOM, `,` or the `;` of spreadsheet exports) is parsed as a stream;
 * progress goes to stderr.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../devhost/devData';
import { localStack, StackRecordError } from '../devhost/stackRecord';
import { validateImportSet } from '../lib/imports/importInput';
import { readJsonFile } from './importFile';
import { DomainError, type FieldProblem } from '../lib/util/domainError';
import {
  addAssociationCounts,
  RunFollower,
  ServiceError,
  type AssociationCounts,
  type FollowedRun,
  type ImportCounts,
  type Progress,
} from './runFollower';

export type { FollowedRun, ImportCounts, Progress } from './runFollower';

interface Row {
  externalId: string;
  affiliationType: string;
  firstName: string;
  lastName: string;
  birthDate?: string;
  nationality?: string;
  personalEmail?: string;
  personalPhone?: string;
  personalNumbers?: Array<{ type: string; value: string }>;
  identityDocumentReferences?: Array<{ type: string; issuingCountry: string; documentNumber: string }>;
  userPrincipalName?: string;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = [
  'usage: npm run import -- --service <url> --source <name> --file <people.csv|people.json> --tenant <tenantId>',
  '         --client-id <appId> --client-secret-env <ENV VAR NAME> --scope <service appId>/.default [--authority <url>]',
  "         [--association-chunk <pairs>] [--delimiter ',' | ';'] [--timeout <seconds>]",
  '         [--dry-run] [--allow-deletes] [--report <file.csv>]',
  '       npm run import -- --local --source <name> --file <file> [...]   (the local stack of `npm start`, as dev-admin)',
  '       npm run import -- --help',
].join('\n');

export const HELP = [
  USAGE,
  '',
  'Sends the complete set of a custom source (a CSV or JSON file): what is missing from it is deleted.',
  '',
  'options:',
  '  --local                the local stack recorded in .local/stack.json by `npm start` (no other flag needed)',
  '  --dry-run              only count what the import would create, update and delete; nothing is written',
  '  --allow-deletes        lift the delete guard: by default a set that would delete more than 20% of the',
  '                         identities of the source is refused (IMPORT_DELETE_LIMIT_EXCEEDED), nothing written',
  '  --report <file.csv>    write the rows that were not associated and why (unknown userPrincipalName,',
  '                         conflict: the user is linked to another identity, not done)',
  "  --delimiter ',' | ';'  the CSV delimiter (default: whichever the header line uses)",
  '  --association-chunk N  pairs per association request (default 10000)',
  '  --timeout S            seconds before a request is followed through the run history instead (default 225)',
  '',
  'CSV columns (header row, any order): externalId, affiliationType, firstName, lastName (required);',
  '  birthDate, nationality, personalEmail, personalPhone, cpr, passportNumber, passportCountry, userPrincipalName.',
  '  examples/people.csv has every column.',
  '',
  'examples:',
  '  npm run import -- --local --source HR --file examples/people.csv --dry-run',
  '  npm run import -- --local --source HR --file examples/people.csv --report not-associated.csv',
  '  HR_SECRET=... npm run import -- --service https://<app>.azurewebsites.net --source HR --file people.csv \\',
  '    --tenant <tenantId> --client-id <appId> --client-secret-env HR_SECRET --scope api://<service appId>/.default',
].join('\n');

/** The share of a source's identities one run may delete unless --allow-deletes is given. */
export const DEFAULT_MAX_DELETED_RATIO = 0.2;

/** Columns named in problems, for the nested fields the CSV has a column of its own for. */
const COLUMN_OF_FIELD: Record<string, string> = {
  'personalNumbers[0].type': 'cpr',
  'personalNumbers[0].value': 'cpr',
  'identityDocumentReferences[0].type': 'passportNumber',
  'identityDocumentReferences[0].documentNumber': 'passportNumber',
  'identityDocumentReferences[0].issuingCountry': 'passportCountry',
};

/** A problem of the set, by CSV line and column when the rows came from a CSV file (`lines[i]` is row i's line). */
export function describeProblem(p: FieldProblem, lines: number[] | undefined): string {
  const m = /^(?:input\.)?identities\[(\d+)\]\.(.+)$/.exec(p.field);
  if (!m || !lines) return `${p.field}: ${p.problem}`;
  const lineOf = (i: string) => String(lines[Number(i)] ?? '?');
  const problem = p.problem.replace(/identities\[(\d+)\]/g, (_all, i: string) => `line ${lineOf(i)}`);
  return `line ${lineOf(m[1] ?? '')}, column ${COLUMN_OF_FIELD[m[2] ?? ''] ?? m[2]}: ${problem}`;
}

/** The set was refused (by the client's check or by the service) for the problems listed. */
export class SetRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly problems: string[],
  ) {
    super([`${code}: ${message}`, ...problems.map((p) => `  ${p}`)].join('\n'));
    this.name = 'SetRejected';
  }
}

const toStderr: Progress = (line) => process.stderr.write(`${line}\n`);

/** Rows between two "read" progress lines. */
const PROGRESS_EVERY = 50_000;
const REQUIRED_COLUMNS = ['externalId', 'affiliationType', 'firstName', 'lastName'];

/** `,` or `;` (spreadsheet exports in many locales), whichever the header line uses more. */
async function detectDelimiter(file: string): Promise<',' | ';'> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    const firstLine = buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
    const count = (c: string) => firstLine.split(c).length - 1;
    return count(';') > count(',') ? ';' : ',';
  } finally {
    await handle.close();
  }
}

/**
 * CSV columns (header row, any order): externalId, affiliationType, firstName, lastName, birthDate,
 * nationality, personalEmail, personalPhone, cpr, passportNumber, passportCountry, userPrincipalName.
 */
export async function readCsv(
  file: string,
  options: { delimiter?: string; progress?: Progress; lines?: number[] } = {},
): Promise<Row[]> {
  const progress = options.progress ?? toStderr;
  const parser = fs.createReadStream(file).pipe(
    parseCsv({
      bom: true,
      delimiter: options.delimiter ?? (await detectDelimiter(file)),
      columns: (header: string[]) => header.map((h) => h.trim()),
      skip_empty_lines: true,
      trim: true,
      info: true,
    }),
  );
  const rows: Row[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string | undefined>;
      info: { lines: number };
    }>) {
      // The line the record ends on (a quoted field may span lines).
      options.lines?.push(info.lines);
      if (rows.length === 0) {
        const missing = REQUIRED_COLUMNS.filter((c) => !(c in record));
        if (missing.length) throw new UsageError(`The CSV header lacks the column(s) ${missing.join(', ')}`);
      }
      const get = (name: string): string | undefined => record[name] || undefined;
      const row: Row = {
        externalId: get('externalId') ?? '',
        affiliationType: (get('affiliationType') ?? '').toUpperCase(),
        firstName: get('firstName') ?? '',
        lastName: get('lastName') ?? '',
      };
      for (const k of ['birthDate', 'nationality', 'personalEmail', 'personalPhone', 'userPrincipalName'] as const) {
        const v = get(k);
        if (v) row[k] = v;
      }
      const cpr = get('cpr');
      if (cpr) row.personalNumbers = [{ type: 'DK_CPR', value: cpr }];
      const passport = get('passportNumber');
      if (passport)
        row.identityDocumentReferences = [
          { type: 'PASSPORT', issuingCountry: get('passportCountry') ?? '', documentNumber: passport },
        ];
      rows.push(row);
      if (rows.length % PROGRESS_EVERY === 0) progress(`read ${rows.length} rows`);
    }
  } catch (err) {
    // The parser's messages quote file content; say where, never what.
    if (err instanceof CsvError)
      throw new UsageError(
        `The CSV file is not valid at line ${String((err as CsvError & { lines?: number }).lines ?? '?')} (${err.code})`,
      );
    throw err;
  } finally {
    parser.destroy();
  }
  return rows;
}

/** The rows of a JSON file; a file that is not JSON is refused by line and column, a wrong type by row and field. */
async function readJson(file: string): Promise<Row[]> {
  const read = await readJsonFile(file);
  if ('syntaxError' in read) {
    const where = read.syntaxError ? ` at line ${read.syntaxError.line}, column ${read.syntaxError.column}` : '';
    throw new UsageError(`The JSON file is not valid JSON${where}`);
  }
  if ('problems' in read)
    throw new SetRejected(
      'BAD_USER_INPUT',
      'The JSON file has values of the wrong type (checked before sending)',
      read.problems.map((p) => describeProblem(p, undefined)),
    );
  return read.rows;
}

async function token(
  authority: string,
  tenant: string,
  clientId: string,
  secret: string,
  scope: string,
): Promise<string> {
  const res = await fetch(`${authority}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope,
    }).toString(),
  });
  if (!res.ok) throw new Error(`token request failed (HTTP ${res.status})`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The run the command line asks for; --local fills in the local stack and its dev-admin client. */
export function importRunFromArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  options: { stackFile?: string } = {},
): ImportRun {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        local: { type: 'boolean' },
        service: { type: 'string' },
        source: { type: 'string' },
        file: { type: 'string' },
        tenant: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret-env': { type: 'string' },
        authority: { type: 'string' },
        scope: { type: 'string' },
        'association-chunk': { type: 'string' },
        delimiter: { type: 'string' },
        timeout: { type: 'string' },
        'dry-run': { type: 'boolean' },
        'allow-deletes': { type: 'boolean' },
        report: { type: 'string' },
      },
    }));
  } catch {
    throw new UsageError(`${USAGE}\n(see npm run import -- --help)`);
  }
  const local = values.local === true;
  let ports: ReturnType<typeof localStack>['ports'] | undefined;
  if (local) {
    try {
      ports = localStack(options.stackFile).ports;
    } catch (err) {
      if (err instanceof StackRecordError) throw new UsageError(err.message);
      throw err;
    }
  }
  const { 'dry-run': dryRun, 'allow-deletes': allowDeletes, report, ...named } = values;
  const localDefaults = ports
    ? {
        service: `http://localhost:${ports.host}`,
        authority: `http://127.0.0.1:${ports.idp}`,
        tenant: DEV_TENANT_ID,
        'client-id': DEV_CLIENTS.admin.clientId,
        scope: SERVICE_SCOPE,
      }
    : {};
  const v: Record<string, string | undefined> = { ...localDefaults, ...named, local: undefined };
  const required = [
    'service',
    'source',
    'file',
    'tenant',
    'client-id',
    'scope',
    ...(local ? [] : ['client-secret-env']),
  ];
  const missing = required.filter((r) => !v[r]);
  if (missing.length) throw new UsageError(`${missing.map((m) => `--${m}`).join(', ')} required\n${USAGE}`);
  const secret = v['client-secret-env'] ? env[v['client-secret-env']] : DEV_CLIENTS.admin.secret;
  if (!secret) throw new UsageError('The environment variable named by --client-secret-env is not set');
  const chunk = v['association-chunk'] === undefined ? undefined : Number(v['association-chunk']);
  if (chunk !== undefined && (!Number.isInteger(chunk) || chunk < 1))
    throw new UsageError('--association-chunk must be a whole number of pairs, at least 1');
  if (v.delimiter !== undefined && v.delimiter !== ',' && v.delimiter !== ';')
    throw new UsageError("--delimiter must be ',' or ';'");
  const timeout = v.timeout === undefined ? undefined : Number(v.timeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0))
    throw new UsageError('--timeout must be a number of seconds above 0');
  return {
    service: v.service ?? '',
    source: v.source ?? '',
    file: v.file ?? '',
    tenant: v.tenant ?? '',
    clientId: v['client-id'] ?? '',
    secret,
    authority: v.authority ?? 'https://login.microsoftonline.com',
    scope: v.scope ?? '',
    associationChunk: chunk,
    delimiter: v.delimiter,
    ...(timeout !== undefined ? { timeoutMs: Math.round(timeout * 1000) } : {}),
    ...(dryRun ? { dryRun: true } : {}),
    ...(allowDeletes ? { maxDeletedRatio: null } : {}),
    ...(report !== undefined ? { reportFile: report } : {}),
  };
}

/** The command: its exit code (0 done, 1 failed, 2 usage); results on `out`, problems on `err`. */
export async function importCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: { out: (line: string) => void; err: (line: string) => void; stackFile?: string; progress?: Progress },
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(HELP);
    return 0;
  }
  try {
    const run = importRunFromArgs(argv, env, { stackFile: io.stackFile });
    for (const line of resultLines(await runImport({ ...run, ...(io.progress ? { progress: io.progress } : {}) })))
      io.out(line);
    return 0;
  } catch (err) {
    io.err(err instanceof Error ? err.message : 'failed');
    return err instanceof UsageError ? 2 : 1;
  }
}

/** What the client prints on stdout: runs it waited for, the import's counts and run id, the association totals. */
export function resultLines(result: Awaited<ReturnType<typeof runImport>>): string[] {
  return [
    ...(result.followed ?? []).map((f) => `followed ${JSON.stringify(f)}`),
    ...(result.dryRun ? ['dry run: nothing was written; the counts are what the import would do'] : []),
    `import ${JSON.stringify(result.import)}`,
    `run ${result.importRunId}`,
    ...(result.associate ? [`associate ${JSON.stringify(result.associate)}`] : []),
  ];
}

export interface ImportRun {
  service: string;
  source: string;
  file: string;
  tenant: string;
  clientId: string;
  secret: string;
  authority: string;
  scope: string;
  /** Pairs per associateBusinessIdentities call (default 10,000). */
  associationChunk?: number;
  /** CSV field delimiter; default: `,` or `;`, whichever the header line uses. */
  delimiter?: string;
  /** How long the import request may take before the client follows its run instead (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Between two looks at a followed run (default 5 s). */
  pollMs?: number;
  progress?: Progress;
  /** Only count what the import would write (nothing is written, nothing is associated). */
  dryRun?: boolean;
  /** The share of the source's identities this run may delete (default DEFAULT_MAX_DELETED_RATIO); null: no limit of the client's. */
  maxDeletedRatio?: number | null;
  /** Where to write the rows that were not associated, and why (CSV). */
  reportFile?: string;
}

export type NotAssociatedReason = 'unknown userPrincipalName' | 'conflict' | 'unknown externalId' | 'not done';

/** A row the association did not link, for --report. */
export interface NotAssociatedRow {
  line: number | undefined;
  externalId: string;
  userPrincipalName: string;
  reason: NotAssociatedReason;
}

function csvField(v: string): string {
  return /[",\r\n;]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function writeReport(file: string, rows: NotAssociatedRow[]): void {
  const lines = [
    'line,externalId,userPrincipalName,reason',
    ...rows.map((r) =>
      [r.line === undefined ? '' : String(r.line), r.externalId, r.userPrincipalName, r.reason].map(csvField).join(','),
    ),
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

export const DEFAULT_ASSOCIATION_CHUNK = 10_000;
/** Just under the 230 s after which Azure's front end gives up on an HTTP request. */
export const DEFAULT_TIMEOUT_MS = 225_000;
/** How long a timed-out request may take to show up in the run history before the client gives up on it. */
export async function runImport(o: ImportRun): Promise<{
  import: ImportCounts;
  importRunId: string;
  followed?: FollowedRun[];
  associate?: AssociationCounts;
  dryRun?: boolean;
  notAssociated?: NotAssociatedRow[];
}> {
  const progress = o.progress ?? toStderr;
  const file = o.file;
  const csv = !file.endsWith('.json');
  const lines: number[] | undefined = csv ? [] : undefined;
  const rows: Row[] = csv ? await readCsv(file, { delimiter: o.delimiter, progress, lines }) : await readJson(file);
  progress(`read ${rows.length} identities`);
  const identities = rows.map(({ userPrincipalName: _upn, ...identity }) => identity);
  // The service's own rules, before anything is sent: every problem, by line and column.
  try {
    validateImportSet(identities);
  } catch (err) {
    if (err instanceof DomainError)
      throw new SetRejected(
        err.code,
        `${err.message} (checked before sending)`,
        err.problems.map((p) => describeProblem(p, lines)),
      );
    throw err;
  }
  const accessToken = await token(o.authority, o.tenant, o.clientId, o.secret, o.scope);
  const runs = new RunFollower({
    service: o.service.replace(/\/+$/, ''),
    accessToken,
    source: o.source,
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    pollMs: o.pollMs ?? 5_000,
    progress,
  });
  progress(`uploading ${identities.length} identities to source ${o.source}${o.dryRun ? ' (dry run)' : ''}`);
  const startedAt = Date.now();
  const maxDeletedRatio = o.maxDeletedRatio === undefined ? DEFAULT_MAX_DELETED_RATIO : o.maxDeletedRatio;
  let imported;
  try {
    imported = await runs.importSet(identities, {
      ...(o.dryRun ? { dryRun: true } : {}),
      ...(maxDeletedRatio !== null ? { maxDeletedRatio } : {}),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.problems.length > 0)
      throw new SetRejected(
        err.code,
        err.message.split('\n', 1)[0]?.replace(/^[A-Z_]+: /, '') ?? '',
        err.problems.map((p) => describeProblem(p, lines)),
      );
    if (err instanceof ServiceError && err.code === 'IMPORT_DELETE_LIMIT_EXCEEDED' && maxDeletedRatio !== null)
      throw new Error(
        `${err.message}\nThe client allows at most ${maxDeletedRatio * 100}% of the source to be deleted in one run; if the file is complete, run again with --allow-deletes (try --dry-run first).`,
      );
    throw err;
  }
  progress(`${o.dryRun ? 'counted' : 'imported'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const done = {
    import: imported.counts,
    importRunId: imported.runId,
    ...(runs.followed.length ? { followed: runs.followed } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
  };
  const associations = rows
    .map((r, i) => ({ externalId: r.externalId, userPrincipalName: r.userPrincipalName, line: lines?.[i] }))
    .filter((r): r is { externalId: string; userPrincipalName: string; line: number | undefined } =>
      Boolean(r.userPrincipalName),
    );
  if (o.dryRun) {
    if (associations.length) progress(`dry run: ${associations.length} association pairs not sent`);
    if (o.reportFile) writeReport(o.reportFile, []);
    return done;
  }
  if (associations.length === 0) {
    if (o.reportFile) writeReport(o.reportFile, []);
    return done;
  }
  // In parts: each pair is processed on its own, and a part stays well inside the HTTP time limit
  // and the service's ASSOCIATION_MAX_PAIRS.
  const part = o.associationChunk ?? DEFAULT_ASSOCIATION_CHUNK;
  const parts = Math.ceil(associations.length / part);
  const totals: AssociationCounts = {
    associated: 0,
    unchanged: 0,
    unknownExternalIds: 0,
    unknownUserPrincipalNames: 0,
    conflictingUserPrincipalNames: 0,
  };
  const notDone = new Set<string>();
  let failure: unknown;
  for (let i = 0; i < associations.length; i += part) {
    const pairs = associations.slice(i, i + part);
    if (failure !== undefined) {
      for (const p of pairs) notDone.add(p.externalId);
      continue;
    }
    progress(`associating part ${i / part + 1} of ${parts} (${pairs.length} pairs)`);
    try {
      addAssociationCounts(
        totals,
        await runs.associate(pairs.map(({ externalId, userPrincipalName }) => ({ externalId, userPrincipalName }))),
      );
    } catch (err) {
      failure = err;
      const left =
        err instanceof ServiceError && err.partial ? err.partial.externalIds : pairs.map((p) => p.externalId);
      for (const id of left) notDone.add(id);
    }
  }
  const notAssociated = associations.flatMap((a): NotAssociatedRow[] => {
    const upn = a.userPrincipalName.toLowerCase();
    const reason: NotAssociatedReason | undefined = notDone.has(a.externalId)
      ? 'not done'
      : runs.notAssociated.unknownExternalIds.has(a.externalId)
        ? 'unknown externalId'
        : runs.notAssociated.conflictingUserPrincipalNames.has(upn)
          ? 'conflict'
          : runs.notAssociated.unknownUserPrincipalNames.has(upn)
            ? 'unknown userPrincipalName'
            : undefined;
    return reason ? [{ line: a.line, externalId: a.externalId, userPrincipalName: a.userPrincipalName, reason }] : [];
  });
  if (o.reportFile) {
    writeReport(o.reportFile, notAssociated);
    progress(`${notAssociated.length} rows not associated, written to ${o.reportFile}`);
  }
  if (failure !== undefined) throw failure;
  return { ...done, associate: totals, notAssociated };
}

if (require.main === module) {
  void importCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  }).then((code) => process.exit(code));
}
