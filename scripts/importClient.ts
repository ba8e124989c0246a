/*
 * Reference client for a scheduled custom integration (`npm run import -- --help`):
 *   npm run import -- --service https://<app> --source HR --file people.csv --tenant <tenantId> \
 *     --client-id <appId> (--certificate <key+cert.pem> | --client-secret-env HR_IMPORT_SECRET) --scope <service appId>/.default
 *     [--authority https://login.microsoftonline.com] [--association-chunk 10000] [--delimiter ';'] [--timeout 225]
 *     [--part-size 2000] [--max-body-bytes 8388608] [--state-dir <dir>] [--no-wait]
 *     [--dry-run] [--allow-deletes] [--report not-associated.csv]
 *   npm run import -- --local --source HR --file people.csv      (the local stack of `npm start`, as recorded in .local/stack.json)
 * Checks the set with the service's own rules first (problems by CSV line and column, never a value),
 * gets a token (renewed before it expires: scripts/importClient/credentials.ts), imports the complete set,
 * then associates the rows that carry a userPrincipalName in bounded parts, prints the counts, and exits
 * non-zero on any error. A set that fits one part goes in one importBusinessIdentities request; a larger
 * one is a staged import (scripts/importClient/stagedUpload.ts): parts with a progress bar, resumed after an
 * interruption, `run <id>` printed once the service accepted the set, then the run followed to its end
 * (scripts/importClient/runWatch.ts) unless --no-wait. When a one-request import or an association part times
 * out (--timeout seconds, just under the 230 s HTTP limit of Azure Functions) the service keeps running it:
 * the client then follows its run in the run history (scripts/runFollower.ts).
 * CSV (RFC 4180, UTF-8 with or without BOM, `,` or the `;` of spreadsheet exports) is parsed as a stream;
 * progress goes to stderr.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../devhost/devData';
import { localStack, StackRecordError } from '../devhost/stackRecord';
import { validateImportSet } from '../lib/imports/importInput';
import { readJsonFile, type ImportRow as Row } from './importFile';
import { DomainError, type FieldProblem } from '../lib/util/domainError';
import {
  RunFailed,
  RunFollower,
  ServiceError,
  type AssociationCounts,
  type FollowedRun,
  type ImportCounts,
  type Progress,
} from './runFollower';
import { associateRows, type AssociationRow, type NotAssociatedRow } from './importClient/associations';
import {
  certificateAuthentication,
  CertificateUnusable,
  clientCredential,
  readClientCertificateFile,
  secretAuthentication,
} from './importClient/credentials';
import { DEFAULT_MAX_BODY_BYTES, ItemTooLarge, jsonSizes, planParts } from './importClient/parts';
import { plainMeter, ttyMeter, type Meter } from './importClient/progress';
import { fileHash, resumeFileFor } from './importClient/resumeState';
import { watchRun, importCountsOf } from './importClient/runWatch';
import { ServiceCalls } from './importClient/serviceCalls';
import { Interrupted } from './importClient/interrupted';
import { uploadStaged } from './importClient/stagedUpload';

export type { FollowedRun, ImportCounts, Progress } from './runFollower';
export type { NotAssociatedReason, NotAssociatedRow } from './importClient/associations';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = [
  'usage: npm run import -- --service <url> --source <name> --file <people.csv|people.json> --tenant <tenantId>',
  '         --client-id <appId> (--certificate <key+cert.pem> | --client-secret-env <ENV VAR NAME>)',
  '         --scope <service appId>/.default [--authority <url>] [--certificate-password-env <ENV VAR NAME>]',
  "         [--association-chunk <pairs>] [--delimiter ',' | ';'] [--timeout <seconds>]",
  '         [--part-size <identities>] [--max-body-bytes <bytes>] [--state-dir <dir>] [--no-wait]',
  '         [--follow-running] [--dry-run] [--allow-deletes] [--report <file.csv>]',
  '       npm run import -- --local --source <name> --file <file> [...]   (the local stack of `npm start`, as dev-admin)',
  '       npm run import -- --help',
].join('\n');

export const HELP = [
  USAGE,
  '',
  'Sends the complete set of a custom source (a CSV or JSON file): what is missing from it is deleted.',
  'A set larger than one part is uploaded in parts (a staged import) and applied by the service in the',
  'background: the client prints `run <id>` once the service holds the whole set, then follows the run.',
  '',
  'credentials (the client-credentials grant of Microsoft Entra ID; the token is renewed before it expires):',
  '  --certificate <pem>    certificate credential (recommended): a PEM file with the private key and the',
  '                         certificate registered on the application; the client signs a client assertion',
  "                         (RFC 7523, PS256 with the certificate's x5t#S256 thumbprint) for each token",
  '  --certificate-password-env NAME   the environment variable holding the password of an encrypted key',
  '  --client-secret-env NAME          client secret credential: the environment variable holding the secret',
  '',
  'options:',
  '  --local                the local stack recorded in .local/stack.json by `npm start` (no other flag needed)',
  '  --dry-run              only count what the import would create, update and delete; nothing is written',
  '  --allow-deletes        lift the delete guard: by default a set that would delete more than 20% of the',
  '                         identities of the source is refused (IMPORT_DELETE_LIMIT_EXCEEDED), nothing written',
  '  --report <file.csv>    write the rows that were not associated and why (unknown userPrincipalName,',
  '                         conflict: the user is linked to another identity, not done)',
  '  --no-wait              return once the service accepted the set (after `run <id>`); the run is applied',
  '                         without the client, and no association is sent',
  '  --follow-running       when another import of the source is being applied (IMPORT_IN_PROGRESS), follow',
  '                         that run to its end, then upload this set (default: exit at once, naming the run)',
  '  --part-size N          identities per part at most (default 2000; the service may take fewer per part)',
  "  --max-body-bytes N     bytes per request body at most (default 8388608, the service's default limit)",
  '  --state-dir DIR        where an upload is remembered so that an interrupted one resumes (default: the',
  "                         file's folder; a file named .<file>.<id>.import-resume.json, no personal value)",
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
  '  npm run import -- --service https://<app>.azurewebsites.net --source HR --file people.csv \\',
  '    --tenant <tenantId> --client-id <appId> --certificate hr-import.pem --scope api://<service appId>/.default',
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
        certificate: { type: 'string' },
        'certificate-password-env': { type: 'string' },
        'part-size': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'state-dir': { type: 'string' },
        'no-wait': { type: 'boolean' },
        'follow-running': { type: 'boolean' },
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
  const {
    'dry-run': dryRun,
    'allow-deletes': allowDeletes,
    'no-wait': noWait,
    'follow-running': followRunning,
    report,
    certificate,
    'certificate-password-env': certificatePasswordEnv,
    'state-dir': stateDir,
    ...named
  } = values;
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
  const required = ['service', 'source', 'file', 'tenant', 'client-id', 'scope'];
  const missing = required.filter((r) => !v[r]);
  if (!local && !v['client-secret-env'] && !certificate) missing.push('certificate or --client-secret-env');
  if (missing.length) throw new UsageError(`${missing.map((m) => `--${m}`).join(', ')} required\n${USAGE}`);
  if (certificate && v['client-secret-env'])
    throw new UsageError('Give one credential: --certificate or --client-secret-env');
  const secret = certificate
    ? undefined
    : v['client-secret-env']
      ? env[v['client-secret-env']]
      : DEV_CLIENTS.admin.secret;
  if (!certificate && !secret) throw new UsageError('The environment variable named by --client-secret-env is not set');
  const certificatePassword = certificatePasswordEnv ? env[certificatePasswordEnv] : undefined;
  if (certificatePasswordEnv && certificatePassword === undefined)
    throw new UsageError('The environment variable named by --certificate-password-env is not set');
  const wholeNumber = (name: string, min: number): number | undefined => {
    const raw = v[name];
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number, at least ${min}`);
    return n;
  };
  const partSize = wholeNumber('part-size', 1);
  const maxBodyBytes = wholeNumber('max-body-bytes', 64 * 1024);
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
    ...(secret !== undefined ? { secret } : {}),
    ...(certificate ? { certificateFile: certificate } : {}),
    ...(certificatePassword !== undefined ? { certificatePassword } : {}),
    authority: v.authority ?? 'https://login.microsoftonline.com',
    scope: v.scope ?? '',
    associationChunk: chunk,
    delimiter: v.delimiter,
    ...(timeout !== undefined ? { timeoutMs: Math.round(timeout * 1000) } : {}),
    ...(dryRun ? { dryRun: true } : {}),
    ...(allowDeletes ? { maxDeletedRatio: null } : {}),
    ...(report !== undefined ? { reportFile: report } : {}),
    ...(partSize !== undefined ? { partSize } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    ...(stateDir !== undefined ? { stateDir } : {}),
    ...(noWait ? { noWait: true } : {}),
    ...(followRunning ? { followRunning: true } : {}),
  };
}

/** The command: its exit code (0 done, 1 failed, 2 usage); results on `out`, problems on `err`. */
export async function importCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: {
    out: (line: string) => void;
    err: (line: string) => void;
    stackFile?: string;
    progress?: Progress;
    /** Aborted (Ctrl+C): the upload stops after the parts in flight and can be resumed. */
    signal?: AbortSignal;
  },
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(HELP);
    return 0;
  }
  try {
    const run = importRunFromArgs(argv, env, { stackFile: io.stackFile });
    const result = await runImport({
      ...run,
      ...(io.progress ? { progress: io.progress } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      // Printed as soon as the service accepted the set, before it is applied.
      onRun: (runId) => io.out(`run ${runId}`),
    });
    for (const line of resultLines(result)) io.out(line);
    return 0;
  } catch (err) {
    io.err(err instanceof Error ? err.message : 'failed');
    return err instanceof UsageError || err instanceof CertificateUnusable ? 2 : err instanceof Interrupted ? 130 : 1;
  }
}

/**
 * What the client prints on stdout: runs it waited for, the import's counts and run id (unless the run id
 * was printed already, as a staged import's is once the service accepted the set), the association totals.
 */
export function resultLines(result: ImportResult): string[] {
  return [
    ...(result.followed ?? []).map((f) => `followed ${JSON.stringify(f)}`),
    ...(result.dryRun && result.import
      ? ['dry run: nothing was written; the counts are what the import would do']
      : []),
    ...(result.import ? [`import ${JSON.stringify(result.import)}`] : []),
    ...(result.runAnnounced ? [] : [`run ${result.importRunId}`]),
    ...(result.associate ? [`associate ${JSON.stringify(result.associate)}`] : []),
  ];
}

export interface ImportRun {
  service: string;
  source: string;
  file: string;
  tenant: string;
  clientId: string;
  /** The client secret; or else certificateFile. */
  secret?: string;
  /** A PEM file with the private key and the certificate registered on the application (the certificate credential). */
  certificateFile?: string;
  /** The password of an encrypted private key in certificateFile. */
  certificatePassword?: string;
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
  /** Identities per request at most (default DEFAULT_PART_SIZE); a larger set is a staged import. */
  partSize?: number;
  /** Bytes of a request body at most (default: the service's default limit, 8 MiB). */
  maxBodyBytes?: number;
  /** Where an upload is remembered for a resume (default: the file's folder). */
  stateDir?: string;
  /** Return once the service accepted the set: the run is not followed, nothing is associated. */
  noWait?: boolean;
  /**
   * When another import of the source is being applied (the service refuses to start a staged import:
   * IMPORT_IN_PROGRESS), follow that run to its end and then upload the set; otherwise fail at once naming it.
   */
  followRunning?: boolean;
  /** Told the run id as soon as the service accepted a staged set (before it is applied). */
  onRun?: (runId: string) => void;
  /** Progress as counts: a bar on a terminal, lines otherwise (default: by stderr, or lines to `progress`). */
  meter?: Meter;
  /** Aborted: the upload stops after the parts in flight, and the next run resumes it. */
  signal?: AbortSignal;
}

export interface ImportResult {
  /** The run's counts (absent with noWait: the run was not followed). */
  import?: ImportCounts;
  importRunId: string;
  /** The run id was handed to onRun already. */
  runAnnounced?: boolean;
  /** How the set was sent as a staged import (absent: in one request). */
  staged?: { parts: number; partsSent: number; partsResumed: number };
  followed?: FollowedRun[];
  associate?: AssociationCounts;
  dryRun?: boolean;
  notAssociated?: NotAssociatedRow[];
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
/** Identities per request: the service's default maxIdentitiesPerPart (IMPORT_PART_MAX_IDENTITIES). */
export const DEFAULT_PART_SIZE = 2_000;
/** Just under the 230 s after which Azure's front end gives up on an HTTP request. */
export const DEFAULT_TIMEOUT_MS = 225_000;
/** Times the client follows a running import of the source before it gives up (another may start meanwhile). */
const FOLLOW_RUNNING_ROUNDS = 3;

/** Another import of the source is being applied: the set was not uploaded. */
export class SourceBusy extends Error {
  constructor(
    readonly source: string,
    readonly runId: string,
  ) {
    super(
      `IMPORT_IN_PROGRESS: another import of source ${source} is being applied as run ${runId}; nothing was uploaded. Follow it (npm run ops -- runs, or the importRun query), or run again with --follow-running to wait for it and then upload this set`,
    );
    this.name = 'SourceBusy';
  }
}

/**
 * Uploads the set; when the service refuses it at once because another run of the source is being applied,
 * follows that run to its end (--follow-running) and uploads again, or fails naming the run.
 */
async function uploadBesideRunning<T>(
  o: ImportRun,
  calls: ServiceCalls,
  meter: Meter,
  log: Progress,
  upload: () => Promise<T>,
): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await upload();
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'IMPORT_IN_PROGRESS' && err.runId)) throw err;
      if (!o.followRunning || round > FOLLOW_RUNNING_ROUNDS) throw new SourceBusy(o.source, err.runId);
      log(`another import of source ${o.source} is being applied as run ${err.runId}; following it (--follow-running)`);
      const other = await watchRun({
        calls,
        runId: err.runId,
        meter,
        pollMs: o.pollMs ?? 5_000,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      log(`run ${other.id} ended ${other.status.toLowerCase()}; uploading this set`);
    }
  }
}

/** Reads and checks the file, imports the set (in one request, or staged), follows its run, associates. */
export async function runImport(o: ImportRun): Promise<ImportResult> {
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
  const meter = o.meter ?? (o.progress ? plainMeter(o.progress) : defaultMeter());
  // Through the meter on a terminal, so that a line never lands in the middle of the bar.
  const log: Progress = o.progress ?? meter.line;
  const credential = clientCredential({
    authority: o.authority,
    tenant: o.tenant,
    clientId: o.clientId,
    scope: o.scope,
    authenticate: o.certificateFile
      ? certificateAuthentication(readClientCertificateFile(o.certificateFile, o.certificatePassword), o.clientId)
      : secretAuthentication(o.secret ?? ''),
  });
  // A refused credential fails here, before anything is sent.
  await credential.token();
  const service = o.service.replace(/\/+$/, '');
  const pollMs = o.pollMs ?? 5_000;
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const runs = new RunFollower({
    service,
    accessToken: () => credential.token(),
    source: o.source,
    timeoutMs,
    pollMs,
    progress: log,
  });
  const maxDeletedRatio = o.maxDeletedRatio === undefined ? DEFAULT_MAX_DELETED_RATIO : o.maxDeletedRatio;
  const partSize = o.partSize ?? DEFAULT_PART_SIZE;
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const startedAt = Date.now();
  let imported: Pick<ImportResult, 'import' | 'importRunId' | 'runAnnounced' | 'staged'> | undefined;
  try {
    if (fitsOneRequest(identities, { maxItems: partSize, maxBytes: maxBodyBytes })) {
      log(`uploading ${identities.length} identities to source ${o.source}${o.dryRun ? ' (dry run)' : ''}`);
      try {
        const one = await runs.importSet(identities, {
          ...(o.dryRun ? { dryRun: true } : {}),
          ...(maxDeletedRatio !== null ? { maxDeletedRatio } : {}),
        });
        imported = { import: one.counts, importRunId: one.runId };
        log(`${o.dryRun ? 'counted' : 'imported'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
      } catch (err) {
        // The service's body bound is lower than the client thought: the set goes in parts instead.
        if (!(err instanceof ServiceError && err.code === 'USE_STAGED_IMPORT')) throw err;
        log('the service takes this set only in parts; uploading it as a staged import');
      }
    }
    if (!imported) {
      const calls = new ServiceCalls({ service, credential, progress: log, backoffMs: pollMs, timeoutMs });
      const hashOfFile = await fileHash(file);
      const upload = await uploadBesideRunning(o, calls, meter, log, () =>
        uploadStaged({
          calls,
          source: o.source,
          identities,
          partSize,
          maxBodyBytes,
          dryRun: o.dryRun === true,
          maxDeletedRatio,
          resume: {
            file: resumeFileFor({ file, stateDir: o.stateDir, service, tenant: o.tenant, source: o.source }),
            service,
            tenant: o.tenant,
            fileHash: hashOfFile,
          },
          meter,
          progress: log,
          ...(o.signal ? { signal: o.signal } : {}),
        }),
      );
      meter.end();
      log(
        `uploaded in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${upload.partsSent} of ${upload.parts} parts sent by this run); the service accepted the set as run ${upload.runId}`,
      );
      o.onRun?.(upload.runId);
      const staged = { parts: upload.parts, partsSent: upload.partsSent, partsResumed: upload.partsResumed };
      if (o.noWait) {
        log(`not waiting: run ${upload.runId} is applied in the background (importRun, or npm run ops -- runs)`);
        imported = { importRunId: upload.runId, runAnnounced: Boolean(o.onRun), staged };
      } else {
        const signal = o.signal ? { signal: o.signal } : {};
        const run = await watchRun({ calls, runId: upload.runId, meter, pollMs, ...signal });
        if (run.status !== 'COMPLETED') throw new RunFailed(run, `import run ${run.id}`);
        imported = { import: importCountsOf(run), importRunId: run.id, runAnnounced: Boolean(o.onRun), staged };
        log(`${o.dryRun ? 'counted' : 'applied'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
      }
    }
  } catch (err) {
    if (err instanceof ServiceError && err.problems.length > 0)
      throw new SetRejected(
        err.code,
        err.message.split('\n', 1)[0]?.replace(/^[A-Z_]+: /, '') ?? '',
        err.problems.map((p) => describeProblem(p, lines)),
      );
    const deleteLimit =
      (err instanceof ServiceError && err.code === 'IMPORT_DELETE_LIMIT_EXCEEDED') ||
      (err instanceof RunFailed && err.run.failure?.code === 'IMPORT_DELETE_LIMIT_EXCEEDED');
    if (deleteLimit && maxDeletedRatio !== null && err instanceof Error)
      throw new Error(
        `${err instanceof RunFailed ? `IMPORT_DELETE_LIMIT_EXCEEDED: ${err.message}` : err.message}\nThe client allows at most ${maxDeletedRatio * 100}% of the source to be deleted in one run; if the file is complete, run again with --allow-deletes (try --dry-run first).`,
      );
    if (err instanceof ItemTooLarge)
      throw new SetRejected('IMPORT_IDENTITY_TOO_LARGE', 'an identity is larger than one request may be', [
        describeProblem({ field: `identities[${err.index}]`, problem: 'too large for one request' }, lines),
      ]);
    throw err;
  }
  const done: ImportResult = {
    ...imported,
    ...(runs.followed.length ? { followed: runs.followed } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
  };
  const associations: AssociationRow[] = rows
    .map((r, i) => ({ externalId: r.externalId, userPrincipalName: r.userPrincipalName, line: lines?.[i] }))
    .filter((r): r is AssociationRow => Boolean(r.userPrincipalName));
  if (o.dryRun) {
    if (associations.length) log(`dry run: ${associations.length} association pairs not sent`);
    if (o.reportFile) writeReport(o.reportFile, []);
    return done;
  }
  if (o.noWait) {
    if (associations.length)
      log(`${associations.length} association pairs not sent (run again without --no-wait to associate them)`);
    if (o.reportFile) writeReport(o.reportFile, []);
    return done;
  }
  if (associations.length === 0) {
    if (o.reportFile) writeReport(o.reportFile, []);
    return done;
  }
  // In parts: each pair is processed on its own, and a part stays well inside the HTTP time limit,
  // the service's ASSOCIATION_MAX_PAIRS and its body limit.
  const associated = await associateRows({
    runs,
    rows: associations,
    chunk: o.associationChunk ?? DEFAULT_ASSOCIATION_CHUNK,
    maxBodyBytes,
    progress: log,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  if (o.reportFile) {
    writeReport(o.reportFile, associated.notAssociated);
    log(`${associated.notAssociated.length} rows not associated, written to ${o.reportFile}`);
  }
  if ('failure' in associated) throw associated.failure;
  return { ...done, associate: associated.totals, notAssociated: associated.notAssociated };
}

/** Whether the set goes in one importBusinessIdentities request: one part's worth of identities and bytes. */
export function fitsOneRequest(
  identities: readonly unknown[],
  limits: { maxItems: number; maxBytes: number },
): boolean {
  return identities.length <= limits.maxItems && planParts(jsonSizes(identities), limits).length <= 1;
}

/** A bar on stderr when it is a terminal, plain lines otherwise. */
function defaultMeter(): Meter {
  return process.stderr.isTTY ? ttyMeter(process.stderr) : plainMeter(toStderr);
}

if (require.main === module) {
  // The first Ctrl+C stops the upload after the parts in flight (the next run resumes it), or stops following the
  // run (it goes on) or associating; a second one ends the process at once.
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(130);
    console.error('stopping: parts in flight are finished first (Ctrl+C again to end now)');
    interrupt.abort();
  });
  void importCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    signal: interrupt.signal,
  }).then((code) => process.exit(code));
}
