/**
 * graphql-yoga reads a GET request's `variables` and `extensions` (and those of a form body) with JSON.parse
 * and lets its SyntaxError through as an unexpected error: a malformed request was answered
 * INTERNAL_SERVER_ERROR. Every failure of reading the request's parameters is the caller's: BAD_REQUEST,
 * with a message of ours (the parser's quotes the text).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MALFORMED_PARAMETERS } from './errorHygiene';
import { CODE } from '../util/errorCodes';

export function malformedParameters(): GraphQLError {
  return new GraphQLError(MALFORMED_PARAMETERS, { extensions: { code: CODE.BAD_REQUEST, http: { status: 400 } } });
}

export function requestParseErrors(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (err) {
          if (err instanceof GraphQLError) throw err;
          throw malformedParameters();
        }
      });
    },
  };
}
