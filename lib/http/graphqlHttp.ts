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

/**
 * Spec §7.2 rule 1: a GraphQL failure is HTTP 200 with an errors list. Refusals of the HTTP request
 * itself, before GraphQL is involved, keep their status: an oversized body (413), a body too slow (408),
 * repeated credentials (400).
 */
function errorResponse(
  status: 200 | 400 | 408 | 413,
  errors: GraphQLError[],
  correlationId: string,
  withNullData: boolean,
): HttpResponseInit {
  const body = withNullData ? { errors: errors.map(cleanError), data: null } : { errors: errors.map(cleanError) };
  return {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': JSON_TYPE, 'x-correlation-id': correlationId },
    body: JSON.stringify(body),
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
async function admin(request: HttpRequest, svc: Services, log: Logger): Promise<Admin | GraphQLError> {
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
  const log = loggerFor(context, { correlationId });
  const svc = services();
  const yoga = (server ??= createGraphQLServer({
    introspection: svc.settings.graphqlIntrospection,
    maxBodyBytes: svc.settings.graphqlMaxBodyBytes,
    maxQueryBytes: svc.settings.graphqlMaxQueryBytes,
  }));
  const origins = svc.settings.graphqlCorsOrigins;
  const done = (response: HttpResponseInit, errorCodes: string | undefined): HttpResponseInit => {
    log.info('graphql request', { status: response.status ?? 200, errorCodes });
    const cors = corsHeaders(request, origins);
    return Object.keys(cors).length
      ? { ...response, headers: { ...(response.headers as Record<string, string>), ...cors } }
      : response;
  };

  if (request.method === 'OPTIONS')
    return done(preflight(request, origins, { ...SECURITY_HEADERS, 'x-correlation-id': correlationId }), undefined);

  if (hasRepeatedAuthorization(request))
    return done(
      errorResponse(400, [badRequest('Send exactly one Authorization header')], correlationId, false),
      CODE.BAD_REQUEST,
    );
  if (isGraphiQLPage(request, svc))
    return done(
      { status: 302, headers: { ...SECURITY_HEADERS, location: GRAPHIQL_PATH, 'x-correlation-id': correlationId } },
      undefined,
    );
  const found = await admin(request, svc, log);
  if (found instanceof GraphQLError) {
    if (found.extensions.code === CODE.AUTH_NOT_AUTHENTICATED) await svc.authenticationRefusals.pace('instance');
    return done(errorResponse(200, [found], correlationId, true), String(found.extensions.code));
  }
  const release = tenantPlace(svc, found.caller.tenantId);
  if (release instanceof GraphQLError) {
    await svc.busyRefusals.pace(`graphql:${found.caller.tenantId}`);
    return done(errorResponse(200, [release], correlationId, true), String(release.extensions.code));
  }
  const bodyBytes = svc.graphqlBodyBytes.hold(found.caller.tenantId);
  try {
    return await serve(yoga, request, svc, found, log, correlationId, done, bodyBytes);
  } finally {
    bodyBytes.release();
    release();
  }
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

/** Executes the request with graphql-yoga, in this process (every body is small: see lib/http/graphqlBody.ts). */
async function execute(
  yoga: GraphQLServer,
  request: HttpRequest,
  body: string | undefined,
  svc: Services,
  who: Admin,
  log: Logger,
  correlationId: string,
): Promise<YogaAnswer> {
  const headers = new Headers();
  request.headers.forEach((value, key) => headers.append(key, value));
  const response = await yoga.fetch(
    request.url,
    { method: request.method, headers, body },
    createContext(svc, who, log, correlationId),
  );
  const answerHeaders: Array<[string, string]> = [];
  response.headers.forEach((value, key) => answerHeaders.push([key, value]));
  return { status: response.status, headers: answerHeaders, body: new Uint8Array(await response.arrayBuffer()) };
}

/** Reads the body within its bounds (lib/http/graphqlBody.ts) and executes the request. */
async function serve(
  yoga: GraphQLServer,
  request: HttpRequest,
  svc: Services,
  who: Admin,
  log: Logger,
  correlationId: string,
  done: (response: HttpResponseInit, errorCodes: string | undefined) => HttpResponseInit,
  bodyBytes: BodyBytesHold,
): Promise<HttpResponseInit> {
  const maxQuery = svc.settings.graphqlMaxQueryBytes;
  if ((request.query.get('query')?.length ?? 0) > maxQuery)
    return done(errorResponse(413, [queryTooLarge(maxQuery)], correlationId, false), CODE.QUERY_TOO_LARGE);
  const body = await readGraphQLBody(request, svc.settings, bodyBytes);
  if ('refusal' in body) {
    const { status, error, withNullData } = body.refusal;
    return done(errorResponse(status, [error], correlationId, withNullData), String(error.extensions.code));
  }
  const response = await execute(yoga, request, body.text, svc, who, log, correlationId);
  const out: Record<string, string> = { ...SECURITY_HEADERS, 'x-correlation-id': correlationId };
  // Names lower-cased, so the service's own security headers are replaced, never doubled in another case.
  for (const [key, value] of response.headers) out[key.toLowerCase()] = value;
  const bytes = response.body;
  const errorCodes = errorCodesOf(out['content-type'], bytes);
  if (response.status !== 200 && response.status !== 413) {
    // What graphql-yoga answers without an execution result (media type not supported, not acceptable, method).
    if (!errorCodes)
      return done(
        errorResponse(
          200,
          [badRequest(`The request cannot be served (HTTP ${response.status}): send a POST with a JSON body`)],
          correlationId,
          false,
        ),
        CODE.BAD_REQUEST,
      );
    return done({ status: 200, headers: out, body: bytes }, errorCodes);
  }
  return done({ status: response.status, headers: out, body: bytes }, errorCodes);
}
