/**
 * GET /health: answers 200 while the app runs and its functions are loaded, without a token and without
 * a store call, for availability monitors and the local stack's banner. It says nothing about a tenant or
 * a dependency, so it needs no protection and costs nothing.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { SECURITY_HEADERS } from './request';

export const HEALTH_BODY = { status: 'ok', service: 'business-identity-provisioning' } as const;

export async function handleHealth(_request: HttpRequest, _context: InvocationContext): Promise<HttpResponseInit> {
  return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': 'application/json' }, jsonBody: HEALTH_BODY };
}
