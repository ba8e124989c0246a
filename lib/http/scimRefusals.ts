/**
 * Hands every SCIM request refused with a 4xx (but 401: no integration is known then) to its integration's
 * activity (lib/activity/refusals.ts). The admission notes the integration it found, enabled or not; the
 * error mapping in scimHttp.ts calls recordRefusal once the refusal is decided, before it answers.
 */
import type { HttpRequest } from '@azure/functions';
import type { ScimIntegrationRecord } from '../integrations/scimIntegrations';
import type { ScimError } from '../scim/errors';
import type { Logger } from '../log/logger';
import { services } from '../services';

const integrationOf = new WeakMap<HttpRequest, ScimIntegrationRecord>();

/** The integration of the request's token (also a disabled one, whose requests are refused 403). */
export function noteIntegration(request: HttpRequest, integration: ScimIntegrationRecord): void {
  integrationOf.set(request, integration);
}

/** Records the refusal for the request's integration; never throws, and waits for the store only briefly. */
export async function recordRefusal(
  request: HttpRequest,
  refusal: ScimError,
  call: { correlationId: string; log: Logger; body: Promise<unknown> | undefined },
): Promise<void> {
  if (refusal.status < 400 || refusal.status >= 500 || refusal.status === 401) return;
  const integration = integrationOf.get(request);
  if (!integration) return;
  // The body counts only when the request's handling read it; a refusal never reads it for this.
  const body = call.body ? await call.body.catch(() => undefined) : undefined;
  const id = request.params.id;
  await services().refusals.record(
    {
      tenantId: integration.tenantId,
      integrationId: integration.id,
      method: request.method,
      namedUser: id !== undefined && id !== '',
      status: refusal.status,
      ...(refusal.scimType ? { scimType: refusal.scimType } : {}),
      detail: refusal.detail,
      body,
      ...(id && refusal.status !== 404 ? { identityId: id } : {}),
      correlationId: call.correlationId,
    },
    call.log,
  );
}
