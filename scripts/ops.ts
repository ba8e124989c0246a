/*
 * Operator commands: tenants, SCIM integrations, the run history and the activity of a source, upgrade
 * backfills (`npm run ops -- --help`).
 */
import { createStore, type Store } from '../lib/store/store';
import { RequestUnitPacer } from '../lib/store/requestUnitPacing';
import { integerDefault } from '../lib/config/settings';
import { backfillUpnKeys } from '../lib/identities/upnKeysBackfill';
import { AuditLog } from '../lib/audit/auditLog';
import { ScimIntegrations, type ScimIntegrationRecord } from '../lib/integrations/scimIntegrations';
import { DomainError } from '../lib/util/domainError';
import { partitionKey } from '../lib/identities/model';
import { customSourceKey } from '../lib/imports/importer';
import { validateSourceName } from '../lib/imports/importInput';
import { RunHistory, MAX_LISTED_RUNS, type RunView } from '../lib/imports/runHistory';
import { TenantRegistry } from '../lib/tenants/tenantRegistry';
import { isGuid } from '../lib/util/guid';
import {
  parseSelection,
  type ActivityDeps,
  type ActivityPage,
  type ActivityRow,
  type SelectionInput,
} from '../lib/activity/activityPage';
import {
  exportLines,
  selectionReader,
  MAX_EXPORT_ENTRIES,
  type ExportFormat,
  type PageReader,
} from '../lib/activity/export';
import { customSources } from '../lib/graphql/consoleQueries';
import { opsTarget, OpsSettingError, type OpsTarget } from './opsTarget';
import { fieldCryptoFor } from '../lib/crypto/fieldEncryption';
import { encryptExisting } from '../lib/crypto/existingIdentities';
import type { FieldCrypto } from '../lib/crypto/fieldCrypto';

export const USAGE = [
  'usage: npm run ops -- <command>',
  '',
  'commands:',
  '  tenant list                                        registered tenants',
  '  tenant register <tenantId>                         let a tenant use the service',
  '  tenant remove <tenantId>                           stop accepting a tenant (its data stays)',
  '  integration list <tenantId>                        SCIM integrations of a tenant',
  '  integration create <tenantId> <clientId> <name>    register the Entra application of a provisioning job',
  '  integration disable <tenantId> <integrationId>     refuse its tokens from now on (data stays)',
  '  integration enable <tenantId> <integrationId>      accept its tokens again',
  '  runs <tenantId> <source> [count]                   recent import and association runs of a custom source',
  '  activity <tenantId> <source> [--refused] [count]   what happened to a source, newest first (default 100):',
  '                                                     refused SCIM requests of an integration, runs (one line',
  '                                                     each, with counts), changes of its identities; source *',
  '                                                     is every source of the tenant. Filters: --from, --until',
  '                                                     (date or ISO time), --action, --outcome, --run, --externalId',
  '  activity … --format csv|json                       export the selection (CSV or JSON lines, the columns of',
  '                                                     the console download), streamed, at most 100,000 entries',
  '  backfill-upn-keys <tenantId> [max]                 once after upgrading: give the identities stored before',
  '                                                     UPN keys existed their keys (at most max writes a run,',
  '                                                     default 10000; paced bulk work; run again until done)',
  '  encrypt-existing <tenantId> [max]                  once after upgrading: seal the personal and document numbers',
  '                                                     of identities stored plain (at most max writes a run,',
  '                                                     default 10000; paced bulk work; run again until done)',
  '  rotate-keys [--rewrap-only]                        make a new version of the field encryption key (Key Vault',
  "                                                     Crypto Officer), then rewrap every tenant's data key with it;",
  '                                                     identities are not rewritten. --rewrap-only: the version was',
  "                                                     made already (by Key Vault's rotation policy)",
  "  forget-tenant-key <tenantId> --yes                 crypto-shred: remove the tenant's data key, so its personal",
  '                                                     and document numbers are unreadable for good (offboarding)',
  '  --help                                             this text',
  '',
  'target: COSMOS_ENDPOINT (+ COSMOS_KEY, or the signed-in Azure identity) for an Azure account; without it the',
  '  local stack of `npm start` recorded in .local/stack.json (or DEV_COSMOS_PORT, or the default port 8081).',
  '  The key commands also need KEY_VAULT_URL (and FIELD_ENCRYPTION_KEY_NAME unless `field-encryption`) for Azure;',
  "  the local stack's Key Vault stand-in is found as its store is.",
  '',
  'examples:',
  '  npm run ops -- tenant list',
  '  npm run ops -- integration create 11111111-1111-1111-1111-111111111111 22222222-2222-2222-2222-222222222222 "HR provisioning"',
  '  COSMOS_ENDPOINT=https://<account>.documents.azure.com npm run ops -- runs <tenantId> HR 5',
  '  npm run ops -- activity 11111111-1111-1111-1111-111111111111 <integrationId> --refused 20',
  '  npm run ops -- activity 11111111-1111-1111-1111-111111111111 "*" --from 2026-03-01 --format csv > activity.csv',
].join('\n');

const OPS_ACTOR_ID = 'ops-cli';

function integrationLine(r: ScimIntegrationRecord): string {
  return [r.id, r.enabled ? 'enabled' : 'disabled', r.clientId, r.displayName, `created ${r.createdAt}`].join('\t');
}

/** The arguments of `integration ...`, or why they are refused. */
function integrationArgs(
  argv: string[],
): { verb: 'list' | 'create' | 'disable' | 'enable'; tenantId: string; rest: string[] } | string {
  const [, verb, tenantId, ...rest] = argv;
  if (verb !== 'list' && verb !== 'create' && verb !== 'disable' && verb !== 'enable') return USAGE;
  if (!isGuid(tenantId)) return 'The tenant id must be a GUID';
  if (verb === 'create' && (rest.length !== 2 || !isGuid(rest[0])))
    return 'usage: npm run ops -- integration create <tenantId> <clientId (GUID)> <display name>';
  if ((verb === 'disable' || verb === 'enable') && rest.length !== 1)
    return `usage: npm run ops -- integration ${verb} <tenantId> <integrationId>`;
  if (verb === 'list' && rest.length !== 0) return 'usage: npm run ops -- integration list <tenantId>';
  return { verb, tenantId: tenantId.toLowerCase(), rest };
}

async function integrationCommand(
  store: Store,
  a: { verb: 'list' | 'create' | 'disable' | 'enable'; tenantId: string; rest: string[] },
): Promise<{ code: number; out: string[] }> {
  const integrations = new ScimIntegrations(store, new AuditLog(store));
  const actor = { tenantId: a.tenantId, kind: 'system' as const, id: OPS_ACTOR_ID };
  try {
    if (a.verb === 'list') {
      const listed = await integrations.list(a.tenantId);
      return { code: 0, out: listed.length ? listed.map(integrationLine) : ['no SCIM integrations in that tenant'] };
    }
    if (a.verb === 'create') {
      const [clientId, displayName] = a.rest;
      const r = await integrations.create(a.tenantId, { clientId, displayName }, actor);
      return { code: 0, out: [`created ${integrationLine(r)}`] };
    }
    const r = await integrations.setEnabled(a.tenantId, a.rest[0], a.verb === 'enable', actor);
    return { code: 0, out: [`${a.verb}d ${integrationLine(r)}`] };
  } catch (err) {
    // The service's own refusals (taken client id, no such integration): its code and words, never a value.
    if (err instanceof DomainError)
      return {
        code: 1,
        out: [`${err.code}: ${err.message}`, ...err.problems.map((p) => `  ${p.field}: ${p.problem}`)],
      };
    throw err;
  }
}

/** One line per run: id, operation, status, client, start, end, counts, failure code. */
function runLine(r: RunView): string {
  const counts = r.importCounts ?? r.associationCounts;
  return [
    r.id,
    r.dryRun ? `${r.operation} (dry run)` : r.operation,
    r.status,
    r.clientId,
    r.startedAt,
    r.endedAt ?? '-',
    `submitted=${r.submitted}`,
    counts
      ? Object.entries(counts)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')
      : '-',
    r.failure ? `${r.failure.code}: ${r.failure.message}` : '',
  ]
    .join('\t')
    .trimEnd();
}

/** The arguments of `runs`, or why they are refused. */
function runsArgs(argv: string[]): { tenantId: string; source: string; count: number } | string {
  const [, tenantId, source, countText] = argv;
  if (!isGuid(tenantId)) return 'The tenant id must be a GUID';
  let name: string;
  try {
    name = validateSourceName(source);
  } catch {
    return 'The source must be the name of a custom source (not Manual, at most 128 printable characters)';
  }
  const count = countText === undefined ? 20 : Number(countText);
  if (!Number.isInteger(count) || count < 1 || count > MAX_LISTED_RUNS)
    return `The count must be a whole number from 1 to ${MAX_LISTED_RUNS}`;
  return { tenantId: tenantId.toLowerCase(), source: name, count };
}

export const MAX_ACTIVITY_LINES = 1000;

interface ActivityArgs {
  tenantId: string;
  /** Undefined: every source of the tenant (`*`). */
  source: string | undefined;
  selection: SelectionInput;
  count: number;
  format?: ExportFormat;
}

const ACTIVITY_USAGE =
  'usage: npm run ops -- activity <tenantId> <source|*> [--refused] [count] [--from t] [--until t] [--action a] [--outcome o] [--run id] [--externalId e] [--format csv|json]';
const VALUE_FLAGS = new Set(['--from', '--until', '--action', '--outcome', '--run', '--externalId', '--format']);

/** The arguments of `activity`, or why they are refused. */
function activityArgs(argv: string[]): ActivityArgs | string {
  const [, tenantId, source, ...rest] = argv;
  if (!isGuid(tenantId)) return 'The tenant id must be a GUID';
  if (!source || source.startsWith('--')) return ACTIVITY_USAGE;
  const values = new Map<string, string>();
  const counts: string[] = [];
  let refused = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--refused') refused = true;
    else if (VALUE_FLAGS.has(a) && rest[i + 1] !== undefined && !values.has(a)) values.set(a, rest[++i] as string);
    else if (a.startsWith('--')) return ACTIVITY_USAGE;
    else counts.push(a);
  }
  if (counts.length > 1) return ACTIVITY_USAGE;
  const format = values.get('--format');
  if (format !== undefined && format !== 'csv' && format !== 'json') return 'The format must be csv or json';
  const count = counts[0] === undefined ? 100 : Number(counts[0]);
  if (!Number.isInteger(count) || count < 1 || count > (format ? MAX_EXPORT_ENTRIES : MAX_ACTIVITY_LINES))
    return `The count must be a whole number from 1 to ${format ? MAX_EXPORT_ENTRIES : MAX_ACTIVITY_LINES}`;
  return {
    tenantId: tenantId.toLowerCase(),
    source: source === '*' ? undefined : source,
    selection: {
      outcome: refused ? 'refused' : (values.get('--outcome') ?? null),
      from: values.get('--from') ?? null,
      until: values.get('--until') ?? null,
      action: values.get('--action') ?? null,
      run: values.get('--run') ?? null,
      externalId: values.get('--externalId') ?? null,
    },
    count: format && counts[0] === undefined ? MAX_EXPORT_ENTRIES : count,
    ...(format ? { format } : {}),
  };
}

export const MAX_BACKFILL_WRITES = 100_000;

/** The arguments of `backfill-upn-keys`, or why they are refused. */
function backfillArgs(argv: string[]): { tenantId: string; maxWrites: number } | string {
  const [, tenantId, maxText, ...rest] = argv;
  if (rest.length > 0) return 'usage: npm run ops -- backfill-upn-keys <tenantId> [max]';
  if (!isGuid(tenantId)) return 'The tenant id must be a GUID';
  const maxWrites = maxText === undefined ? 10_000 : Number(maxText);
  if (!Number.isInteger(maxWrites) || maxWrites < 1 || maxWrites > MAX_BACKFILL_WRITES)
    return `The max must be a whole number from 1 to ${MAX_BACKFILL_WRITES}`;
  return { tenantId: tenantId.toLowerCase(), maxWrites };
}

/**
 * The pace of an operator's bulk work: the service's default budget of one tenant's bulk work on an
 * instance (it runs beside the service's instances, at low priority).
 */
function operatorPacer(): RequestUnitPacer {
  return new RequestUnitPacer({
    tenantRequestUnitsPerSecond: integerDefault('BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'),
    instanceRequestUnitsPerSecond: integerDefault('BULK_REQUEST_UNITS_PER_SECOND_PER_TENANT'),
  });
}

async function backfillCommand(store: Store, a: { tenantId: string; maxWrites: number }): Promise<string[]> {
  const r = await backfillUpnKeys(store, a.tenantId, a.maxWrites);
  return [
    `read ${r.read} identities, gave ${r.written} their UPN keys` +
      (r.changedMeanwhile > 0 ? ` (${r.changedMeanwhile} changed meanwhile: written by the service)` : ''),
    r.more ? `stopped after ${a.maxWrites} writes: run the command again` : 'done: every identity has its UPN keys',
  ];
}

type KeyCommand =
  | { kind: 'encrypt-existing'; tenantId: string; maxWrites: number }
  | { kind: 'rotate-keys'; rewrapOnly: boolean }
  | { kind: 'forget-tenant-key'; tenantId: string };

/** The arguments of the field encryption commands, or why they are refused. */
function keyArgs(argv: string[]): KeyCommand | string {
  const [area, first, ...rest] = argv;
  if (area === 'encrypt-existing') {
    const parsed = backfillArgs(argv);
    if (typeof parsed === 'string') return parsed.replace('backfill-upn-keys', 'encrypt-existing');
    return { kind: 'encrypt-existing', ...parsed };
  }
  if (area === 'rotate-keys') {
    if (argv.length > 2 || (first !== undefined && first !== '--rewrap-only'))
      return 'usage: npm run ops -- rotate-keys [--rewrap-only]';
    return { kind: 'rotate-keys', rewrapOnly: first === '--rewrap-only' };
  }
  if (!isGuid(first)) return 'The tenant id must be a GUID';
  if (rest.length !== 1 || rest[0] !== '--yes')
    return "usage: npm run ops -- forget-tenant-key <tenantId> --yes (irreversible: the tenant's numbers become unreadable)";
  return { kind: 'forget-tenant-key', tenantId: first.toLowerCase() };
}

/** Runs a field encryption command on the stored form (`store` has no codec); what it prints. */
async function keyCommand(store: Store, crypto: FieldCrypto, c: KeyCommand): Promise<string[]> {
  if (c.kind === 'encrypt-existing') {
    const r = await encryptExisting(store, crypto, c.tenantId, c.maxWrites);
    return [
      `read ${r.read} identities, sealed ${r.written}` +
        (r.changedMeanwhile > 0 ? ` (${r.changedMeanwhile} changed meanwhile: sealed by the service)` : ''),
      r.more
        ? `stopped after ${c.maxWrites} writes: run the command again`
        : 'done: every identity of the tenant is stored encrypted',
    ];
  }
  if (c.kind === 'rotate-keys') {
    const { wrapper } = crypto.keys;
    const lines: string[] = [];
    if (!c.rewrapOnly && wrapper.rotate) lines.push(`new key version ${await wrapper.rotate()}`);
    const r = await crypto.keys.rewrapAll();
    lines.push(
      `rewrapped ${r.rewrapped} of ${r.keys} tenant data keys with the current key version; no identity rewritten`,
    );
    return lines;
  }
  return (await crypto.keys.forget(c.tenantId))
    ? [`forgot the data key of ${c.tenantId}: its personal and document numbers are unreadable from now on`]
    : [`${c.tenantId} had no data key: none will be made for it`];
}

/** Field encryption for an operator's command, or why not (no Key Vault to reach). */
function operatorCrypto(store: Store, target: OpsTarget): FieldCrypto | string {
  if (!target.keyVault) return 'Setting KEY_VAULT_URL is required for this command against an Azure account';
  return fieldCryptoFor(store, {
    keyVaultUrl: target.keyVault.url,
    keyName: target.keyVault.keyName,
    keyCacheSeconds: 60,
  });
}

/** A field of a tab-separated line: `-` when empty, no tab or line break of its own. */
const field = (v: string | number | null): string =>
  v === null || v === '' ? '-' : String(v).replace(/[\t\r\n]/g, ' ');

/**
 * One line per entry: time, outcome, operation, status, scimType, code, externalId, identity id, correlation id,
 * detail (for a change of an identity, the names of the attributes it changed).
 */
function activityLine(e: ActivityRow): string {
  return [
    e.at,
    e.outcome.toUpperCase(),
    e.operation,
    e.httpStatus,
    e.scimType,
    e.code,
    e.externalId,
    e.identityId,
    e.correlationId,
    e.detail ?? e.changedAttributes?.join(',') ?? null,
  ]
    .map(field)
    .join('\t');
}

function activityDepsOf(store: Store): ActivityDeps {
  return {
    store,
    runs: new RunHistory(store),
    integrations: new ScimIntegrations(store, new AuditLog(store)),
    customSources: (tenantId) => customSources({ store }, tenantId),
  };
}

/** The pages of the selection, as the `activity` query and the console's download read them. */
function activityReader(store: Store, a: ActivityArgs): PageReader {
  const selection = parseSelection({ ...a.selection, source: a.source ?? null }, 'option');
  return selectionReader(activityDepsOf(store), a.tenantId, selection);
}

/** The newest entries of the selection, page by page, as the `activity` query lists them. */
async function activityCommand(store: Store, a: ActivityArgs): Promise<string[]> {
  const read = activityReader(store, a);
  const out: string[] = [];
  let after: string | undefined;
  for (;;) {
    let page: ActivityPage;
    try {
      page = await read({ first: Math.min(100, a.count - out.length), ...(after !== undefined ? { after } : {}) });
    } catch (err) {
      // Far back, behind more changed identities than a page reads: what was listed is what there is to list.
      if (after !== undefined && err instanceof DomainError && err.code === 'BAD_USER_INPUT') return out;
      throw err;
    }
    out.push(...page.rows.map(activityLine));
    after = page.endCursor ?? undefined;
    if (!page.hasNextPage || out.length >= a.count || after === undefined) return out;
  }
}

/** The selection exported as CSV or JSON lines, written line by line as the pages are read. */
async function activityExport(
  store: Store,
  a: ActivityArgs & { format: ExportFormat },
  write: (line: string) => Promise<void> | void,
): Promise<number> {
  const lines = await exportLines(activityReader(store, a), a.format, { maxEntries: a.count });
  let n = 0;
  for await (const line of lines) {
    await write(line);
    n++;
  }
  return n;
}

/** Runs one command; returns the exit code, what it printed and what it noted on stderr. */
export async function runOps(
  argv: string[],
  env: Record<string, string | undefined>,
  /** `write`: where an export's lines go as they are made (default: collected in `out`). */
  options: { stackFile?: string; write?: (line: string) => Promise<void> | void } = {},
): Promise<{ code: number; out: string[]; notes?: string[] }> {
  const out: string[] = [];
  const [area, verb, arg] = argv;
  if (argv.includes('--help') || argv.includes('-h') || area === 'help') return { code: 0, out: [USAGE] };
  const runs = area === 'runs' ? runsArgs(argv) : undefined;
  if (typeof runs === 'string') return { code: 2, out: [runs] };
  const integration = area === 'integration' ? integrationArgs(argv) : undefined;
  if (typeof integration === 'string') return { code: 2, out: [integration] };
  const activity = area === 'activity' ? activityArgs(argv) : undefined;
  if (typeof activity === 'string') return { code: 2, out: [activity] };
  const backfill = area === 'backfill-upn-keys' ? backfillArgs(argv) : undefined;
  if (typeof backfill === 'string') return { code: 2, out: [backfill] };
  const keys =
    area === 'encrypt-existing' || area === 'rotate-keys' || area === 'forget-tenant-key' ? keyArgs(argv) : undefined;
  if (typeof keys === 'string') return { code: 2, out: [keys] };
  if (
    !runs &&
    !integration &&
    !activity &&
    !backfill &&
    !keys &&
    (area !== 'tenant' || !verb || !['register', 'remove', 'list'].includes(verb) || argv.length > 3)
  )
    return { code: 2, out: [`${area === undefined ? 'A command is needed' : 'Unknown command'}\n${USAGE}`] };
  if (!runs && !integration && !activity && !backfill && !keys && verb !== 'list' && !isGuid(arg))
    return { code: 2, out: ['The tenant id must be a GUID'] };
  let target;
  try {
    target = opsTarget(env, options.stackFile);
  } catch (err) {
    if (err instanceof OpsSettingError) return { code: 2, out: [err.message] };
    throw err;
  }
  const notes = target.note ? [target.note] : undefined;
  const store = createStore(target.store, backfill || keys?.kind === 'encrypt-existing' ? operatorPacer() : undefined);
  try {
    if (env.OPS_ENSURE_SCHEMA === 'true') await store.ensureSchema();
    const tenants = new TenantRegistry(store);
    if (keys) {
      const crypto = operatorCrypto(store, target);
      if (typeof crypto === 'string') return { code: 2, out: [crypto] };
      const lines = await keyCommand(store, crypto, keys);
      return notes ? { code: 0, out: lines, notes } : { code: 0, out: lines };
    }
    if (integration) {
      const done = await integrationCommand(store, integration);
      return notes ? { ...done, notes } : done;
    }
    if (backfill) {
      out.push(...(await backfillCommand(store, backfill)));
    } else if (activity?.format) {
      const format = activity.format;
      const written = await activityExport(store, { ...activity, format }, options.write ?? ((l) => void out.push(l)));
      if (written === 0) out.push('no activity of that selection');
    } else if (activity) {
      const lines = await activityCommand(store, activity);
      out.push(...(lines.length ? lines : ['no activity of that source']));
    } else if (runs) {
      const listed = await new RunHistory(store).list(
        partitionKey(runs.tenantId, customSourceKey(runs.source)),
        runs.count,
      );
      out.push(...(listed.length ? listed.map(runLine) : [`no runs of that source in the last 90 days`]));
    } else if (verb === 'list') {
      for (const t of await tenants.list()) out.push(`${t.tenantId}\tregistered ${t.registeredAt}`);
    } else if (verb === 'register' && isGuid(arg)) {
      out.push(
        (await tenants.register(arg))
          ? `registered ${arg.toLowerCase()}`
          : `${arg.toLowerCase()} was already registered`,
      );
    } else if (isGuid(arg)) {
      out.push(
        (await tenants.remove(arg)) ? `removed ${arg.toLowerCase()}` : `${arg.toLowerCase()} was not registered`,
      );
    }
    return notes ? { code: 0, out, notes } : { code: 0, out };
  } finally {
    store.dispose();
  }
}

if (require.main === module) {
  const localStackAssumed = !process.env.COSMOS_ENDPOINT?.trim();
  // An export's lines go out as they are made, at the pace stdout takes them.
  const write = (line: string): Promise<void> | void => {
    if (!process.stdout.write(`${line}\n`)) return new Promise((resolve) => process.stdout.once('drain', resolve));
  };
  runOps(process.argv.slice(2), process.env, { write }).then(
    ({ code, out, notes }) => {
      for (const line of notes ?? []) console.error(line);
      for (const line of out) (code === 0 ? console.log : console.error)(line);
      process.exit(code);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? `${err.name}: ${err.message}` : 'failed');
      if (localStackAssumed)
        console.error(
          'No COSMOS_ENDPOINT set, so the local stack was assumed: is `npm start` running? Against Azure, set COSMOS_ENDPOINT.',
        );
      process.exit(1);
    },
  );
}
