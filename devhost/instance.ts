/**
 * One instance of the local fleet: a process of its own (forked by devhost/fleet.ts) that serves every function
 * on a port of its own, as the single dev host does (same loading, same routes, queue triggers against the shared
 * Azurite), over the shared store, identity provider and directory named in its environment. Its identity is
 * WEBSITE_INSTANCE_ID, as on an Azure instance. It runs the timers only while the fleet says it owns them, writes
 * its host log to the fleet, and ends when the fleet's channel closes (the fleet stopped or was killed).
 */
import { installFunctionsCore } from './installFunctionsCore';
import type { FromInstance, ToInstance } from './instanceProtocol';

installFunctionsCore();

import type * as HostModule from './host';

// Loaded after the core API is in place, so @azure/functions registers with this instance's host.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { requireFunctionFolder, startDevHost } = require('./host') as typeof HostModule;

function send(message: FromInstance): void {
  if (process.connected) process.send?.(message);
}

let host: HostModule.DevHost | undefined;
let ending = false;

async function end(code: number): Promise<never> {
  if (!ending) {
    ending = true;
    await host?.close().catch(() => undefined);
  }
  process.exit(code);
}

async function answer(id: number, work: () => Promise<void>): Promise<void> {
  try {
    await work();
    send({ kind: 'reply', id });
  } catch (err) {
    send({ kind: 'reply', id, error: err instanceof Error ? err.message : 'failed' });
  }
}

process.on('message', (message: ToInstance) => {
  if (message.kind === 'start') {
    const { config } = message;
    startDevHost({
      port: 0,
      load: () => requireFunctionFolder(config.functions.dir, config.functions.extension),
      runTimersOnSchedule: false,
      hostJson: config.hostJson,
      log: (level, text) => send({ kind: 'log', level, message: text }),
      onTimerRun: (name, succeeded) => send({ kind: 'timerRun', name, succeeded }),
    }).then(
      (started) => {
        host = started;
        send({ kind: 'ready', url: started.url, functions: started.functions });
      },
      (err: unknown) => {
        send({ kind: 'failed', message: err instanceof Error ? err.message : 'the host did not start' });
        void end(1);
      },
    );
    return;
  }
  if (!host) return;
  if (message.kind === 'timers') host.setTimersOnSchedule(message.on);
  else if (message.kind === 'runTimer') void answer(message.id, () => host!.runTimer(message.name));
  else if (message.kind === 'queuesIdle') void answer(message.id, () => host!.queuesIdle(message.timeoutMs));
});

// The fleet's channel closes when the fleet ends, however it ends (kill -9 included): the instance ends with it.
process.on('disconnect', () => void end(0));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void end(0));
