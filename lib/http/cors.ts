/**
 * Cross-origin calls of /graphql: none unless GRAPHQL_CORS_ORIGINS lists the caller's origin. The console is
 * served by the service itself (same origin), so by default no Access-Control header is ever sent and a page
 * of another origin cannot read an answer. A listed origin gets its own name back (never `*`, never
 * credentials: the bearer token travels in a header, which CORS does not count as a credential).
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';

const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The request's Origin when it is one of the allowed ones. */
function allowedOrigin(request: HttpRequest, allowed: readonly string[]): string | undefined {
  const origin = request.headers.get('origin');
  return origin !== null && allowed.includes(origin) ? origin : undefined;
}

/** The CORS headers of an answer to the request: none unless its origin is allowed. */
export function corsHeaders(request: HttpRequest, allowed: readonly string[]): Record<string, string> {
  const origin = allowedOrigin(request, allowed);
  if (!origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'x-correlation-id',
    vary: 'Origin',
  };
}

/** The answer to a preflight (OPTIONS): 204, with permission only for an allowed origin. */
export function preflight(request: HttpRequest, allowed: readonly string[], headers: Record<string, string>) {
  const origin = allowedOrigin(request, allowed);
  const response: HttpResponseInit = { status: 204, headers: { ...headers } };
  if (origin)
    response.headers = {
      ...headers,
      ...corsHeaders(request, allowed),
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'authorization, content-type, accept, x-correlation-id',
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
    };
  return response;
}
