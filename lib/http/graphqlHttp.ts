import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { services } from '../services';
import { createContext } from '../graphql/context';
import { createGraphQLServer, type GraphQLServer } from '../graphql/server';
import { SECURITY_HEADERS, correlationIdOf, loggerFor, readBodyText } from './request';

let server: GraphQLServer | undefined;

function jsonError(status: number, message: string, correlationId: string): HttpResponseInit {
  return {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'x-correlation-id': correlationId },
    body: JSON.stringify({ errors: [{ message, extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' } }] }),
  };
}

/** The error codes of a GraphQL JSON response, for the request log (never messages or data). */
function errorCodesOf(contentType: string | undefined, body: Uint8Array): string | undefined {
  if (!contentType?.includes('json') || body.length > 1_000_000) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { errors?: Array<{ extensions?: { code?: unknown } }> };
    const codes = [...new Set((parsed.errors ?? []).map((e) => (typeof e.extensions?.code === 'string' ? e.extensions.code : 'UNEXPECTED')))];
    return codes.length ? codes.join(',') : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a GraphQL request through graphql-yoga inside the Functions handler. */
export async function handleGraphQL(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const correlationId = correlationIdOf(request, context);
  const log = loggerFor(context, { correlationId });
  const svc = services();
  server ??= createGraphQLServer({ introspection: svc.settings.graphqlIntrospection, maxBodyBytes: svc.settings.graphqlMaxBodyBytes });

  let body: string | undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const text = await readBodyText(request, svc.settings.graphqlMaxBodyBytes);
    if (text === 'tooLarge') return jsonError(413, `The request body is larger than ${svc.settings.graphqlMaxBodyBytes} bytes`, correlationId);
    if (text === 'invalidEncoding') return jsonError(400, 'The request body is not valid UTF-8', correlationId);
    body = text;
  }
  const headers = new Headers();
  request.headers.forEach((value, key) => headers.set(key, value));
  const ctx = createContext(svc, request.headers.get('authorization'), log, correlationId);
  const response = await server.fetch(request.url, { method: request.method, headers, body }, ctx);
  const out: Record<string, string> = { ...SECURITY_HEADERS, 'x-correlation-id': correlationId };
  response.headers.forEach((value, key) => (out[key] = value));
  // GraphiQL (local only) needs to run its own scripts.
  if (out['content-security-policy'] && out['content-type']?.startsWith('text/html')) delete out['content-security-policy'];
  const bytes = new Uint8Array(await response.arrayBuffer());
  log.info('graphql request', { status: response.status, errorCodes: errorCodesOf(out['content-type'], bytes) });
  return { status: response.status, headers: out, body: bytes };
}
