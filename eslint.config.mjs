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
  noHttp: {
    regex: relative('(lib/)?http'),
    message: 'Domain code never imports lib/http: the HTTP layer calls the domain, not the other way round.',
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
  noFunctions: { regex: '^@azure/functions(/|$)', message: 'Only lib/http (and functions/) import @azure/functions.' },
};
const layer = (files, rules, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { patterns: rules.map((r) => RULES[r]) }] },
});
const LAYERS = [
  layer(['functions/**/*.ts'], ['registrationOnly', 'noTooling']),
  layer(['lib/http/**/*.ts', 'lib/triggers/**/*.ts'], ['noTooling', 'noCosmos']),
  layer(['lib/services.ts'], ['noTooling', 'noCosmos', 'noFunctions']),
  layer(['lib/store/**/*.ts'], ['noTooling', 'noHttp', 'noFunctions']),
  layer(['lib/scim/**/*.ts'], ['noTooling', 'noHttp', 'noGraphql', 'noCosmos', 'noFunctions']),
  layer(['lib/graphql/**/*.ts'], ['noTooling', 'noHttp', 'noScim', 'noCosmos', 'noFunctions']),
  layer(
    ['lib/**/*.ts'],
    ['noTooling', 'noHttp', 'noCosmos', 'noFunctions'],
    ['lib/http/**', 'lib/triggers/**', 'lib/services.ts', 'lib/store/**', 'lib/scim/**', 'lib/graphql/**'],
  ),
  layer(['devhost/**/*.ts', 'scripts/**/*.ts'], ['noCosmos']),
];

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'coverage/**', '.local/**'] },
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
