/**
 * The command line of `npm start`: `--in-memory`, `--instances N` and `--help`; anything else is refused (exit 2)
 * before a port is opened. A refusal says what is accepted and never repeats what was typed.
 */
import { parseArgs } from 'node:util';

/** The most function hosts `--instances` starts: each is a Node.js process of its own (about 150 MB). */
export const MAX_INSTANCES = 8;

export const START_USAGE = [
  'usage: npm start [-- --in-memory] [-- --instances N] [-- --help]',
  '',
  'Starts the local stack: the Functions host, identity-provider and Graph stand-ins, a Cosmos DB-compatible',
  'engine and Azurite queues; records it in .local/stack.json for `npm run ops` and `npm run import -- --local`.',
  '',
  'options:',
  '  --in-memory     start with an empty store and keep nothing (same as DEV_COSMOS_IN_MEMORY=true)',
  `  --instances N   run N function hosts (1 to ${MAX_INSTANCES}, default 1), each in a process of its own, behind a`,
  '                  front on the host URL that spreads requests over them round-robin (docs/local-stack.md)',
  '  --help          print this text',
  '',
  'settings (environment): DEV_HOST_PORT (7071), DEV_IDP_PORT (7072), DEV_DIRECTORY_PORT (7073), DEV_KEY_VAULT_PORT (7074),',
  '  DEV_COSMOS_PORT (8081), DEV_QUEUE_PORT (10001), DEV_COSMOS_DATA_DIR (.local/cosmos),',
  '  DEV_COSMOS_RU_PER_SECOND (unlimited), DEV_COSMOS_MODE (serverless: request priority ignored; or provisioned),',
  '  COSMOS_ENDPOINT/COSMOS_KEY (an external Cosmos DB account instead)',
  '',
  'examples:',
  '  npm start',
  '  npm start -- --in-memory',
  '  npm start -- --instances 3',
  '  DEV_HOST_PORT=17071 DEV_IDP_PORT=17072 DEV_DIRECTORY_PORT=17073 DEV_COSMOS_PORT=18081 DEV_QUEUE_PORT=20001 npm start',
].join('\n');

export type StartArgs =
  { kind: 'help' } | { kind: 'start'; inMemory: boolean; instances: number } | { kind: 'refused'; message: string };

const REFUSED = 'npm start accepts only --in-memory, --instances N and --help; see `npm start -- --help`';

/** The value of `--instances`: a whole number from 1 to MAX_INSTANCES, written in digits; undefined otherwise. */
export function instanceCount(raw: string | undefined): number | undefined {
  if (raw === undefined) return 1;
  if (!/^\d{1,2}$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n >= 1 && n <= MAX_INSTANCES ? n : undefined;
}

export function startArgs(argv: string[]): StartArgs {
  let values: { 'in-memory'?: boolean; help?: boolean; instances?: string };
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'in-memory': { type: 'boolean' },
        instances: { type: 'string', short: 'n' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch {
    // parseArgs quotes the argument; say what is accepted instead.
    return { kind: 'refused', message: REFUSED };
  }
  if (values.help) return { kind: 'help' };
  const instances = instanceCount(values.instances);
  if (instances === undefined)
    return { kind: 'refused', message: `--instances takes a whole number from 1 to ${MAX_INSTANCES}` };
  return { kind: 'start', inMemory: values['in-memory'] === true, instances };
}
