/**
 * The layer rules of eslint.config.mjs fire: ESLint's Node API lints small in-memory snippets, placed at
 * paths of each layer, with the project's own config. ESLint loads its config with a dynamic import,
 * which Jest's module sandbox does not allow, so the linting runs in a child Node process.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** A distinctive part of each rule's message in eslint.config.mjs. */
const RULE_MESSAGE = {
  registrationOnly: 'functions/ only register',
  noTooling: 'never imports devhost/, scripts/, console/ or tests/',
  noSeam: 'Below the Functions seam nothing imports lib/http or lib/triggers',
  seamsApart: 'lib/http and lib/triggers never import each other',
  limitsBelow: 'lib/limits is a lower layer',
  noGraphql: 'lib/scim never imports lib/graphql',
  noScim: 'lib/graphql never imports lib/scim',
  noCosmos: 'Only lib/store imports @azure/cosmos',
  noFunctions: 'Only the Functions seam (lib/http, lib/triggers) and functions/ import @azure/functions',
} as const;
type Rule = keyof typeof RULE_MESSAGE;

interface Snippet {
  file: string;
  code: string;
}

const LINT = `
const { ESLint } = require('eslint');
const path = require('node:path');
(async () => {
  const snippets = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  const eslint = new ESLint({ cwd: process.cwd() });
  const out = [];
  for (const s of snippets) {
    const [result] = await eslint.lintText(s.code, { filePath: path.join(process.cwd(), s.file) });
    out.push(result.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.fatal).map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** The restricted-import messages ESLint gives each snippet, with the project's config. */
function lint(snippets: Snippet[]): string[][] {
  const output = execFileSync(process.execPath, ['-e', LINT], {
    cwd: ROOT,
    input: JSON.stringify(snippets),
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[][];
}

const rulesIn = (messages: string[]): Rule[] =>
  (Object.keys(RULE_MESSAGE) as Rule[]).filter((rule) => messages.some((m) => m.includes(RULE_MESSAGE[rule])));

let names = 0;
/** A snippet that imports a value (or, with useType, a type) from `from` and uses it. */
const use = (from: string) => {
  names += 1;
  return `import { x${names} } from '${from}';\nexport const y${names} = x${names};\n`;
};
const useType = (from: string) => {
  names += 1;
  return `import type { X${names} } from '${from}';\nexport type Y${names} = X${names};\n`;
};

/** [file, code, the rules that must fire (none: the import is allowed)]. */
const CASES: Array<[string, string, Rule[]]> = [
  // functions/ register only
  ['functions/x.ts', use('../lib/scim/errors'), ['registrationOnly']],
  ['functions/x.ts', use('../lib/background/planner'), ['registrationOnly']],
  ['functions/x.ts', use('../devhost/devData'), ['registrationOnly', 'noTooling']],
  ['functions/x.ts', use('graphql'), ['registrationOnly']],
  [
    'functions/x.ts',
    `import { app } from '@azure/functions';\nimport { a } from '../lib/http/scimUsersHandlers';\nimport { s } from '../lib/services';\napp.http('x', { handler: a, s });\n`,
    [],
  ],
  // shipped code never imports the local stack or tooling
  ['lib/scim/x.ts', use('../../devhost/devData'), ['noTooling']],
  ['lib/services.ts', use('../scripts/ops'), ['noTooling']],
  ['lib/http/x.ts', use('../../tests/support/stack'), ['noTooling']],
  ['lib/imports/x.ts', use('../../console/app'), ['noTooling']],
  ['lib/store/x.ts', useType('../../devhost/cosmos/engine'), ['noTooling']],
  ['lib/graphql/x.ts', use('../../devhost/devData'), ['noTooling']],
  // functions/ register handlers of both seams
  ['functions/x.ts', use('../lib/triggers/backgroundHandlers'), []],
  ['functions/x.ts', use('../lib/limits/rateLimiter'), ['registrationOnly']],
  // nothing below the seam (domain, store, lib/limits, lib/services.ts) imports lib/http or lib/triggers
  ['lib/imports/x.ts', use('../http/request'), ['noSeam']],
  ['lib/store/x.ts', useType('../http/request'), ['noSeam']],
  ['lib/scim/x.ts', use('../http/scimHttp'), ['noSeam']],
  ['lib/graphql/x.ts', use('../../lib/http/graphqlHttp'), ['noSeam']],
  ['lib/links/x.ts', `export { x } from '../http/request';\n`, ['noSeam']],
  ['lib/background/x.ts', use('../triggers/backgroundHandlers'), ['noSeam']],
  ['lib/services.ts', use('./http/request'), ['noSeam']],
  ['lib/services.ts', useType('./triggers/timer'), ['noSeam']],
  ['lib/services.ts', useType('./http/scimHttp'), ['noSeam']],
  // the two seams never import each other
  ['lib/triggers/x.ts', use('../http/request'), ['seamsApart']],
  ['lib/http/x.ts', useType('../triggers/timer'), ['seamsApart']],
  ['lib/triggers/x.ts', `${use('./timer')}${use('../services')}${use('../log/invocationLog')}`, []],
  // lib/limits is a lower layer: it imports only lib/config, lib/util and lib/log
  ['lib/limits/x.ts', use('../services'), ['limitsBelow']],
  ['lib/limits/x.ts', use('../http/request'), ['limitsBelow']],
  ['lib/limits/x.ts', useType('../identities/model'), ['limitsBelow']],
  ['lib/limits/x.ts', use('../../devhost/devData'), ['limitsBelow']],
  ['lib/limits/x.ts', use('@azure/functions'), ['noFunctions']],
  ['lib/limits/x.ts', `${use('./rateLimiter')}${useType('../config/settings')}${use('../util/guid')}`, []],
  ['lib/http/x.ts', `${use('../limits/inFlight')}${useType('../limits/bodyBytes')}`, []],
  // lib/scim and lib/graphql never import each other
  ['lib/scim/x.ts', use('../graphql/errors'), ['noGraphql']],
  ['lib/graphql/x.ts', useType('../scim/errors'), ['noScim']],
  ['lib/scim/x.ts', use('graphql'), []],
  // only lib/store imports @azure/cosmos
  ['lib/links/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['lib/http/x.ts', useType('@azure/cosmos'), ['noCosmos']],
  ['lib/scim/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['lib/graphql/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['lib/services.ts', use('@azure/cosmos'), ['noCosmos']],
  ['functions/x.ts', use('@azure/cosmos'), ['registrationOnly']],
  ['devhost/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['scripts/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['lib/store/x.ts', use('@azure/cosmos'), []],
  // only lib/http imports @azure/functions
  ['lib/links/x.ts', useType('@azure/functions'), ['noFunctions']],
  ['lib/scim/x.ts', use('@azure/functions'), ['noFunctions']],
  ['lib/graphql/x.ts', useType('@azure/functions'), ['noFunctions']],
  ['lib/store/x.ts', use('@azure/functions'), ['noFunctions']],
  ['lib/services.ts', use('@azure/functions'), ['noFunctions']],
  ['lib/http/x.ts', useType('@azure/functions'), []],
  ['lib/triggers/x.ts', useType('@azure/functions'), []],
  ['lib/triggers/x.ts', use('@azure/cosmos'), ['noCosmos']],
  ['lib/triggers/x.ts', use('../../scripts/ops'), ['noTooling']],
  // what the layers may import
  ['lib/http/x.ts', `${use('../scim/errors')}${use('../graphql/errors')}${use('../services')}`, []],
  ['lib/services.ts', `${use('./limits/budgets')}${use('./store/store')}`, []],
  ['lib/graphql/x.ts', `${useType('../services')}${use('../identities/model')}`, []],
  ['devhost/x.ts', `${use('../lib/services')}${use('@azure/functions')}`, []],
];

describe('layer rules in eslint.config.mjs', () => {
  const results = lint(CASES.map(([file, code]) => ({ file, code })));

  const titled = CASES.map(([file, code, rules], i) => {
    const imports = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]).join(', ');
    return [`${file} importing ${imports}: ${rules.join(', ') || 'allowed'}`, i, rules] as const;
  });

  it.each(titled)('%s', (_title, i, rules) => {
    const messages = results[i]!;
    expect(rulesIn(messages)).toEqual([...rules].sort(byRuleOrder));
    expect(messages).toHaveLength(rules.length);
  });
});

function byRuleOrder(a: Rule, b: Rule): number {
  const order = Object.keys(RULE_MESSAGE);
  return order.indexOf(a) - order.indexOf(b);
}
