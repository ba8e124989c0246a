/*
 * A benchmark's child processes (the store's engine, a client standing for another machine) are watched:
 * when one dies while the benchmark still needs it, the benchmark stops at once with the reason and a
 * non-zero exit, instead of waiting for answers that will never come (an import job retrying against a
 * store that is gone waits forever). The child's stderr is passed through and its last lines are kept,
 * so the reason (e.g. V8's "JavaScript heap out of memory") is repeated in the failure message.
 */
import type { ChildProcess } from 'node:child_process';

const TAIL_BYTES = 4096;

export interface WatchedChild {
  /** The child is being stopped on purpose: its exit is no failure. */
  stopping(): void;
  /** The last lines the child wrote to stderr (empty when its stderr is not piped). */
  tail(): string;
}

/** What a child's unexpected end says, in one line plus the end of its stderr. */
export function deathMessage(name: string, code: number | null, signal: NodeJS.Signals | null, tail: string): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
  const last = tail.trim();
  return `the benchmark stops: ${name} ${how} while the benchmark still needed it${last ? `; its last words:\n${last}` : ''}`;
}

/**
 * Watches `child` (forked with its stderr piped, or inherited): an exit before `stopping()` is called
 * prints the reason and ends this process with exit code 1 (`onDeath` replaces that, for tests).
 */
export function watchChild(
  child: ChildProcess,
  name: string,
  onDeath: (message: string) => void = (message) => {
    console.error(message);
    process.exit(1);
  },
): WatchedChild {
  let stopping = false;
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
  });
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    if (!stopping) onDeath(deathMessage(name, code, signal, tail));
  });
  return {
    stopping: () => {
      stopping = true;
    },
    tail: () => tail,
  };
}
