/**
 * Error messages of graphql-js and graphql-yoga quote what the caller sent: literal values
 * ("Int cannot represent non-integer value: …"), variable values, the raw body of invalid JSON
 * (`extensions.originalError`), and "Did you mean …?" suggestions that describe the schema.
 * Every error leaving the GraphQL endpoint goes through `cleanError`: the message keeps names
 * of a safe shape only, the extensions keep the code, and nothing says what was sent.
 */
import { GraphQLError } from 'graphql';

export const GRAPHQL_PARSE_FAILED = 'GRAPHQL_PARSE_FAILED';
export const GRAPHQL_VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';
export const BAD_REQUEST = 'BAD_REQUEST';
export const BAD_USER_INPUT = 'BAD_USER_INPUT';
export const INTERNAL_SERVER_ERROR = 'INTERNAL_SERVER_ERROR';

const MAX_MESSAGE = 300;
/** A quoted name that may stay in a message: a field, argument, type or variable name (type modifiers allowed). */
const SAFE_QUOTED = /^[$@]?[A-Za-z_][A-Za-z0-9_.]{0,63}$|^[[\]!A-Za-z0-9_]{1,66}$/;
const NAME = '[$@]?[A-Za-z_][A-Za-z0-9_.]{0,63}';
/** Extensions graphql-yoga adds that carry internals or the request (raw body, stack, HTTP status). */
const DROPPED_EXTENSIONS = new Set(['http', 'originalError', 'unexpected', 'stack', 'exception']);

/** Rewrites of graphql-js messages that carry a value; each keeps the names and drops the value. */
const REWRITES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    new RegExp(`^Variable "(${NAME})" got invalid value .* at "([A-Za-z0-9_.[\\]]{1,200})"; `, 's'),
    (m) => `Variable "${m[1]}" has an invalid value at "${m[2]}".`,
  ],
  [new RegExp(`^Variable "(${NAME})" got invalid value `), (m) => `Variable "${m[1]}" has an invalid value.`],
  [new RegExp(`^Argument "(${NAME})" has invalid value`), (m) => `Argument "${m[1]}" has an invalid value.`],
  [
    /^Expected value of type "([[\]!A-Za-z0-9_]{1,66})", found /,
    (m) => `Expected value of type "${m[1]}": the value given is not one.`,
  ],
  [
    /^Value .* does not exist in "([A-Za-z0-9_]{1,64})" enum/s,
    (m) => `The value given is not a value of enum "${m[1]}".`,
  ],
  [/^Enum "([A-Za-z0-9_]{1,64})" cannot represent/, (m) => `The value given is not a value of enum "${m[1]}".`],
  [/^([A-Za-z0-9_]{1,64}) cannot represent /, (m) => `${m[1]} cannot represent the value given.`],
  [/^Syntax Error: /, () => 'Syntax Error: the document is not valid GraphQL.'],
];

/** The message without values: known value-carrying messages rewritten, suggestions cut, other quoted text masked. */
export function cleanMessage(message: string): string {
  for (const [pattern, rewrite] of REWRITES) {
    const m = pattern.exec(message);
    if (m) return rewrite(m);
  }
  const withoutSuggestion = message.split(/ Did you mean /)[0] ?? '';
  const masked = withoutSuggestion.replace(/"([^"]*)"/g, (quoted, inner: string) =>
    SAFE_QUOTED.test(inner) ? quoted : '"…"',
  );
  return masked.length > MAX_MESSAGE ? `${masked.slice(0, MAX_MESSAGE)}…` : masked;
}

/** Codes graphql-yoga gives to graphql-js errors, whose messages are not ours. */
const FRAMEWORK_CODES = new Set([GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED]);

/** The code of an error we did not raise ourselves: which stage of the request refused it. */
function codeFor(error: GraphQLError, given: string | undefined): string {
  const ext = error.extensions ?? {};
  if (ext.unexpected) return INTERNAL_SERVER_ERROR;
  if (error.message.startsWith('Syntax Error')) return GRAPHQL_PARSE_FAILED;
  if (
    /^Variable "[^"]*" (got invalid value|of required type .* was not provided|of non-null type .* must not be null)/s.test(
      error.message,
    )
  )
    return BAD_USER_INPUT;
  if (given) return given;
  // graphql-yoga marks errors about the HTTP request itself (body, method, params) with a status.
  if (ext.http !== undefined) return BAD_REQUEST;
  return error.path === undefined ? GRAPHQL_VALIDATION_FAILED : INTERNAL_SERVER_ERROR;
}

/** graphql-yoga's request errors, with messages of our own (its invalid-JSON error carries the body). */
function requestMessage(error: GraphQLError): string {
  if (/invalid JSON/i.test(error.message)) return 'The request body is not valid JSON.';
  return cleanMessage(error.message);
}

/** A copy of the error that says nothing the caller sent and no internals. */
export function cleanError(error: GraphQLError): GraphQLError {
  const ext = error.extensions ?? {};
  const given = typeof ext.code === 'string' ? ext.code : undefined;
  const own = given !== undefined && !FRAMEWORK_CODES.has(given) ? given : undefined;
  const code = own ?? codeFor(error, given);
  const extensions: Record<string, unknown> = { code };
  if (own) {
    for (const [k, v] of Object.entries(ext)) if (!DROPPED_EXTENSIONS.has(k)) extensions[k] = v;
  }
  const message =
    code === INTERNAL_SERVER_ERROR && !own
      ? 'Unexpected error.'
      : code === BAD_REQUEST
        ? requestMessage(error)
        : cleanMessage(error.message);
  // Source and positions give the same line and column locations; no original error is attached.
  return new GraphQLError(message, { source: error.source, positions: error.positions, path: error.path, extensions });
}
