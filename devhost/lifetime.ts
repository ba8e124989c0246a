/**
 * How the local stack ends: on SIGINT, SIGTERM or SIGHUP, and, when a wrapper such as npm started it,
 * also when that wrapper goes away (npm does not pass SIGHUP or SIGKILL on, and its child would
 * otherwise keep every port). npm runs scripts through `sh -c`, which stays alive when npm dies, so a
 * shell parent's own parent is watched as well (Linux /proc). A second signal while stopping exits at once.
 */
import fs from 'node:fs';

export interface LifetimeOptions {
  /** Stop when the parent process exits (checked every `pollMs`). */
  watchParent: boolean;
  pollMs?: number;
  /** Exit anyway if stopping takes longer than this. */
  graceMs?: number;
  log?: (message: string) => void;
}

export function stopOnSignalOrParentExit(stop: () => Promise<void>, options: LifetimeOptions): void {
  let stopping = false;
  const end = (reason: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    options.log?.(`Stopping (${reason})`);
    setTimeout(() => process.exit(1), options.graceMs ?? 10_000).unref();
    stop()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => end(signal));
  if (options.watchParent) {
    const parent = process.ppid;
    const grandparent = SHELLS.has(commandOf(parent) ?? '') ? parentOf(parent) : undefined;
    setInterval(() => {
      if (process.ppid !== parent) end('parent process exited');
      else if (grandparent !== undefined && parentOf(parent) !== grandparent) end('the process that started it exited');
    }, options.pollMs ?? 500).unref();
  }
}

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash']);

function commandOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Parent pid from /proc/<pid>/stat ("pid (comm) state ppid …"); undefined where there is no /proc. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
