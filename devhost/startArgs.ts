/** The command line of `npm start`: `--in-memory` and `--help`; anything else is refused (exit 2) before a port is opened. */
import { parseArgs } from 'node:util';

export const START_USAGE = [
  'usage: npm start [-- --in-memory] [-- --help]',
  '',
  'Starts the local stack: the Functions host, identity-provider and Graph stand-ins, a Cosmos DB-compatible',
  'engine and Azurite queues; records it in .local/stack.json for `npm run ops` and `npm run import -- --local`.',
  '',
  'options:',
  '  --in-memory   start with an empty store and keep nothing (same as DEV_COSMOS_IN_MEMORY=true)',
  '  --help        print this text',
  '',
  'settings (environment): DEV_HOST_PORT (7071), DEV_IDP_PORT (7072), DEV_DIRECTORY_PORT (7073), DEV_KEY_VAULT_PORT (7074),',
  '  DEV_COSMOS_PORT (8081), DEV_QUEUE_PORT (10001), DEV_COSMOS_DATA_DIR (.local/cosmos),',
  '  DEV_COSMOS_RU_PER_SECOND (unlimited), DEV_COSMOS_MODE (serverless: request priority ignored; or provisioned),',
  '  COSMOS_ENDPOINT/COSMOS_KEY (an external Cosmos DB account instead)',
  '',
  'examples:',
  '  npm start',
  '  npm start -- --in-memory',
  '  DEV_HOST_PORT=17071 DEV_IDP_PORT=17072 DEV_DIRECTORY_PORT=17073 DEV_COSMOS_PORT=18081 DEV_QUEUE_PORT=20001 npm start',
].join('\n');

export type StartArgs = { kind: 'help' } | { kind: 'start'; inMemory: boolean } | { kind: 'refused'; message: string };

export function startArgs(argv: string[]): StartArgs {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { 'in-memory': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) return { kind: 'help' };
    return { kind: 'start', inMemory: values['in-memory'] === true };
  } catch {
    // parseArgs quotes the argument; say what is accepted instead.
    return {
      kind: 'refused',
      message: 'npm start accepts only --in-memory and --help; see `npm start -- --help`',
    };
  }
}
