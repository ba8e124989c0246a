/**
 * Strict-Transport-Security on every answer in Azure (and wherever NODE_ENV=production): a browser that has
 * reached the service once over HTTPS never tries plain HTTP for it again, so a network attacker cannot strip
 * TLS from the console's sign-in or its GraphQL calls. App Service's "HTTPS only" redirects plain HTTP but
 * sends no such header. The local stack speaks plain HTTP and sends none (browsers ignore it over HTTP anyway).
 * Every HTTP function is registered through `withTransportSecurity` (a test checks functions/).
 */
import { HttpResponse, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import { hostedInAzure } from '../config/settings';
import { isProduction } from '../config/productionSafety';

/** One year, this host and the names below it. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

type Env = Record<string, string | undefined>;

/** Whether the process runs where the production rules apply (Azure, or NODE_ENV=production). */
export function inAzure(env: Env = process.env): boolean {
  return isProduction(env, hostedInAzure(env));
}

/** The answer with Strict-Transport-Security added (its other headers kept, whatever form they have). */
export function withStrictTransportSecurity(
  response: HttpResponseInit | HttpResponse,
): HttpResponseInit | HttpResponse {
  if (response instanceof HttpResponse) {
    response.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  return { ...response, headers: Object.fromEntries(headers) };
}

/** The handler, with Strict-Transport-Security on every answer it gives in Azure. */
export function withTransportSecurity(handler: HttpHandler, env: Env = process.env): HttpHandler {
  return async (request, context) => {
    const response = await handler(request, context);
    return inAzure(env) ? withStrictTransportSecurity(response) : response;
  };
}
