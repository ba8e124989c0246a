/* Operator commands: `npm run ops -- tenant register|list|remove [tenantId]`. */
import { loadSettings } from '../lib/config/settings';
import { createStore } from '../lib/store/store';
import { TenantRegistry } from '../lib/tenants/tenantRegistry';
import { isGuid } from '../lib/util/guid';

const USAGE = 'usage: npm run ops -- tenant register <tenantId> | tenant list | tenant remove <tenantId>';

async function main(argv: string[]): Promise<number> {
  const [area, verb, arg] = argv;
  if (area !== 'tenant' || !verb) {
    console.error(USAGE);
    return 2;
  }
  // Only the store settings are needed here; PUBLIC_BASE_URL has a placeholder when unset.
  const settings = loadSettings({ PUBLIC_BASE_URL: 'http://localhost', ...process.env });
  const store = createStore(settings.cosmos);
  try {
    if (process.env.OPS_ENSURE_SCHEMA === 'true') await store.ensureSchema();
    const tenants = new TenantRegistry(store);
    switch (verb) {
      case 'register':
      case 'remove': {
        if (!isGuid(arg)) {
          console.error('The tenant id must be a GUID');
          return 2;
        }
        if (verb === 'register') console.log((await tenants.register(arg)) ? `registered ${arg.toLowerCase()}` : `${arg.toLowerCase()} was already registered`);
        else console.log((await tenants.remove(arg)) ? `removed ${arg.toLowerCase()}` : `${arg.toLowerCase()} was not registered`);
        return 0;
      }
      case 'list':
        for (const t of await tenants.list()) console.log(`${t.tenantId}\tregistered ${t.registeredAt}`);
        return 0;
      default:
        console.error(USAGE);
        return 2;
    }
  } finally {
    store.dispose();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? `${err.name}: ${err.message}` : 'failed');
    process.exit(1);
  },
);
