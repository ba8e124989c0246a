/**
 * No module-level mutable state in lib/imports and lib/background: what a job or a unit of background work
 * keeps lives in the store or in an object the composition root makes (lib/services.ts), so two units in one
 * process never share a variable by accident (the process-wide one-step gate was such a variable) and a unit
 * test makes its own. A top-level `let`, or a top-level Map, Set or array not typed read-only, fails here.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const FOLDERS = ['lib/imports', 'lib/background'];

function topLevelState(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^(export )?(let|var) /.test(line)) found.push(`${i + 1}: ${line.trim()}`);
    const made = /^(export )?const (\w+)(: ([^=]+))? = (new (Map|Set|WeakMap)\b|\[)/.exec(line);
    if (made && !/^(Readonly|readonly )/.test(made[4]?.trim() ?? '') && !/\bas const\b/.test(line))
      found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe('module-level state', () => {
  it('detects a top-level let and a mutable top-level collection, not a read-only one', () => {
    expect(topLevelState('let steppingSince: number | undefined;\nconst x = 1;')).toHaveLength(1);
    expect(topLevelState('const seen = new Set<string>();')).toHaveLength(1);
    expect(topLevelState('const KNOWN: ReadonlySet<string> = new Set(["a"]);')).toEqual([]);
    expect(topLevelState("const KINDS = ['a', 'b'] as const;")).toEqual([]);
  });

  it.each(FOLDERS)('%s has none', (folder) => {
    const files = fs.readdirSync(path.join(ROOT, folder)).filter((f) => f.endsWith('.ts'));
    const found = files.flatMap((f) =>
      topLevelState(fs.readFileSync(path.join(ROOT, folder, f), 'utf8')).map((hit) => `${folder}/${f}:${hit}`),
    );
    expect(found).toEqual([]);
  });
});
