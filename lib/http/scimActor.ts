import type { Actor } from '../audit/auditLog';
import type { UserScope } from '../scim/scope';
import type { ScimCall } from './scimHttp';

/** The integration's scope and the acting application of a SCIM call. */
export function scopeOf(call: ScimCall): { scope: UserScope; actor: Actor } {
  return {
    scope: { tenantId: call.caller.tenantId, integrationId: call.integration.id },
    actor: { tenantId: call.caller.tenantId, kind: 'app', id: call.caller.clientId },
  };
}
