/*
 * Reference client for a scheduled custom integration:
 *   npm run import -- --service https://<app> --source HR --file people.csv --tenant <tenantId> \
 *     --client-id <appId> --client-secret-env HR_IMPORT_SECRET --scope <service appId>/.default
 *     [--authority https://login.microsoftonline.com] [--association-chunk 10000] [--delimiter ';'] [--timeout 225]
 *   npm run import -- --local --source HR --file people.csv      (the local stack of `npm start`)
 * Gets a token, imports the complete set, then associates the rows that carry a userPrincipalName
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
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE, DEFAULT_PORTS } from '../devhost/devData';
import {
  addAssociationCounts,
  RunFollower,
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
  '       npm run import -- --local --source <name> --file <file>   (the local stack of `npm start`, as dev-admin)',
].join('\n');

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
export async function readCsv(file: string, options: { delimiter?: string; progress?: Progress } = {}): Promise<Row[]> {
  const progress = options.progress ?? toStderr;
  const parser = fs.createReadStream(file).pipe(
    parseCsv({
      bom: true,
      delimiter: options.delimiter ?? (await detectDelimiter(file)),
      columns: (header: string[]) => header.map((h) => h.trim()),
      skip_empty_lines: true,
      trim: true,
    }),
  );
  const rows: Row[] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string | undefined>>) {
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
export function importRunFromArgs(argv: string[], env: Record<string, string | undefined>): ImportRun {
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
      },
    }));
  } catch {
    throw new UsageError(USAGE);
  }
  const local = values.local === true;
  const localDefaults = local
    ? {
        service: `http://localhost:${DEFAULT_PORTS.host}`,
        authority: `http://127.0.0.1:${DEFAULT_PORTS.idp}`,
        tenant: DEV_TENANT_ID,
        'client-id': DEV_CLIENTS.admin.clientId,
        scope: SERVICE_SCOPE,
      }
    : {};
  const v: Record<string, string | undefined> = { ...localDefaults, ...values, local: undefined };
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
  };
}

async function main(): Promise<void> {
  const run = importRunFromArgs(process.argv.slice(2), process.env);
  for (const line of resultLines(await runImport(run))) console.log(line);
}

/** What the client prints on stdout: runs it waited for, the import's counts and run id, the association totals. */
export function resultLines(result: Awaited<ReturnType<typeof runImport>>): string[] {
  return [
    ...(result.followed ?? []).map((f) => `followed ${JSON.stringify(f)}`),
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
}

export const DEFAULT_ASSOCIATION_CHUNK = 10_000;
/** Just under the 230 s after which Azure's front end gives up on an HTTP request. */
export const DEFAULT_TIMEOUT_MS = 225_000;
/** How long a timed-out request may take to show up in the run history before the client gives up on it. */
export async function runImport(
  o: ImportRun,
): Promise<{ import: ImportCounts; importRunId: string; followed?: FollowedRun[]; associate?: AssociationCounts }> {
  const progress = o.progress ?? toStderr;
  const file = o.file;
  const rows: Row[] = file.endsWith('.json')
    ? (JSON.parse(await fs.promises.readFile(file, 'utf8')) as Row[])
    : await readCsv(file, { delimiter: o.delimiter, progress });
  progress(`read ${rows.length} identities`);
  const accessToken = await token(o.authority, o.tenant, o.clientId, o.secret, o.scope);
  const runs = new RunFollower({
    service: o.service.replace(/\/+$/, ''),
    accessToken,
    source: o.source,
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    pollMs: o.pollMs ?? 5_000,
    progress,
  });
  const identities = rows.map(({ userPrincipalName: _upn, ...identity }) => identity);
  progress(`uploading ${identities.length} identities to source ${o.source}`);
  const startedAt = Date.now();
  const imported = await runs.importSet(identities);
  progress(`imported in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const done = {
    import: imported.counts,
    importRunId: imported.runId,
    ...(runs.followed.length ? { followed: runs.followed } : {}),
  };
  const associations = rows
    .filter((r) => r.userPrincipalName)
    .map((r) => ({ externalId: r.externalId, userPrincipalName: r.userPrincipalName }));
  if (associations.length === 0) return done;
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
  for (let i = 0; i < associations.length; i += part) {
    progress(`associating part ${i / part + 1} of ${parts} (${Math.min(part, associations.length - i)} pairs)`);
    addAssociationCounts(totals, await runs.associate(associations.slice(i, i + part)));
  }
  return { ...done, associate: totals };
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : 'failed');
    process.exit(err instanceof UsageError ? 2 : 1);
  });
}
