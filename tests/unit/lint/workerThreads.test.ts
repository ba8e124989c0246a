/**
 * The shipped code starts no worker thread: every request runs in the functions' own process, bounded by
 * its body limits (lib/http/graphqlBody.ts). A thread would be a second service inside the service, and
 * one without `resourceLimits` shares the process's heap: its out-of-memory ends every function. A thread
 * added again must come with `resourceLimits` and a test that its out-of-memory ends only the thread.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.[cm]?[jt]s$/.test(e.name) ? [full] : [];
  });
}

/** What starts a thread or a child process, or brings in the module that does. */
const THREADS = [/\bnew\s+Worker\s*\(/, /worker_threads/, /\bchild_process\b/];

describe('worker threads', () => {
  it('none is started by lib/ or functions/', () => {
    const files = [...sources(path.join(ROOT, 'lib')), ...sources(path.join(ROOT, 'functions'))];
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      return THREADS.filter((re) => re.test(text)).map((re) => `${path.relative(ROOT, file)}: ${re.source}`);
    });
    expect(found).toEqual([]);
  });

  it('the check finds a thread where there is one', () => {
    const text = "import { Worker } from 'node:worker_threads';\nconst w = new Worker(script);\n";
    expect(THREADS.filter((re) => re.test(text))).toHaveLength(2);
  });
});
