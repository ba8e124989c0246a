import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { GraphQLError } from 'graphql';
import { services, type Services } from '../services';
import { authenticateAdmin, createContext, type Admin } from '../graphql/context';
import { createGraphQLServer, type GraphQLServer } from '../graphql/server';
import { serviceBusy, toGraphQLError } from '../graphql/errors';
import { IN_FLIGHT_RETRY_AFTER_SECONDS } from '../limits/inFlight';
import { cleanError } from '../graphql/errorHygiene';
import { queryTooLarge } from '../graphql/limits';
import type { Logger } from '../log/logger';
import { SECURITY_HEADERS, correlationIdOf, hasRepeatedAuthorization, loggerFor } from './request';
import type { BodyBytesHold } from '../limits/bodyBytes';
import { readGraphQLBody } from './graphqlBody';
import { corsHeaders, preflight } from './cors';
import { CODE, type ErrorCode } from '../util/errorCodes';

let server: GraphQLServer | undefined;

const JSON_TYPE = 'application/json; charset=utf-8';

/** One GraphQL request as it goes through the steps below. */
interface Call {
  request: HttpRequest;
  svc: Services;
  log: Logger;
  correlationId: string;
}

/** A step's answer: the response, and the error codes it carries (for the request log). */
interface Answer {
  response: HttpResponseInit;
  errorCodes?: string;
}

/**
 * Spec §7.2 rule 1: a GraphQL failure is HTTP 200 with an errors list. Refusals of the HTTP request
 * itself, before GraphQL is involved, keep their status: an oversized body (413), a body too slow (408),
 * repeated credentials (400).
 */
function refused(call: Call, status: 200 | 400 | 408 | 413, error: GraphQLError, withNullData: boolean): Answer {
  const errors = [cleanError(error)];
  return {
    response: {
      status,
      headers: { ...SECURITY_HEADERS, 'content-type': JSON_TYPE, 'x-correlation-id': call.correlationId },
      body: JSON.stringify(withNullData ? { errors, data: null } : { errors }),
    },
    errorCodes: String(error.extensions.code),
  };
}

const badRequest = (message: string, code: ErrorCode = CODE.BAD_REQUEST) =>
  new GraphQLError(message, { extensions: { code } });

/** The error codes of a GraphQL JSON response, for the request log (never messages or data). */
function errorCodesOf(contentType: string | undefined, body: Uint8Array): string | undefined {
  if (!contentType?.includes('json') || body.length > 1_000_000) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as {
      errors?: Array<{ extensions?: { code?: unknown } }>;
    };
    const codes = [
      ...new Set(
        (parsed.errors ?? []).map((e) => (typeof e.extensions?.code === 'string' ? e.extensions.code : 'UNEXPECTED')),
      ),
    ];
    return codes.length ? codes.join(',') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A browser opening /graphql (local stack, introspection on) is sent to GraphiQL, which is served with the
 * console's files under the console's CSP and signs in like the console. Header names are case-insensitive.
 */
function isGraphiQLPage(request: HttpRequest, svc: Services): boolean {
  return (
    svc.settings.graphqlIntrospection &&
    request.method === 'GET' &&
    !request.query.has('query') &&
    (request.headers.get('accept') ?? '').toLowerCase().includes('text/html')
  );
}

export const GRAPHIQL_PATH = '/console/graphiql.html';

/** The administrator, or the GraphQL error that answers the request; decided from the headers alone. */
async function admin({ request, svc, log }: Call): Promise<Admin | GraphQLError> {
  try {
    return await authenticateAdmin(svc, request.headers.get('authorization'), log);
  } catch (err) {
    const mapped = toGraphQLError(err);
    if (mapped instanceof GraphQLError) return mapped;
    log.error('graphql authentication failed', { error: err instanceof Error ? err.name : 'unknown' });
    return new GraphQLError('Unexpected error.', { extensions: { code: CODE.INTERNAL_SERVER_ERROR } });
  }
}

/**
 * Runs a GraphQL request through graphql-yoga inside the Functions handler. The caller is
 * authenticated from the Authorization header before the body is read: a request without an
 * administrator's token is answered without reading, parsing or validating its body, so only
 * administrators can make the service parse a large document.
 */
export async function handleGraphQL(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const correlationId = correlationIdOf(request, context);
  const call: Call = { request, svc: services(), log: loggerFor(context, { correlationId }), correlationId };
  const { response, errorCodes } = await answer(call);
  call.log.info('graphql request', { status: response.status ?? 200, errorCodes });
  const cors = corsHeaders(request, call.svc.settings.graphqlCorsOrigins);
  return Object.keys(cors).length
    ? { ...response, headers: { ...(response.headers as Record<string, string>), ...cors } }
    : response;
}

/** The steps, in order: what is answered from the request line and headers, the caller, its place, the body. */
async function answer(call: Call): Promise<Answer> {
  const early = beforeAuthentication(call);
  if (early) return early;
  const who = await admin(call);
  if (who instanceof GraphQLError) {
    if (who.extensions.code === CODE.AUTH_NOT_AUTHENTICATED) await call.svc.authenticationRefusals.pace('instance');
    return refused(call, 200, who, true);
  }
  const tenantId = who.caller.tenantId;
  const release = tenantPlace(call.svc, tenantId);
  if (release instanceof GraphQLError) {
    await call.svc.busyRefusals.pace(`graphql:${tenantId}`);
    return refused(call, 200, release, true);
  }
  const bodyBytes = call.svc.graphqlBodyBytes.hold(tenantId);
  try {
    return await serve(call, who, bodyBytes);
  } finally {
    bodyBytes.release();
    release();
  }
}

/** What is answered before the caller is known: a CORS preflight, repeated credentials, a browser sent to GraphiQL. */
function beforeAuthentication(call: Call): Answer | undefined {
  const { request, svc, correlationId } = call;
  if (request.method === 'OPTIONS') {
    const headers = { ...SECURITY_HEADERS, 'x-correlation-id': correlationId };
    return { response: preflight(request, svc.settings.graphqlCorsOrigins, headers) };
  }
  if (hasRepeatedAuthorization(request))
    return refused(call, 400, badRequest('Send exactly one Authorization header'), false);
  if (isGraphiQLPage(request, svc)) {
    const headers = { ...SECURITY_HEADERS, location: GRAPHIQL_PATH, 'x-correlation-id': correlationId };
    return { response: { status: 302, headers } };
  }
  return undefined;
}

/**
 * The tenant's share of the instance: a budget of requests per minute and a bound on requests in flight.
 * Returns the release of the request's place, or the SERVICE_BUSY error that answers it.
 */
function tenantPlace(svc: Services, tenantId: string): (() => void) | GraphQLError {
  const wait = svc.graphqlRateLimiter.take(tenantId);
  if (wait > 0) return serviceBusy(wait);
  return svc.inFlight.tryAcquire(`graphql:${tenantId}`) ?? serviceBusy(IN_FLIGHT_RETRY_AFTER_SECONDS);
}

/** graphql-yoga's answer, as bytes. */
interface YogaAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

/** The process's graphql-yoga server, made on first use. */
function yogaServer(svc: Services): GraphQLServer {
  return (server ??= createGraphQLServer({
    introspection: svc.settings.graphqlIntrospection,
    maxBodyBytes: svc.settings.graphqlMaxBodyBytes,
    maxQueryBytes: svc.settings.graphqlMaxQueryBytes,
  }));
}

/** Executes the request with graphql-yoga, in this process (every body is small: see lib/http/graphqlBody.ts). */
async function execute(call: Call, who: Admin, body: string | undefined): Promise<YogaAnswer> {
  const { request, svc, log, correlationId } = call;
  const headers = new Headers();
  request.headers.forEach((value, key) => headers.append(key, value));
  const response = await yogaServer(svc).fetch(
    request.url,
    { method: request.method, headers, body },
    createContext(svc, who, log, correlationId),
  );
  const answerHeaders: Array<[string, string]> = [];
  response.headers.forEach((value, key) => answerHeaders.push([key, value]));
  return { status: response.status, headers: answerHeaders, body: new Uint8Array(await response.arrayBuffer()) };
}

/** Reads the body within its bounds (lib/http/graphqlBody.ts) and executes the request. */
async function serve(call: Call, who: Admin, bodyBytes: BodyBytesHold): Promise<Answer> {
  const { request, svc } = call;
  const maxQuery = svc.settings.graphqlMaxQueryBytes;
  if ((request.query.get('query')?.length ?? 0) > maxQuery) return refused(call, 413, queryTooLarge(maxQuery), false);
  const body = await readGraphQLBody(request, svc.settings, bodyBytes);
  if ('refusal' in body) {
    const { status, error, withNullData } = body.refusal;
    return refused(call, status, error, withNullData);
  }
  return answerOf(call, await execute(call, who, body.text));
}

/** graphql-yoga's answer with the service's headers; one without an execution result is a BAD_REQUEST error. */
function answerOf(call: Call, response: YogaAnswer): Answer {
  const out: Record<string, string> = { ...SECURITY_HEADERS, 'x-correlation-id': call.correlationId };
  // Names lower-cased, so the service's own security headers are replaced, never doubled in another case.
  for (const [key, value] of response.headers) out[key.toLowerCase()] = value;
  const errorCodes = errorCodesOf(out['content-type'], response.body);
  if (response.status === 200 || response.status === 413)
    return { response: { status: response.status, headers: out, body: response.body }, errorCodes };
  // What graphql-yoga answers without an execution result (media type not supported, not acceptable, method).
  if (!errorCodes) {
    const message = `The request cannot be served (HTTP ${response.status}): send a POST with a JSON body`;
    return refused(call, 200, badRequest(message), false);
  }
  return { response: { status: 200, headers: out, body: response.body }, errorCodes };
}
