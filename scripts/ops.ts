/* Operator commands: `npm run ops -- tenant register|list|remove [tenantId]`, `npm run ops -- runs <tenantId> <source> [count]`. */
import { createStore } from '../lib/store/store';
import { partitionKey } from '../lib/identities/model';
import { customSourceKey } from '../lib/imports/importer';
import { validateSourceName } from '../lib/imports/importInput';
import { RunHistory, MAX_LISTED_RUNS, type RunView } from '../lib/imports/runHistory';
import { TenantRegistry } from '../lib/tenants/tenantRegistry';
import { isGuid } from '../lib/util/guid';
import { opsTarget, OpsSettingError } from './opsTarget';

const USAGE =
  'usage: npm run ops -- tenant register <tenantId> | tenant list | tenant remove <tenantId> | runs <tenantId> <source> [count]';

/** One line per run: id, operation, status, client, start, end, counts, failure code. */
function runLine(r: RunView): string {
  const counts = r.importCounts ?? r.associationCounts;
  return [
    r.id,
    r.operation,
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

/** Runs one command; returns the exit code, what it printed and what it noted on stderr. */
export async function runOps(
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; out: string[]; notes?: string[] }> {
  const out: string[] = [];
  const [area, verb, arg] = argv;
  const runs = area === 'runs' ? runsArgs(argv) : undefined;
  if (typeof runs === 'string') return { code: 2, out: [runs] };
  if (!runs && (area !== 'tenant' || !verb || !['register', 'remove', 'list'].includes(verb)))
    return { code: 2, out: [USAGE] };
  if (!runs && verb !== 'list' && !isGuid(arg)) return { code: 2, out: ['The tenant id must be a GUID'] };
  let target;
  try {
    target = opsTarget(env);
  } catch (err) {
    if (err instanceof OpsSettingError) return { code: 2, out: [err.message] };
    throw err;
  }
  const notes = target.note ? [target.note] : undefined;
  const store = createStore(target.store);
  try {
    if (env.OPS_ENSURE_SCHEMA === 'true') await store.ensureSchema();
    const tenants = new TenantRegistry(store);
    if (runs) {
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
  runOps(process.argv.slice(2), process.env).then(
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
