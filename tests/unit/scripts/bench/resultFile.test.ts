/** Each benchmark writes docs/performance/bench-<name>.md itself, through one writer, and never the README. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  benchCommand,
  captureStdout,
  figuresMarkdown,
  renderBenchResult,
  writeBenchResult,
} from '../../../../scripts/bench/resultFile';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

describe('benchmark result files', () => {
  it('start with the command, the time, the core count and the Node.js version, then the figures', () => {
    const text = renderBenchResult(
      {
        name: 'scim',
        command: 'BENCH_SIZES=1000 npm run bench:scim',
        finishedAt: new Date('2026-11-26T07:00:00.123Z'),
        cores: 2,
        node: 'v22.1.0',
      },
      ['| N | p50 ms |\n| - | ------ |\n| 1000 | 2.3 |'],
    );
    expect(text.split('\n').slice(0, 5)).toEqual([
      '# Benchmark `bench:scim`',
      '',
      'Figures from the last run; rerun with `npm run bench:scim` (it rewrites this file).',
      '',
      'Made by `BENCH_SIZES=1000 npm run bench:scim` at 2026-11-26T07:00:00Z · 2 cores · Node.js v22.1.0',
    ]);
    expect(text).toContain('\n\n| N | p50 ms |\n| - | ------ |\n| 1000 | 2.3 |\n');
  });

  it('keep tables together, fence JSON and give other lines a paragraph each', () => {
    expect(figuresMarkdown(['\nRequest units', '| a |\n| - |\n| 1 |', '{"writes":2}', 'done'])).toBe(
      ['Request units', '', '| a |', '| - |', '| 1 |', '', '```json', '{\n  "writes": 2\n}', '```', '', 'done'].join(
        '\n',
      ),
    );
  });

  it('name the command with the BENCH_ settings and arguments of the run', () => {
    expect(benchCommand('links', ['200', '500'], { BENCH_SECONDS: '40', HOME: '/root', BENCH_A: '1' })).toBe(
      'BENCH_A=1 BENCH_SECONDS=40 npm run bench:links -- 200 500',
    );
    expect(benchCommand('admin', [], {})).toBe('npm run bench:admin');
  });

  it('are written under docs/performance/ of the repository, leaving the README alone', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-result-'));
    try {
      fs.writeFileSync(path.join(root, 'README.md'), 'front door\n');
      const file = writeBenchResult('load', ['| x |\n| - |\n| 1 |'], {
        root,
        now: new Date('2026-11-26T08:00:00Z'),
        command: 'npm run bench:load',
      });
      expect(path.relative(root, file)).toBe(path.join('docs', 'performance', 'bench-load.md'));
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toMatch(/^Made by `npm run bench:load` at 2026-11-26T08:00:00Z · \d+ cores · Node\.js v\d+/m);
      expect(text).toContain('| x |\n| - |\n| 1 |');
      expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('front door\n');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('hold what the benchmark printed to stdout, which still goes to stdout', () => {
    const stdout = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const capture = captureStdout();
    console.log('| a |');
    console.log({ b: 1 });
    const chunks = capture.stop();
    console.log('after');
    expect(chunks).toEqual(['| a |', '{ b: 1 }']);
    expect(stdout.mock.calls).toEqual([['| a |'], [{ b: 1 }], ['after']]);
    stdout.mockRestore();
  });

  it('exist for every benchmark script, and every benchmark records through the one writer', () => {
    const benches = fs
      .readdirSync(path.join(ROOT, 'scripts', 'bench'))
      .filter((f) => f.endsWith('Bench.ts'))
      .map((f) => f.replace(/Bench\.ts$/, ''));
    expect(benches.length).toBeGreaterThanOrEqual(7);
    for (const name of benches) {
      const source = fs.readFileSync(path.join(ROOT, 'scripts', 'bench', `${name}Bench.ts`), 'utf8');
      expect([name, /(runBench|runAndRecord)\('([a-z]+)', main\)/.exec(source)?.[2]]).toEqual([name, name]);
      expect(source).not.toMatch(/README/);
      expect(fs.existsSync(path.join(ROOT, 'docs', 'performance', `bench-${name}.md`))).toBe(true);
    }
  });
});
