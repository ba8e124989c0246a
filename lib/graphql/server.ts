import fs from 'node:fs';
import path from 'node:path';
import { NoSchemaIntrospectionCustomRule, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from './context';
import { resolvers } from './resolvers';
import { linkEnumResolvers } from './linkEnums';
import { activityResolvers } from './activityResolvers';
import {
  MAX_FIELDS,
  MAX_TOKENS,
  fieldCount,
  queryLimitsRule,
  queryTooLarge,
  tooManyFields,
  tooManyTokens,
} from './limits';
import { cleanError } from './errorHygiene';
import { ByteBoundedCache, NO_CACHE } from './documentCache';
import { rejectedRuns } from './rejectedRuns';
import { requestParseErrors } from './requestErrors';
import { operationAccess } from './operationAccess';

const typeDefs = fs.readFileSync(path.join(__dirname, 'schema.graphql'), 'utf8');

/** A document with too many fields is refused before graphql-js validates it (validation would cost their square). */
function limitQueryShape(): Plugin {
  return {
    onValidate({ params, addValidationRule, setResult }) {
      if (fieldCount(params.documentAST) > MAX_FIELDS) setResult([tooManyFields()]);
      else addValidationRule(queryLimitsRule);
    },
  };
}

/**
 * The document's text is capped (the HTTP layer refuses longer ones while the body streams in; this
 * catches the rest, such as a query in the URL) and graphql-js stops after MAX_TOKENS tokens, so parsing
 * costs at most a bounded amount of time and memory whatever is sent.
 */
function boundParsing(maxQueryBytes: number): Plugin {
  return {
    onParse({ params, setParseFn }) {
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      if (Buffer.byteLength(text, 'utf8') > maxQueryBytes) throw queryTooLarge(maxQueryBytes);
      setParseFn((source, options) => {
        try {
          return parse(source, { ...options, maxTokens: MAX_TOKENS });
        } catch (err) {
          if (err instanceof Error && /Document contains more tha[nt] \d+ tokens/.test(err.message))
            throw tooManyTokens();
          throw err;
        }
      });
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

/**
 * Errors a resolver reported beside its data (ctx.partialErrors) join the result's errors, so a
 * partly done mutation answers its data and the error together (cleaned like every other error).
 */
function partialErrors(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          const extra = (args.contextValue as GraphQLContext).partialErrors;
          if (extra.length === 0 || Symbol.asyncIterator in result) return;
          setResult({ ...result, errors: [...(result.errors ?? []), ...extra] });
        },
      };
    },
  };
}

/** Every error of every response goes out through cleanError: no value the caller sent, no internals, HTTP 200. */
function cleanErrors(): Plugin {
  const clean = (result: ExecutionResult): ExecutionResult =>
    result.errors?.length ? { ...result, errors: result.errors.map(cleanError) } : result;
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(clean));
      else if (!(Symbol.asyncIterator in result)) setResult(clean(result));
    },
  };
}

/** Documents up to 16 KB are kept parsed (1 MB of document text in total); failed ones are not kept. */
export const DOCUMENT_CACHE_MAX_ENTRY_BYTES = 16 * 1024;
export const DOCUMENT_CACHE_MAX_TOTAL_BYTES = 1024 * 1024;

export type GraphQLServer = YogaServerInstance<GraphQLContext, object>;

export function createGraphQLServer(options: {
  introspection: boolean;
  maxBodyBytes: number;
  maxQueryBytes: number;
}): GraphQLServer {
  return createYoga<GraphQLContext, object>({
    schema: createSchema<GraphQLContext>({ typeDefs, resolvers: [resolvers, activityResolvers, linkEnumResolvers] }),
    graphqlEndpoint: '/graphql',
    // GraphiQL is served with the console's files (no CDN, the console's CSP); see lib/http/graphqlHttp.ts.
    graphiql: false,
    landingPage: false,
    // Same-origin only: graphql-yoga's default copies any Origin and allows credentials. Origins listed in
    // GRAPHQL_CORS_ORIGINS are answered by the HTTP layer (lib/http/cors.ts), preflights before authentication.
    cors: false,
    // No file uploads: a multipart body is refused (415) like any other media type the service does not take.
    multipart: false,
    // Unexpected errors reach the client as "Unexpected error." without internals.
    maskedErrors: true,
    logging: false,
    // graphql-yoga's own default (25 MB) would cap imports below GRAPHQL_MAX_BODY_BYTES.
    maxRequestBodySize: options.maxBodyBytes,
    parserAndValidationCache: {
      documentCache: new ByteBoundedCache<DocumentNode>(DOCUMENT_CACHE_MAX_TOTAL_BYTES, DOCUMENT_CACHE_MAX_ENTRY_BYTES),
      errorCache: NO_CACHE,
    },
    plugins: [
      requestParseErrors(),
      boundParsing(options.maxQueryBytes),
      limitQueryShape(),
      operationAccess(),
      partialErrors(),
      rejectedRuns(),
      cleanErrors(),
      ...(options.introspection ? [] : [disableIntrospection()]),
    ],
  });
}
