import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { GraphQLError } from 'graphql';
import { services, type Services } from '../services';
import { authenticateAdmin, createContext, type Admin } from '../graphql/context';
import { createGraphQLServer, type GraphQLServer } from '../graphql/server';
import { AUTH_NOT_AUTHENTICATED, serviceBusy, toGraphQLError } from '../graphql/errors';
import { IN_FLIGHT_RETRY_AFTER_SECONDS } from './inFlight';
import { BAD_REQUEST, cleanError } from '../graphql/errorHygiene';
import { QueryTextMeter } from '../graphql/queryTextMeter';
import { QUERY_TOO_LARGE, queryTooLarge } from '../graphql/limits';
import type { Logger } from '../log/logger';
import {
  SECURITY_HEADERS,
  correlationIdOf,
  hasRepeatedAuthorization,
  loggerFor,
  BODY_IDLE_MS,
  MIN_BODY_BYTES_PER_SECOND,
  readBodyText,
  sinkFor,
} from './request';
import { BulkThreadFailure, type BulkAnswer } from '../graphql/bulkThread';
import { corsHeaders, preflight } from './cors';

let server: GraphQLServer | undefined;

const JSON_TYPE = 'application/json; charset=utf-8';
/** Seconds a request refused for the instance's body bytes is told to wait (a large import takes a while). */
const BODY_BYTES_RETRY_AFTER_SECONDS = 10;

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

const badRequest = (message: string, code = BAD_REQUEST) => new GraphQLError(message, { extensions: { code } });

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

/** A JSON request body (graphql-yoga's default when the content type is missing). */
function isJsonBody(contentType: string | null): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === undefined || type === '' || type === 'application/json' || type === 'application/graphql+json';
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
    return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
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
      BAD_REQUEST,
    );
  if (isGraphiQLPage(request, svc))
    return done(
      { status: 302, headers: { ...SECURITY_HEADERS, location: GRAPHIQL_PATH, 'x-correlation-id': correlationId } },
      undefined,
    );
  const found = await admin(request, svc, log);
  if (found instanceof GraphQLError) {
    if (found.extensions.code === AUTH_NOT_AUTHENTICATED) await svc.authenticationRefusals.pace('instance');
    return done(errorResponse(200, [found], correlationId, true), String(found.extensions.code));
  }
  const release = tenantPlace(svc, found.caller.tenantId);
  if (release instanceof GraphQLError) {
    await svc.busyRefusals.pace(`graphql:${found.caller.tenantId}`);
    return done(errorResponse(200, [release], correlationId, true), String(release.extensions.code));
  }
  const bodyBytes = svc.graphqlBodyBytes.hold();
  try {
    return await serve(yoga, request, svc, found, log, correlationId, done, context, bodyBytes);
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

/**
 * Executes the request with graphql-yoga: a body of GRAPHQL_BULK_THREAD_BYTES or more on the bulk thread
 * (see lib/graphql/bulkThread.ts), anything smaller here.
 */
async function execute(
  yoga: GraphQLServer,
  request: HttpRequest,
  body: string | undefined,
  svc: Services,
  who: Admin,
  log: Logger,
  correlationId: string,
  context: InvocationContext,
): Promise<BulkAnswer> {
  const headers: Array<[string, string]> = [];
  request.headers.forEach((value, key) => headers.push([key, value]));
  const threshold = svc.settings.graphqlBulkThreadBytes;
  if (body !== undefined && threshold > 0 && body.length >= threshold) {
    return svc.bulkThread.run(
      {
        url: request.url,
        method: request.method,
        headers,
        body,
        admin: who,
        correlationId,
        functionName: context.functionName,
      },
      { log: sinkFor(context), takeBulkBudget: (tenantId, units) => svc.bulkBudget.takeUnits(tenantId, units) },
    );
  }
  const response = await yoga.fetch(
    request.url,
    { method: request.method, headers: new Headers(headers), body },
    createContext(svc, who, log, correlationId),
  );
  const answerHeaders: Array<[string, string]> = [];
  response.headers.forEach((value, key) => answerHeaders.push([key, value]));
  return { status: response.status, headers: answerHeaders, body: new Uint8Array(await response.arrayBuffer()) };
}

/** Reads the body (its bytes held in the instance's budget, lib/http/bodyBytes.ts, by the caller) and executes the request. */
async function serve(
  yoga: GraphQLServer,
  request: HttpRequest,
  svc: Services,
  who: Admin,
  log: Logger,
  correlationId: string,
  done: (response: HttpResponseInit, errorCodes: string | undefined) => HttpResponseInit,
  context: InvocationContext,
  bodyBytes: ReturnType<Services['graphqlBodyBytes']['hold']>,
): Promise<HttpResponseInit> {
  const maxQuery = svc.settings.graphqlMaxQueryBytes;
  if ((request.query.get('query')?.length ?? 0) > maxQuery)
    return done(errorResponse(413, [queryTooLarge(maxQuery)], correlationId, false), QUERY_TOO_LARGE);
  let body: string | undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    // In a JSON body only the query text is capped (variables carry imports); any other body is the query.
    const json = isJsonBody(request.headers.get('content-type'));
    const max = json ? svc.settings.graphqlMaxBodyBytes : maxQuery;
    const busy = () => {
      const err = serviceBusy(BODY_BYTES_RETRY_AFTER_SECONDS);
      return done(errorResponse(200, [err], correlationId, true), String(err.extensions.code));
    };
    // The declared length is held before anything is read; a body without one holds its bytes as they come.
    const declared = Number(request.headers.get('content-length') ?? '');
    const known = Number.isSafeInteger(declared) && declared > 0 && declared <= max;
    if (known && !bodyBytes.grow(declared)) return busy();
    let outOfBytes = false;
    const meter = new QueryTextMeter(maxQuery);
    const text = await readBodyText(request, max, {
      refuseAfter: (chunk) => {
        if (!known && !bodyBytes.grow(chunk.byteLength)) return (outOfBytes = true);
        return json && meter.exceeded(chunk);
      },
    });
    if (outOfBytes) return busy();
    if (text === 'refused' || (text === 'tooLarge' && !json))
      return done(errorResponse(413, [queryTooLarge(maxQuery)], correlationId, false), QUERY_TOO_LARGE);
    if (text === 'tooLarge')
      return done(
        errorResponse(
          413,
          [badRequest(`The request body is larger than ${max} bytes`, 'PAYLOAD_TOO_LARGE')],
          correlationId,
          false,
        ),
        'PAYLOAD_TOO_LARGE',
      );
    if (text === 'tooSlow') {
      const late = badRequest(
        `The request body arrived too slowly: send it without pausing ${BODY_IDLE_MS / 1000} s and at ${MIN_BODY_BYTES_PER_SECOND} bytes per second or faster`,
        'REQUEST_TIMEOUT',
      );
      return done(errorResponse(408, [late], correlationId, false), 'REQUEST_TIMEOUT');
    }
    if (text === 'invalidEncoding')
      return done(
        errorResponse(200, [badRequest('The request body is not valid UTF-8')], correlationId, false),
        BAD_REQUEST,
      );
    body = text;
  }
  let response: BulkAnswer;
  try {
    response = await execute(yoga, request, body, svc, who, log, correlationId, context);
  } catch (err) {
    if (!(err instanceof BulkThreadFailure)) throw err;
    log.error('graphql request failed on the bulk thread');
    const unexpected = new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    return done(errorResponse(200, [unexpected], correlationId, true), 'INTERNAL_SERVER_ERROR');
  }
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
        BAD_REQUEST,
      );
    return done({ status: 200, headers: out, body: bytes }, errorCodes);
  }
  return done({ status: response.status, headers: out, body: bytes }, errorCodes);
}
