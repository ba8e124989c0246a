/*
 * Reference client for a scheduled custom integration:
 *   npm run import -- --service https://<app> --source HR --file people.csv --tenant <tenantId> \
 *     --client-id <appId> --client-secret-env HR_IMPORT_SECRET --scope <service appId>/.default
 *     [--authority https://login.microsoftonline.com] [--association-chunk 10000] [--delimiter ';'] [--timeout 225]
 *   npm run import -- --local --source HR --file people.csv      (the local stack of `npm start`)
 * Gets a token, imports the complete set, then associates the rows that carry a userPrincipalName
 * (in parts of --association-chunk pairs), prints the counts, and exits non-zero on any error.
 * When the import request times out (--timeout seconds, just under the 230 s HTTP limit of Azure
 * Functions) the service keeps running it: the client then follows its run in the run history until
 * it ends and prints the run's counts. Answered IMPORT_IN_PROGRESS, it follows the running run to its
 * end and sends the set again.
 * CSV (RFC 4180, UTF-8 with or without BOM, `,` or the `;` of spreadsheet exports) is parsed as a stream;
 * progress goes to stderr.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE, DEFAULT_PORTS } from '../lib/devhost/devData';

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

/** Progress lines (stderr by default). */
export type Progress = (line: string) => void;
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
    parseCsv({ bom: true, delimiter: options.delimiter ?? (await detectDelimiter(file)), columns: (header: string[]) => header.map((h) => h.trim()), skip_empty_lines: true, trim: true }),
  );
  const rows: Row[] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string | undefined>>) {
      if (rows.length === 0) {
        const missing = REQUIRED_COLUMNS.filter((c) => !(c in record));
        if (missing.length) throw new UsageError(`The CSV header lacks the column(s) ${missing.join(', ')}`);
      }
      const get = (name: string): string | undefined => record[name] || undefined;
      const row: Row = { externalId: get('externalId') ?? '', affiliationType: (get('affiliationType') ?? '').toUpperCase(), firstName: get('firstName') ?? '', lastName: get('lastName') ?? '' };
      for (const k of ['birthDate', 'nationality', 'personalEmail', 'personalPhone', 'userPrincipalName'] as const) {
        const v = get(k);
        if (v) row[k] = v;
      }
      const cpr = get('cpr');
      if (cpr) row.personalNumbers = [{ type: 'DK_CPR', value: cpr }];
      const passport = get('passportNumber');
      if (passport) row.identityDocumentReferences = [{ type: 'PASSPORT', issuingCountry: get('passportCountry') ?? '', documentNumber: passport }];
      rows.push(row);
      if (rows.length % PROGRESS_EVERY === 0) progress(`read ${rows.length} rows`);
    }
  } catch (err) {
    // The parser's messages quote file content; say where, never what.
    if (err instanceof CsvError) throw new UsageError(`The CSV file is not valid at line ${String((err as CsvError & { lines?: number }).lines ?? '?')} (${err.code})`);
    throw err;
  } finally {
    parser.destroy();
  }
  return rows;
}

async function token(authority: string, tenant: string, clientId: string, secret: string, scope: string): Promise<string> {
  const res = await fetch(`${authority}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope }).toString(),
  });
  if (!res.ok) throw new Error(`token request failed (HTTP ${res.status})`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A GraphQL error answer, with its code and (for IMPORT_IN_PROGRESS) the running run's id. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly runId?: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** The request got no answer in time (or the gateway in front of the service gave up on it). */
class RequestGaveUp extends Error {}

async function graphql(service: string, accessToken: string, query: string, variables: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${service}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
      ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    text = await res.text();
  } catch (err) {
    // fetch rejects with a DOMException (not always an instance of this realm's Error).
    const name = typeof err === 'object' && err !== null && 'name' in err ? err.name : undefined;
    if (name === 'TimeoutError' || name === 'AbortError') throw new RequestGaveUp('the request timed out');
    throw err;
  }
  // Azure's front end answers 502/504 without a GraphQL body when a request outlives its 230 s limit.
  if (res.status === 502 || res.status === 504) throw new RequestGaveUp(`the request was given up (HTTP ${res.status})`);
  let body: { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string; runId?: string; problems?: Array<{ field: string; problem: string }> } }> };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`the service answered HTTP ${res.status} without a GraphQL body`);
  }
  if (body.errors?.length) {
    const first = body.errors[0];
    const problems = (first?.extensions?.problems ?? []).slice(0, 20).map((p) => `  ${p.field}: ${p.problem}`);
    const code = first?.extensions?.code ?? 'ERROR';
    throw new ServiceError([`${code}: ${first?.message}`, ...problems].join('\n'), code, first?.extensions?.runId);
  }
  if (!body.data) throw new Error(`the service answered HTTP ${res.status} without a GraphQL result (is --service the service's address?)`);
  return body.data;
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
    ? { service: `http://localhost:${DEFAULT_PORTS.host}`, authority: `http://127.0.0.1:${DEFAULT_PORTS.idp}`, tenant: DEV_TENANT_ID, 'client-id': DEV_CLIENTS.admin.clientId, scope: SERVICE_SCOPE }
    : {};
  const v: Record<string, string | undefined> = { ...localDefaults, ...values, local: undefined };
  const required = ['service', 'source', 'file', 'tenant', 'client-id', 'scope', ...(local ? [] : ['client-secret-env'])];
  const missing = required.filter((r) => !v[r]);
  if (missing.length) throw new UsageError(`${missing.map((m) => `--${m}`).join(', ')} required\n${USAGE}`);
  const secret = v['client-secret-env'] ? env[v['client-secret-env']] : DEV_CLIENTS.admin.secret;
  if (!secret) throw new UsageError('The environment variable named by --client-secret-env is not set');
  const chunk = v['association-chunk'] === undefined ? undefined : Number(v['association-chunk']);
  if (chunk !== undefined && (!Number.isInteger(chunk) || chunk < 1)) throw new UsageError('--association-chunk must be a whole number of pairs, at least 1');
  if (v.delimiter !== undefined && v.delimiter !== ',' && v.delimiter !== ';') throw new UsageError("--delimiter must be ',' or ';'");
  const timeout = v.timeout === undefined ? undefined : Number(v.timeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) throw new UsageError('--timeout must be a number of seconds above 0');
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
export const RUN_APPEARS_WITHIN_MS = 120_000;
/** Tries of one look at the run history while the service is busy or unreachable. */
const LOOK_ATTEMPTS = 10;
/** Sends of the set while other imports of the source keep running. */
const MAX_IMPORT_ATTEMPTS = 3;

export interface ImportCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** A run of the service's run history, as the client reads it. */
interface ServiceRun {
  id: string;
  operation: string;
  status: string;
  clientId: string;
  importCounts: ImportCounts | null;
  failure: { code: string; message: string } | null;
}

const RUN_FIELDS = 'id operation status clientId importCounts { created updated deleted unchanged } failure { code message }';

/** A run that ended without completing: the process exits non-zero. */
export class RunFailed extends Error {
  constructor(
    readonly run: ServiceRun,
    what: string,
  ) {
    super(`${what} ${run.status.toLowerCase()}${run.failure ? `: ${run.failure.code}: ${run.failure.message}` : ''}`);
    this.name = 'RunFailed';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Imports the set; follows the service's run when the request gives up or another import holds the source. */
async function importFollowingRuns(o: ImportRun, service: string, accessToken: string, identities: unknown[], progress: Progress, followed: FollowedRun[]): Promise<{ counts: ImportCounts; runId: string }> {
  const pollMs = o.pollMs ?? 5_000;
  // A look at the run history is tried again while the service is busy or unreachable (the run goes on meanwhile).
  const call = async (query: string, variables: unknown) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await graphql(service, accessToken, query, variables, pollMs + 30_000);
      } catch (err) {
        const passing = (err instanceof ServiceError && err.code === 'SERVICE_BUSY') || err instanceof RequestGaveUp || (err instanceof TypeError && err.message === 'fetch failed');
        if (!passing || attempt >= LOOK_ATTEMPTS) throw err;
        await sleep(pollMs);
      }
    }
  };
  const getRun = async (id: string) => (await call(`query($id: ID!) { importRun(id: $id) { ${RUN_FIELDS} } }`, { id })).importRun as ServiceRun | null;
  const recentRuns = async () => (await call(`query($s: String!) { importRuns(source: $s, first: 20) { ${RUN_FIELDS} } }`, { s: o.source })).importRuns as ServiceRun[];
  const follow = async (id: string): Promise<ServiceRun> => {
    for (;;) {
      const run = await getRun(id);
      if (!run) throw new Error(`run ${id} is not in the run history`);
      if (run.status !== 'RUNNING') return run;
      await sleep(pollMs);
    }
  };
  for (let attempt = 1; ; attempt++) {
    // The newest run before the request: a run of ours that the request started comes after it.
    const before = (await recentRuns())[0]?.id;
    const sentAt = Date.now();
    try {
      const data = await graphql(service, accessToken, 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }', { i: { source: o.source, identities } }, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const { runId, ...counts } = data.importBusinessIdentities as ImportCounts & { runId: string };
      return { counts, runId };
    } catch (err) {
      if (err instanceof RequestGaveUp) {
        progress(`${err.message} after ${((Date.now() - sentAt) / 1000).toFixed(1)} s; following the import's run`);
        let mine: ServiceRun | undefined;
        for (const giveUpAt = Date.now() + RUN_APPEARS_WITHIN_MS; !mine; await sleep(pollMs)) {
          const runs = await recentRuns();
          const at = before === undefined ? -1 : runs.findIndex((r) => r.id === before);
          // Newest first: the runs before the marker started after the request was sent (all of them when the marker is not among them).
          const newer = at >= 0 ? runs.slice(0, at) : runs;
          mine = newer.filter((r) => r.operation === 'IMPORT' && r.clientId === o.clientId.toLowerCase()).at(-1);
          if (!mine && Date.now() > giveUpAt) throw new Error('the import request timed out and its run did not appear in the run history; run the import again');
        }
        progress(`following run ${mine.id}`);
        const ended = await follow(mine.id);
        if (ended.status !== 'COMPLETED' || !ended.importCounts) throw new RunFailed(ended, `import run ${ended.id}`);
        return { counts: ended.importCounts, runId: ended.id };
      }
      if (err instanceof ServiceError && err.code === 'IMPORT_IN_PROGRESS' && err.runId && attempt < MAX_IMPORT_ATTEMPTS) {
        progress(`another import of source ${o.source} is running (run ${err.runId}); following it`);
        const other = await follow(err.runId);
        followed.push({ runId: other.id, status: other.status, importCounts: other.importCounts, failure: other.failure });
        progress(`run ${other.id} ended ${other.status.toLowerCase()}; sending the set again`);
        continue;
      }
      throw err;
    }
  }
}

/** Another run the client waited for before its own import could start. */
export interface FollowedRun {
  runId: string;
  status: string;
  importCounts: ImportCounts | null;
  failure: { code: string; message: string } | null;
}

export async function runImport(o: ImportRun): Promise<{ import: ImportCounts; importRunId: string; followed?: FollowedRun[]; associate?: Record<string, number> }> {
  const progress = o.progress ?? toStderr;
  const file = o.file;
  const rows: Row[] = file.endsWith('.json') ? (JSON.parse(await fs.promises.readFile(file, 'utf8')) as Row[]) : await readCsv(file, { delimiter: o.delimiter, progress });
  progress(`read ${rows.length} identities`);
  const accessToken = await token(o.authority, o.tenant, o.clientId, o.secret, o.scope);
  const service = o.service.replace(/\/+$/, '');
  const identities = rows.map(({ userPrincipalName: _upn, ...identity }) => identity);
  progress(`uploading ${identities.length} identities to source ${o.source}`);
  const startedAt = Date.now();
  const followed: FollowedRun[] = [];
  const imported = await importFollowingRuns(o, service, accessToken, identities, progress, followed);
  progress(`imported in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const done = { import: imported.counts, importRunId: imported.runId, ...(followed.length ? { followed } : {}) };
  const associations = rows.filter((r) => r.userPrincipalName).map((r) => ({ externalId: r.externalId, userPrincipalName: r.userPrincipalName }));
  if (associations.length > 0) {
    // In parts: each pair is processed on its own, and a part stays well inside the HTTP time limit
    // and the service's ASSOCIATION_MAX_PAIRS.
    const part = o.associationChunk ?? DEFAULT_ASSOCIATION_CHUNK;
    const parts = Math.ceil(associations.length / part);
    const totals = { associated: 0, unchanged: 0, unknownExternalIds: 0, unknownUserPrincipalNames: 0, conflictingUserPrincipalNames: 0 };
    const count = (v: unknown[] | number | undefined) => (Array.isArray(v) ? v.length : (v ?? 0));
    for (let i = 0; i < associations.length; i += part) {
      progress(`associating part ${i / part + 1} of ${parts} (${Math.min(part, associations.length - i)} pairs)`);
      const associated = await graphql(service, accessToken, 'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }', { i: { source: o.source, associations: associations.slice(i, i + part) } });
      const r = associated.associateBusinessIdentities as Record<keyof typeof totals, unknown[] | number>;
      for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += count(r[k]);
    }
    return { ...done, associate: totals };
  }
  return done;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : 'failed');
    process.exit(err instanceof UsageError ? 2 : 1);
  });
}
