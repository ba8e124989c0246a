import type { Caller } from '../auth/tokenValidator';
import { TokenValidationError } from '../auth/tokenValidator';
import type { Actor } from '../audit/auditLog';
import type { Services } from '../services';
import type { Logger } from '../log/logger';
import { notAuthenticated, notAuthorized } from './errors';

export interface GraphQLContext {
  services: Services;
  log: Logger;
  correlationId: string;
  /** The administrator making the call; throws the GraphQL auth error when there is none. */
  admin(): Promise<{ caller: Caller; actor: Actor }>;
}

export const ADMIN_ROLE = 'Admin';

/** Authenticates once per request, lazily, so a request without operations costs no token check. */
export function createContext(services: Services, authorization: string | null, log: Logger, correlationId: string): GraphQLContext {
  let checked: Promise<{ caller: Caller; actor: Actor }> | undefined;
  const check = async (): Promise<{ caller: Caller; actor: Actor }> => {
    let caller: Caller;
    try {
      caller = await services.tokens.validate(authorization);
    } catch (err) {
      if (err instanceof TokenValidationError) throw notAuthenticated();
      throw err;
    }
    if (!(await services.tenants.isRegistered(caller.tenantId))) throw notAuthenticated();
    if (!caller.roles.includes(ADMIN_ROLE)) throw notAuthorized();
    return { caller, actor: { tenantId: caller.tenantId, kind: caller.kind, id: caller.kind === 'app' ? caller.clientId : (caller.objectId ?? caller.clientId) } };
  };
  return { services, log, correlationId, admin: () => (checked ??= check()) };
}
