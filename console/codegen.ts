import type { CodegenConfig } from '@graphql-codegen/cli';
import path from 'node:path';

/**
 * Typed documents for the console from the service's schema (`npm run console:types`): every `graphql(...)`
 * document in console/src is validated against lib/graphql/schema.graphql and gets its result and variables
 * types in console/src/gql/. Documents stay strings (sent as they are by the console's fetch).
 */
const config: CodegenConfig = {
  schema: path.resolve(__dirname, '..', 'lib', 'graphql', 'schema.graphql'),
  documents: [path.resolve(__dirname, 'src', '**', '*.{ts,tsx}'), `!${path.resolve(__dirname, 'src', 'gql', '**')}`],
  ignoreNoDocuments: false,
  generates: {
    [path.resolve(__dirname, 'src', 'gql') + '/']: {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        documentMode: 'string',
        enumsAsTypes: true,
        useTypeImports: true,
        scalars: { LocalDate: 'string' },
        skipTypename: true,
      },
    },
  },
};

export default config;
