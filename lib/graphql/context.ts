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
/** The delegated scope the administrator console asks for. */
export const CONSOLE_SCOPE = 'Console.Admin';

/** An app token with the Admin role, or a console user token: the Console.Admin scope and the Admin role assigned to the user. */
export function isAdministrator(caller: Caller): boolean {
  if (!caller.roles.includes(ADMIN_ROLE)) return false;
  if (caller.kind === 'app') return true;
  return caller.scopes.includes(CONSOLE_SCOPE) && caller.objectId !== undefined;
}

/**
 * The administrator of a request, from the Authorization header alone: an application token of a
 * registered tenant with the Admin role (spec §5.2: the application permission), or a user signed in
 * to the administrator console (delegated scope Console.Admin and the Admin app role assigned to the
 * user). Every other user token is refused. Throws the GraphQL auth error otherwise.
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
  if (!isAdministrator(caller)) throw notAuthorized();
  const id = caller.kind === 'user' ? (caller.objectId ?? caller.clientId) : caller.clientId;
  return {
    caller,
    actor: {
      tenantId: caller.tenantId,
      kind: caller.kind,
      id,
      ...(caller.name !== undefined ? { name: caller.name } : {}),
    },
  };
}

/** The context of an authenticated request; without an administrator every field refuses. */
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
