/** A benchmark stops at once, with the reason, when a child process it needs dies (instead of waiting forever). */
import { fork } from 'node:child_process';
import { deathMessage, watchChild } from '../../../../scripts/bench/childWatch';

/** A child that writes `words` to stderr and then ends as `how` says. */
function child(how: 'exit 134' | 'kill' | 'linger', words: string) {
  const script = [
    `process.stderr.write(${JSON.stringify(words)});`,
    how === 'exit 134' ? 'setTimeout(() => process.exit(134), 20);' : 'setInterval(() => undefined, 1000);',
  ].join('\n');
  return fork('-e', [script], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
}

function died(c: ReturnType<typeof child>, stderrWrite = false): Promise<string> {
  const original = process.stderr.write.bind(process.stderr);
  if (!stderrWrite) process.stderr.write = () => true;
  return new Promise<string>((resolve) => watchChild(c, 'the engine', resolve)).finally(() => {
    process.stderr.write = original;
  });
}

describe('watchChild', () => {
  it('reports an exit with its code and the last words the child wrote to stderr', async () => {
    const message = await died(child('exit 134', 'FATAL ERROR: JavaScript heap out of memory\n'));
    expect(message).toContain('the engine exited with code 134');
    expect(message).toContain('JavaScript heap out of memory');
  });

  it('reports a child killed by a signal', async () => {
    const c = child('linger', '');
    const message = died(c);
    setTimeout(() => c.kill('SIGKILL'), 50);
    expect(await message).toContain('the engine was killed by SIGKILL');
  });

  it('says nothing when the child is stopped on purpose', async () => {
    const c = child('linger', '');
    const deaths: string[] = [];
    const watched = watchChild(c, 'the engine', (m) => deaths.push(m));
    watched.stopping();
    await new Promise<void>((resolve) => {
      c.once('close', () => resolve());
      c.kill();
    });
    expect(deaths).toEqual([]);
  });

  it('keeps only the end of a long stderr', () => {
    expect(deathMessage('the engine', 1, null, `${'x'.repeat(10)}\nlast line\n`)).toMatch(/last line$/);
    expect(deathMessage('the engine', 0, null, '')).toBe(
      'the benchmark stops: the engine exited with code 0 while the benchmark still needed it',
    );
  });
});
