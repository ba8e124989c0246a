// Writes tests/unit/infra/fixtures/bicep-types.json: for every resource type and API version the template
// declares, the properties Bicep allows (from the generated types.md of Azure/bicep-types-az), nested types
// included, read-only ones left out; for each property its type, its string values (enum; `open` when any
// string is accepted besides them) and whether it is required; for a discriminated type its variants by the
// discriminator's value. tests/unit/infra checks what the template sets against it, as the Bicep compiler does
// (BCP037 unknown property, BCP036/BCP088 value not of the type, BCP035 missing required property), where no
// Bicep compiler can be installed.
//
//   node infra/scripts/bicep-types-fixture.js <clone of github.com/Azure/bicep-types-az> > tests/unit/infra/fixtures/bicep-types.json
//   npx prettier --write tests/unit/infra/fixtures/bicep-types.json
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

/**
 * One property line's rest (after `**name**: `): its type reference ('' for a scalar, 'Name' or 'Name[]' for
 * an object type), its string values when the type is a union of them (`open` when `| string` admits others),
 * and whether it is required. Read-only properties are left out by the caller.
 */
function property(rest) {
  const spec = {};
  const ref = /^\[(\w+)\]\(#[^)]*\)(\[\])?/.exec(rest);
  spec.type = ref ? `${ref[1]}${ref[2] ?? ''}` : '';
  const union = /^\(?((?:'[^']*'\s*\|\s*)*'[^']*'(?:\s*\|\s*string)?)\)?(\[\])?(?=[\s:({]|$)/.exec(rest);
  if (union) {
    spec.enum = [...union[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
    if (/\|\s*string$/.test(union[1])) spec.open = true;
    if (union[2]) spec.array = true;
  }
  const flags = /\(([A-Za-z, ]+)\)(:|$)/.exec(rest)?.[1] ?? '';
  if (/\bRequired\b/.test(flags)) spec.required = true;
  return { spec, readOnly: /\bReadOnly\b/.test(flags) };
}

/**
 * Sections of a types.md: `## Resource T@v` or `## Name`, each with its property lines. A discriminated type
 * (`* **Discriminator**: kind`) has base properties and one variant per `### Variant` sub-heading, keyed by the
 * discriminator's value in that variant.
 */
function parse(text) {
  const sections = new Map();
  let current;
  let variant;
  for (const line of text.split('\n')) {
    // `## Function listKeys (…)` sections describe functions, not types.
    if (/^## Function \w+ \(/.test(line)) {
      current = undefined;
      continue;
    }
    const heading = /^## (?:Resource )?(\S+)/.exec(line);
    if (heading) {
      current = sections.get(heading[1]) ?? { props: new Map(), open: false, variants: [] };
      sections.set(heading[1], current);
      variant = undefined;
      continue;
    }
    if (!current) continue;
    const discriminator = /^\* \*\*Discriminator\*\*: (\S+)/.exec(line);
    if (discriminator) {
      current.discriminator = discriminator[1];
      continue;
    }
    if (/^### Additional Properties/.test(line)) current.open = true;
    if (current.discriminator && /^### (?!Base Properties|Properties|Additional Properties)\w+/.test(line)) {
      // Variants may share a heading (a resource discriminated by its name): one entry each.
      variant = new Map();
      current.variants.push(variant);
      continue;
    }
    if (/^### Base Properties/.test(line)) variant = undefined;
    const prop = /^\* \*\*([^*]+)\*\*: (.*)$/.exec(line);
    if (!prop) continue;
    const [, name, rest] = prop;
    if (['Discriminator', 'Additional Properties Type', 'Readable Scope(s)', 'Writable Scope(s)'].includes(name))
      continue;
    // A property only Azure sets cannot be written.
    const { spec, readOnly } = property(rest);
    if (readOnly) continue;
    (variant ?? current.props).set(name, spec);
  }
  return sections;
}

/** A section as the fixture holds it. */
function typeOf(section) {
  if (section.open) return { properties: {}, additional: true };
  const out = { properties: Object.fromEntries(section.props) };
  if (section.discriminator) {
    out.discriminator = section.discriminator;
    out.variants = {};
    for (const props of section.variants) {
      const value = props.get(section.discriminator)?.enum?.[0];
      if (value !== undefined) out.variants[value] = Object.fromEntries(props);
    }
  }
  return out;
}

/** Type names a type refers to. */
function references(type) {
  const all = [type.properties, ...Object.values(type.variants ?? {})];
  return all.flatMap((props) =>
    Object.values(props)
      .map((p) => p.type.replace(/\[\]$/, ''))
      .filter(Boolean),
  );
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
  // A resource type can itself be discriminated (by its name: basicPublishingCredentialsPolicies 'ftp' | 'scm').
  resources[resourceType] = { file: found.file, ...typeOf(top) };
  // The nested types reachable from the resource, by name, within its file.
  const pending = references(resources[resourceType]);
  types[scope] = types[scope] ?? {};
  while (pending.length > 0) {
    const name = pending.pop();
    if (types[scope][name]) continue;
    const section = found.sections.get(name);
    if (!section) throw new Error(`${resourceType}: type ${name} not found in ${found.file}`);
    types[scope][name] = typeOf(section);
    pending.push(...references(types[scope][name]));
  }
  resources[resourceType].scope = scope;
}

const sortKeys = (o) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] && typeof o[k] === 'object' && !Array.isArray(o[k]) ? sortKeys(o[k]) : o[k]]),
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
