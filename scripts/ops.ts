/* Operator commands: `npm run ops -- tenant register|list|remove [tenantId]`. */
import { createStore } from '../lib/store/store';
import { TenantRegistry } from '../lib/tenants/tenantRegistry';
import { isGuid } from '../lib/util/guid';
import { opsTarget, OpsSettingError } from './opsTarget';

const USAGE = 'usage: npm run ops -- tenant register <tenantId> | tenant list | tenant remove <tenantId>';

/** Runs one command; returns the exit code, what it printed and what it noted on stderr. */
export async function runOps(argv: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string[]; notes?: string[] }> {
  const out: string[] = [];
  const [area, verb, arg] = argv;
  if (area !== 'tenant' || !verb || !['register', 'remove', 'list'].includes(verb)) return { code: 2, out: [USAGE] };
  if (verb !== 'list' && !isGuid(arg)) return { code: 2, out: ['The tenant id must be a GUID'] };
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
    if (verb === 'list') {
      for (const t of await tenants.list()) out.push(`${t.tenantId}\tregistered ${t.registeredAt}`);
    } else if (verb === 'register' && isGuid(arg)) {
      out.push((await tenants.register(arg)) ? `registered ${arg.toLowerCase()}` : `${arg.toLowerCase()} was already registered`);
    } else if (isGuid(arg)) {
      out.push((await tenants.remove(arg)) ? `removed ${arg.toLowerCase()}` : `${arg.toLowerCase()} was not registered`);
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
      if (localStackAssumed) console.error('No COSMOS_ENDPOINT set, so the local stack was assumed: is `npm start` running? Against Azure, set COSMOS_ENDPOINT.');
      process.exit(1);
    },
  );
}
