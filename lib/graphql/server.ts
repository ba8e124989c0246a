import fs from 'node:fs';
import path from 'node:path';
import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from './context';
import { resolvers } from './resolvers';
import { queryLimitsRule } from './limits';

const typeDefs = fs.readFileSync(path.join(__dirname, 'schema.graphql'), 'utf8');

function limitQueryShape(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(queryLimitsRule);
    },
  };
}

function disableIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

const VARIABLE_ERROR = /^Variable "(\$[A-Za-z0-9_]+)" got invalid value .* at "([^"]+)"; /s;
const VARIABLE_ERROR_NO_PATH = /^Variable "(\$[A-Za-z0-9_]+)" got invalid value /;

/**
 * graphql-js quotes the offending value in variable-coercion errors ("got invalid value …"),
 * which could put a personal number in a response or log. Keep the variable and path only.
 */
function withoutValuesInVariableErrors(): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          const errors = result.errors.map((e) => {
            const withPath = VARIABLE_ERROR.exec(e.message);
            const noPath = withPath ? undefined : VARIABLE_ERROR_NO_PATH.exec(e.message);
            if (!withPath && !noPath) return e;
            const message = withPath ? `Variable "${withPath[1]}" has an invalid value at "${withPath[2]}"` : `Variable "${noPath?.[1]}" has an invalid value`;
            return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
          });
          setResult({ ...result, errors });
        },
      };
    },
  };
}

export type GraphQLServer = YogaServerInstance<GraphQLContext, object>;

export function createGraphQLServer(options: { introspection: boolean; maxBodyBytes: number }): GraphQLServer {
  return createYoga<GraphQLContext, object>({
    schema: createSchema<GraphQLContext>({ typeDefs, resolvers }),
    graphqlEndpoint: '/graphql',
    graphiql: options.introspection,
    landingPage: false,
    // Unexpected errors reach the client as "Unexpected error." without internals.
    maskedErrors: true,
    logging: false,
    // graphql-yoga's own default (25 MB) would cap imports below GRAPHQL_MAX_BODY_BYTES.
    maxRequestBodySize: options.maxBodyBytes,
    plugins: [limitQueryShape(), withoutValuesInVariableErrors(), ...(options.introspection ? [] : [disableIntrospection()])],
  });
}
