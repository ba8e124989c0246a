// Writes tests/unit/infra/fixtures/bicep-types.json: for every resource type and API version the template
// declares, the properties Bicep allows (from the generated types.md of Azure/bicep-types-az), nested types
// included, read-only ones left out. tests/unit/infra checks every property the template sets against it,
// as the Bicep compiler does (BCP037), where no Bicep compiler can be installed.
//
//   node infra/scripts/bicep-types-fixture.js <clone of github.com/Azure/bicep-types-az> > tests/unit/infra/fixtures/bicep-types.json
//
// Run it again after changing a resource type or API version in infra/.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = process.argv[2];
if (!repo) {
  console.error('usage: node infra/scripts/bicep-types-fixture.js <bicep-types-az clone>');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const commit = git('rev-parse', 'HEAD').trim();

const infra = path.join(__dirname, '..');
const bicepFiles = [
  path.join(infra, 'main.bicep'),
  ...fs
    .readdirSync(path.join(infra, 'modules'))
    .filter((f) => f.endsWith('.bicep'))
    .map((f) => path.join(infra, 'modules', f)),
];
const used = new Set();
for (const file of bicepFiles)
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/^resource\s+\w+\s+'([^']+@[^']+)'/gm)) used.add(m[1]);

const typeFiles = git('ls-tree', '-r', '--name-only', 'HEAD', 'generated')
  .split('\n')
  .filter((f) => f.endsWith('/types.md'));

/** Sections of a types.md: `## Resource T@v` or `## Name`, each with its property lines and sub-headings. */
function parse(text) {
  const sections = new Map();
  let current;
  for (const line of text.split('\n')) {
    // `## Function listKeys (…)` sections describe functions, not types.
    if (/^## Function \w+ \(/.test(line)) {
      current = undefined;
      continue;
    }
    const heading = /^## (?:Resource )?(\S+)/.exec(line);
    if (heading) {
      current = sections.get(heading[1]) ?? { props: new Map(), open: false };
      sections.set(heading[1], current);
      continue;
    }
    if (!current) continue;
    if (/^### Additional Properties/.test(line)) current.open = true;
    const prop = /^\* \*\*([^*]+)\*\*: (.*)$/.exec(line);
    if (!prop) continue;
    const [, name, rest] = prop;
    if (['Discriminator', 'Additional Properties Type', 'Readable Scope(s)', 'Writable Scope(s)'].includes(name))
      continue;
    // "(ReadOnly…)" flags follow the type; a property only Azure sets cannot be written.
    const flags = /\(([A-Za-z, ]+)\)(:|$)/.exec(rest)?.[1] ?? '';
    if (/\bReadOnly\b/.test(flags)) continue;
    const ref = /^\[(\w+)\]\(#[^)]*\)(\[\])?/.exec(rest);
    current.props.set(name, ref ? `${ref[1]}${ref[2] ?? ''}` : '');
  }
  return sections;
}

const resources = {};
const types = {};
for (const resourceType of [...used].sort()) {
  const [type, version] = resourceType.split('@');
  const provider = type.split('/')[0].toLowerCase();
  const heading = `## Resource ${type}@${version}`;
  const candidates = typeFiles.filter((f) => f.toLowerCase().includes(`/${provider}/${version}/`));
  let found;
  for (const f of candidates) {
    const text = git('show', `HEAD:${f}`);
    if (text.split('\n').some((l) => l.toLowerCase() === heading.toLowerCase())) {
      found = { file: f, sections: parse(text) };
      break;
    }
  }
  if (!found) throw new Error(`${resourceType}: no types.md declares it`);
  // Type names are unique within one types.md only.
  const scope = path.posix.dirname(found.file).replace(/^generated\//, '');
  const key = [...found.sections.keys()].find((k) => k.toLowerCase() === `${type}@${version}`.toLowerCase());
  const top = found.sections.get(key);
  resources[resourceType] = { file: found.file, properties: Object.fromEntries(top.props) };
  // The nested types reachable from the resource, by name, within its file.
  const pending = [...top.props.values()].filter(Boolean).map((t) => t.replace(/\[\]$/, ''));
  types[scope] = types[scope] ?? {};
  while (pending.length > 0) {
    const name = pending.pop();
    if (types[scope][name]) continue;
    const section = found.sections.get(name);
    if (!section) throw new Error(`${resourceType}: type ${name} not found in ${found.file}`);
    types[scope][name] = section.open ? { '*': '' } : Object.fromEntries(section.props);
    for (const t of section.props.values()) if (t) pending.push(t.replace(/\[\]$/, ''));
  }
  resources[resourceType].scope = scope;
}

const sortKeys = (o) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] && typeof o[k] === 'object' ? sortKeys(o[k]) : o[k]]),
  );
process.stdout.write(
  `${JSON.stringify(
    {
      source: `github.com/Azure/bicep-types-az@${commit} generated/**/types.md (infra/scripts/bicep-types-fixture.js)`,
      resources: sortKeys(resources),
      types: sortKeys(types),
    },
    null,
    2,
  )}\n`,
);
