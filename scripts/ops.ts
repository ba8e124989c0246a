/* Operator commands: `npm run ops -- tenant register|list|remove [tenantId]`. */
import { loadSettings } from '../lib/config/settings';
import { createStore } from '../lib/store/store';
import { TenantRegistry } from '../lib/tenants/tenantRegistry';
import { isGuid } from '../lib/util/guid';

const USAGE = 'usage: npm run ops -- tenant register <tenantId> | tenant list | tenant remove <tenantId>';

/** Runs one command; returns the exit code and what it printed. */
export async function runOps(argv: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const [area, verb, arg] = argv;
  if (area !== 'tenant' || !verb || !['register', 'remove', 'list'].includes(verb)) return { code: 2, out: [USAGE] };
  if (verb !== 'list' && !isGuid(arg)) return { code: 2, out: ['The tenant id must be a GUID'] };
  // Only the store settings are needed here; PUBLIC_BASE_URL has a placeholder when unset.
  const settings = loadSettings({ PUBLIC_BASE_URL: 'http://localhost', ...env });
  const store = createStore(settings.cosmos);
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
    return { code: 0, out };
  } finally {
    store.dispose();
  }
}

if (require.main === module) {
  runOps(process.argv.slice(2), process.env).then(
    ({ code, out }) => {
      for (const line of out) (code === 0 ? console.log : console.error)(line);
      process.exit(code);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? `${err.name}: ${err.message}` : 'failed');
      process.exit(1);
    },
  );
}
