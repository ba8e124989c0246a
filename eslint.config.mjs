import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * House rules on imports, one `no-restricted-imports` per layer (a file gets exactly one, so each layer
 * lists all the rules that hold for it). tests/unit/lint/layers.test.ts checks that each rule fires.
 */
const relative = (folder) => `^(\\.\\.?/)+${folder}(/|$)`;
const RULES = {
  registrationOnly: {
    regex: '^(?!@azure/functions$|\\.\\./lib/(http|triggers)/[^/]+$|\\.\\./lib/services$)',
    message: 'functions/ only register: import @azure/functions, lib/http/*, lib/triggers/* and lib/services.',
  },
  noTooling: {
    regex: relative('(devhost|scripts|console|tests)'),
    message: 'Shipped code (lib/, functions/) never imports devhost/, scripts/, console/ or tests/.',
  },
  noSeam: {
    regex: relative('(lib/)?(http|triggers)'),
    message:
      'Below the Functions seam nothing imports lib/http or lib/triggers: the seam calls down, never the other way round.',
  },
  seamsApart: {
    regex: relative('(lib/)?(http|triggers)'),
    message: 'lib/http and lib/triggers never import each other: HTTP handlers and queue/timer handlers share no code.',
  },
  limitsBelow: {
    regex: '^(\\.\\./){2,}|^\\.\\./(?!(config|util|log)/)',
    message: 'lib/limits is a lower layer: it imports only lib/config, lib/util and lib/log.',
  },
  noGraphql: {
    regex: relative('(lib/)?graphql'),
    message: 'lib/scim never imports lib/graphql: the two APIs share the domain, not each other.',
  },
  noScim: {
    regex: relative('(lib/)?scim'),
    message: 'lib/graphql never imports lib/scim: the two APIs share the domain, not each other.',
  },
  noCosmos: { regex: '^@azure/cosmos(/|$)', message: 'Only lib/store imports @azure/cosmos.' },
  noFunctions: {
    regex: '^@azure/functions(/|$)',
    message: 'Only the Functions seam (lib/http, lib/triggers) and functions/ import @azure/functions.',
  },
};
const layer = (files, rules, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { patterns: rules.map((r) => RULES[r]) }] },
});
const LAYERS = [
  layer(['functions/**/*.ts'], ['registrationOnly', 'noTooling']),
  layer(['lib/http/**/*.ts', 'lib/triggers/**/*.ts'], ['noTooling', 'seamsApart', 'noCosmos']),
  layer(['lib/services.ts'], ['noTooling', 'noSeam', 'noCosmos', 'noFunctions']),
  layer(['lib/limits/**/*.ts'], ['limitsBelow', 'noCosmos', 'noFunctions']),
  layer(['lib/store/**/*.ts'], ['noTooling', 'noSeam', 'noFunctions']),
  layer(['lib/scim/**/*.ts'], ['noTooling', 'noSeam', 'noGraphql', 'noCosmos', 'noFunctions']),
  layer(['lib/graphql/**/*.ts'], ['noTooling', 'noSeam', 'noScim', 'noCosmos', 'noFunctions']),
  layer(
    ['lib/**/*.ts'],
    ['noTooling', 'noSeam', 'noCosmos', 'noFunctions'],
    [
      'lib/http/**',
      'lib/triggers/**',
      'lib/services.ts',
      'lib/limits/**',
      'lib/store/**',
      'lib/scim/**',
      'lib/graphql/**',
    ],
  ),
  layer(['devhost/**/*.ts', 'scripts/**/*.ts'], ['noCosmos']),
];

export default tseslint.config(
  // console/src/gql/ is generated (npm run console:types).
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'coverage/**', '.local/**', 'console/src/gql/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['lib/**/*.ts', 'functions/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // The console is a browser application built apart; the service serves its built files only.
      'no-restricted-imports': ['error', { patterns: ['**/console', '**/console/**'] }],
    },
  },
  {
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['tests/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  ...LAYERS,
);
