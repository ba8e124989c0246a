import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { linesOf } from '../../../../devhost/cosmos/journal';

describe('journal lines', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-lines-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([1, 2, 3, 7, 64, 1 << 20])(
    'reads every complete line whatever the chunk size (%i bytes), multi-byte characters included',
    (chunk) => {
      const lines = ['{"t":"put","v":"æøå"}', '', '{"t":"del"}', 'x'.repeat(100), '{"t":"put","v":"😀"}'];
      const file = path.join(dir, `complete-${chunk}`);
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      expect([...linesOf(file, chunk)]).toEqual(lines.filter((l) => l !== ''));
    },
  );

  it('leaves out a last line without its newline (a write cut short by a crash)', () => {
    const file = path.join(dir, 'torn');
    fs.writeFileSync(file, '{"a":1}\n{"b":2}\n{"c":');
    expect([...linesOf(file, 4)]).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reads nothing from a missing file', () => {
    expect([...linesOf(path.join(dir, 'missing'))]).toEqual([]);
  });
});
