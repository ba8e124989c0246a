/**
 * The front of the local fleet in a process of its own (forked by devhost/fleet.ts), as Azure's front end runs
 * apart from the app's instances and from everything else: every request of every caller passes through it, and
 * in the fleet's own process it shared one event loop and one heap with the stand-ins (a directory of tens of
 * thousands of users, the identity provider), whose collections and work held up requests on their way. The fleet
 * says which instances are live; the front gives each request to the next of them in turn (devhost/front.ts). It
 * ends when the fleet's channel closes.
 */
import { frontAgent, startFront, type Front, type FrontTarget } from './front';
import type { FromFront, ToFront } from './frontProtocol';
import { RoundRobin } from './roundRobin';

const turn = new RoundRobin<FrontTarget>();
let front: Front | undefined;

function send(message: FromFront): void {
  if (process.connected) process.send?.(message);
}

process.on('message', (message: ToFront) => {
  if (message.kind === 'start') {
    startFront({ port: message.port, pick: () => turn.pick() }).then(
      (started) => {
        front = started;
        send({ kind: 'ready', url: started.url });
      },
      (err: unknown) => send({ kind: 'failed', message: err instanceof Error ? err.message : 'failed' }),
    );
  } else if (message.kind === 'add') {
    turn.add({ index: message.index, port: message.port, agent: frontAgent() });
  } else {
    const gone = turn.live.find((t) => t.index === message.index);
    if (gone) {
      turn.remove(gone);
      gone.agent.destroy();
    }
    send({ kind: 'removed', index: message.index });
  }
});

process.on('disconnect', () => {
  void (front?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
