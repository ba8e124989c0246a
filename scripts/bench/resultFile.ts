/*
 * Each benchmark writes its figures to docs/performance/bench-<name>.md: a header with the command that made
 * it, when, the machine's core count and Node.js version, then what the benchmark printed to stdout
 * (tables as Markdown, JSON fenced). Progress on stderr is not kept. A benchmark never edits README.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';

export interface BenchRun {
  /** The part after `bench:`, e.g. `scim`; also the file name `bench-<name>.md`. */
  name: string;
  /** The command line that reproduces the run, e.g. `BENCH_SIZES=1000 npm run bench:scim`. */
  command: string;
  finishedAt: Date;
  cores: number;
  node: string;
}

export const PERFORMANCE_DIR = path.join('docs', 'performance');

export const benchFileName = (name: string): string => `bench-${name}.md`;

/** `npm run bench:<name>` with the BENCH_* variables and arguments this process was started with. */
export function benchCommand(
  name: string,
  argv: readonly string[] = process.argv.slice(2),
  env: Record<string, string | undefined> = process.env,
): string {
  const vars = Object.keys(env)
    .filter((k) => k.startsWith('BENCH_') && env[k] !== undefined)
    .sort()
    .map((k) => `${k}=${env[k]}`);
  return [...vars, `npm run bench:${name}`, ...(argv.length ? ['--', ...argv] : [])].join(' ');
}

const isTableLine = (line: string): boolean => line.trimStart().startsWith('|');

function asJson(chunk: string): string | undefined {
  const t = chunk.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

/** Markdown of what a benchmark printed: table lines kept together, JSON fenced, other lines one paragraph each. */
export function figuresMarkdown(chunks: readonly string[]): string {
  const out: string[] = [];
  const gap = () => {
    if (out.length && out[out.length - 1] !== '') out.push('');
  };
  for (const chunk of chunks) {
    const json = asJson(chunk);
    if (json !== undefined) {
      gap();
      out.push('```json', json, '```', '');
      continue;
    }
    for (const line of chunk.split('\n')) {
      if (line.trim() === '') {
        gap();
      } else if (isTableLine(line)) {
        if (out.length && out[out.length - 1] !== '' && !isTableLine(out[out.length - 1] ?? '')) out.push('');
        out.push(line.trim());
      } else {
        gap();
        out.push(line.trim(), '');
      }
    }
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

export function renderBenchResult(run: BenchRun, chunks: readonly string[]): string {
  const when = run.finishedAt.toISOString().replace(/\.\d+Z$/, 'Z');
  return [
    `# Benchmark \`bench:${run.name}\``,
    '',
    `Figures from the last run; rerun with \`npm run bench:${run.name}\` (it rewrites this file).`,
    '',
    `Made by \`${run.command}\` at ${when} · ${run.cores} cores · Node.js ${run.node}`,
    '',
    figuresMarkdown(chunks),
    '',
  ].join('\n');
}

/** Tees console.log: everything still goes to stdout, and `stop()` returns what was printed, one chunk per call. */
export function captureStdout(): { stop(): string[] } {
  const chunks: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => {
    chunks.push(format(...args));
    original(...args);
  };
  return {
    stop: () => {
      console.log = original;
      return chunks;
    },
  };
}

/** Writes docs/performance/bench-<name>.md (under `root`, the repository) and returns its path. */
export function writeBenchResult(
  name: string,
  chunks: readonly string[],
  options: { root?: string; now?: Date; command?: string } = {},
): string {
  const file = path.join(options.root ?? process.cwd(), PERFORMANCE_DIR, benchFileName(name));
  const run: BenchRun = {
    name,
    command: options.command ?? benchCommand(name),
    finishedAt: options.now ?? new Date(),
    cores: os.cpus().length,
    node: process.version,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, renderBenchResult(run, chunks));
  return file;
}

/** Runs a benchmark's main, writes its result file when it succeeds, and exits with its outcome. */
export function runAndRecord(name: string, main: () => Promise<void>): void {
  const capture = captureStdout();
  main().then(
    () => {
      const file = writeBenchResult(name, capture.stop());
      console.error(`figures written to ${path.relative(process.cwd(), file)}`);
      process.exit(0);
    },
    (err: unknown) => {
      capture.stop();
      console.error(err);
      process.exit(1);
    },
  );
}
