/** The README is a short front door; details live in docs/, one topic per file, and no relative link is broken. */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function markdownUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(full);
    return e.name.endsWith('.md') ? [full] : [];
  });
}

/** Link targets of a Markdown text, outside fenced code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ''),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] ?? ''),
  ];
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

const readme = path.join(ROOT, 'README.md');
const docs = markdownUnder(path.join(ROOT, 'docs'));

describe('README.md', () => {
  const text = fs.readFileSync(readme, 'utf8');

  it('is at most 250 lines and 20 KB', () => {
    expect(text.split('\n').length).toBeLessThanOrEqual(250);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(20 * 1024);
  });

  it('links every file under docs/', () => {
    const linked = new Set(linkTargets(text).map((t) => path.resolve(ROOT, t)));
    expect(docs.filter((f) => !linked.has(f)).map((f) => path.relative(ROOT, f))).toEqual([]);
  });
});

describe('docs/', () => {
  it('holds at least 6 files, one topic each', () => {
    expect(docs.length).toBeGreaterThanOrEqual(6);
  });

  it.each([readme, ...docs].map((f) => [path.relative(ROOT, f), f]))(
    '%s: every relative link names an existing file',
    (_name, file) => {
      const broken = linkTargets(fs.readFileSync(file, 'utf8'))
        .filter((t) => !isExternal(t))
        .filter((t) => !fs.existsSync(path.resolve(path.dirname(file), decodeURI(t.split('#')[0] ?? ''))));
      expect(broken).toEqual([]);
    },
  );
});

describe('the link finder', () => {
  it('finds inline and reference links, not those in code', () => {
    const md = [
      'See [a](docs/a.md) and [b](b.md "title").',
      '[ref]: docs/ref.md',
      '`[not](code.md)`',
      '```sh',
      'echo [no](fence.md)',
      '```',
      '[web](https://example.org)',
    ].join('\n');
    expect(linkTargets(md)).toEqual(['docs/a.md', 'b.md', 'https://example.org', 'docs/ref.md']);
  });
});
