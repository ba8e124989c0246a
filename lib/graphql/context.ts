import type { Caller } from '../auth/tokenValidator';
import { TokenValidationError } from '../auth/tokenValidator';
import { logTokenFailure } from '../auth/tokenFailureLog';
import type { Actor } from '../audit/auditLog';
import type { Services } from '../services';
import type { Logger } from '../log/logger';
import type { GraphQLError } from 'graphql';
import { notAuthenticated, notAuthorized } from './errors';

export interface Admin {
  caller: Caller;
  actor: Actor;
}

export interface GraphQLContext {
  services: Services;
  log: Logger;
  correlationId: string;
  /** The administrator making the call (authenticated before the request was parsed). */
  admin(): Promise<Admin>;
  /** Errors reported beside a field's data (a result that is only partly done); added to the response's errors. */
  partialErrors: GraphQLError[];
}

export const ADMIN_ROLE = 'Admin';

/**
 * The administrator of a request, from the Authorization header alone: an application token of a
 * registered tenant with the Admin role (spec §5.2: the application permission; delegated user
 * tokens are refused even when they carry the role). Throws the GraphQL auth error otherwise.
 */
export async function authenticateAdmin(services: Services, authorization: string | null, log: Logger): Promise<Admin> {
  let caller: Caller;
  try {
    // The validator checks the signature with Entra's common keys before it looks up the tenant's registration.
    caller = await services.tokens.validate(authorization);
  } catch (err) {
    if (err instanceof TokenValidationError) {
      logTokenFailure(log, err);
      throw notAuthenticated();
    }
    throw err;
  }
  if (caller.kind !== 'app' || !caller.roles.includes(ADMIN_ROLE)) throw notAuthorized();
  return { caller, actor: { tenantId: caller.tenantId, kind: caller.kind, id: caller.clientId } };
}

/** The context of an authenticated request; without an administrator (GraphiQL's page) every field refuses. */
export function createContext(
  services: Services,
  admin: Admin | undefined,
  log: Logger,
  correlationId: string,
): GraphQLContext {
  return {
    services,
    log,
    correlationId,
    partialErrors: [],
    admin: () => (admin ? Promise.resolve(admin) : Promise.reject(notAuthenticated())),
  };
}
