/**
 * Error messages of graphql-js and graphql-yoga quote what the caller sent: literal values
 * ("Int cannot represent non-integer value: …"), variable values, the raw body of invalid JSON
 * (`extensions.originalError`), and "Did you mean …?" suggestions that describe the schema.
 * Every error leaving the GraphQL endpoint goes through `cleanError`: the message keeps names
 * of a safe shape only, the extensions keep the code, and nothing says what was sent.
 */
import { GraphQLError } from 'graphql';
import { hasNumberRun } from '../util/numberRuns';
import { CODE, YOGA_OPERATION_RESOLUTION_FAILURE } from '../util/errorCodes';

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
  // A name the caller made up (an unknown field, variable or fragment) is still input: one with a run of
  // six digits could be a personal number, so it is masked like any other value.
  const masked = withoutSuggestion.replace(/"([^"]*)"/g, (quoted, inner: string) =>
    SAFE_QUOTED.test(inner) && !hasNumberRun(inner) ? quoted : '"…"',
  );
  return masked.length > MAX_MESSAGE ? `${masked.slice(0, MAX_MESSAGE)}…` : masked;
}

/** Codes graphql-yoga gives to graphql-js errors, whose messages are not ours. */
const FRAMEWORK_CODES = new Set<string>([CODE.GRAPHQL_PARSE_FAILED, CODE.GRAPHQL_VALIDATION_FAILED]);

/** The code of an error we did not raise ourselves: which stage of the request refused it. */
function codeFor(error: GraphQLError, given: string | undefined): string {
  const ext = error.extensions ?? {};
  if (ext.unexpected) return CODE.INTERNAL_SERVER_ERROR;
  if (error.message.startsWith('Syntax Error')) return CODE.GRAPHQL_PARSE_FAILED;
  if (
    /^Variable "[^"]*" (got invalid value|of required type .* was not provided|of non-null type .* must not be null)/s.test(
      error.message,
    )
  )
    return CODE.BAD_USER_INPUT;
  if (given) return given;
  // graphql-yoga marks errors about the HTTP request itself (body, method, params) with a status.
  if (ext.http !== undefined) return CODE.BAD_REQUEST;
  return error.path === undefined ? CODE.GRAPHQL_VALIDATION_FAILED : CODE.INTERNAL_SERVER_ERROR;
}

/** The message of a request that cannot be parsed (lib/graphql/requestErrors.ts). */
export const MALFORMED_PARAMETERS =
  'The request parameters are not valid: variables and extensions must be JSON objects.';
const MALFORMED_REQUEST = 'The request is not a valid GraphQL request.';

/**
 * graphql-yoga's own request errors (the body, the parameters, the method) quote what was sent: a parameter's
 * name ("Unexpected parameter …"), the body of invalid JSON. Each known one gets a message of ours that names
 * nothing the caller chose; any other says only that the request is not valid.
 */
const REQUEST_MESSAGES: Array<[RegExp, string | ((m: RegExpExecArray) => string)]> = [
  [/invalid JSON/i, 'The request body is not valid JSON.'],
  [/^Unexpected parameter /, 'The request has a parameter other than query, variables, operationName and extensions.'],
  [/^Expected "(query|variables|extensions)" param /, (m) => `The "${m[1]}" parameter has the wrong type.`],
  [
    /^(POST body is expected to be object|Expected params to be an object|Invalid "params")/,
    'The request body must be a JSON object.',
  ],
  [/^Must provide query string\.$/, 'Must provide query string.'],
  [/^Batching is (not supported|limited)/, 'Batching is not supported: send one operation per request.'],
  [/^GraphQL only supports GET and POST requests\.$/, 'GraphQL only supports GET and POST requests.'],
  [/^Can only perform a mutation operation from a POST request\.$/, 'Send a mutation with POST.'],
  [
    /^Could not determine what operation to execute\.$/,
    'Could not determine what operation to execute: name one that the document defines (operationName).',
  ],
];

function requestMessage(message: string): string {
  if (message === MALFORMED_PARAMETERS) return message;
  for (const [pattern, text] of REQUEST_MESSAGES) {
    const m = pattern.exec(message);
    if (m) return typeof text === 'string' ? text : text(m);
  }
  return MALFORMED_REQUEST;
}

/** Codes graphql-yoga gives to errors about the HTTP request itself (it also marks them with an HTTP status). */
const FRAMEWORK_REQUEST_CODES = new Set<string>([CODE.BAD_REQUEST, YOGA_OPERATION_RESOLUTION_FAILURE]);

/** An error graphql-yoga raised about the request (body, parameters, method), not about the document. */
function isFrameworkRequestError(error: GraphQLError, given: string | undefined): boolean {
  return error.extensions?.http !== undefined && FRAMEWORK_REQUEST_CODES.has(codeFor(error, given));
}

/** A copy of the error that says nothing the caller sent and no internals. */
export function cleanError(error: GraphQLError): GraphQLError {
  const ext = error.extensions ?? {};
  const given = typeof ext.code === 'string' ? ext.code : undefined;
  if (isFrameworkRequestError(error, given))
    return new GraphQLError(requestMessage(error.message), { extensions: { code: CODE.BAD_REQUEST } });
  const own = given !== undefined && !FRAMEWORK_CODES.has(given) ? given : undefined;
  const code = own ?? codeFor(error, given);
  const extensions: Record<string, unknown> = { code };
  if (own) {
    for (const [k, v] of Object.entries(ext)) if (!DROPPED_EXTENSIONS.has(k)) extensions[k] = v;
  }
  const message = code === CODE.INTERNAL_SERVER_ERROR && !own ? 'Unexpected error.' : cleanMessage(error.message);
  // Source and positions give the same line and column locations; no original error is attached.
  return new GraphQLError(message, { source: error.source, positions: error.positions, path: error.path, extensions });
}
