/**
 * The seam between the Functions host and the SCIM API: authentication, the caller's
 * integration, rate limit, body parsing, and the mapping of every failure to a SCIM
 * Error response. The handlers in scimUsersHandlers.ts and scimDiscoveryHandlers.ts run inside it.
 */
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { services } from '../services';
import { ScimError } from '../scim/errors';
import { TokenValidationError } from '../auth/tokenValidator';
import { logTokenFailure } from '../auth/tokenFailureLog';
import type { Caller } from '../auth/tokenValidator';
import type { ScimIntegrationRecord } from '../integrations/scimIntegrations';
import { StoreError } from '../store/errors';
import type { ScimRefusal } from '../limits/scimAdmission';
import { DirectoryUnavailableError } from '../directory/directoryClient';
import type { Logger } from '../log/logger';
import { noteIntegration, recordRefusal } from './scimRefusals';
import {
  SECURITY_HEADERS,
  correlationIdOf,
  hasRepeatedAuthorization,
  loggerFor,
  BODY_IDLE_MS,
  MIN_BODY_BYTES_PER_SECOND,
  readBodyText,
} from './request';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

export interface ScimPublicCall {
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  header(name: string): string | null;
  /** The parsed JSON body (400 invalidSyntax when it is not JSON; 415 for other media types). */
  body(): Promise<unknown>;
  correlationId: string;
  log: Logger;
}

export interface ScimCall extends ScimPublicCall {
  caller: Caller;
  integration: ScimIntegrationRecord;
}

export interface ScimResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

function respond(result: ScimResult, correlationId: string): HttpResponseInit {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'x-correlation-id': correlationId, ...result.headers };
  if (result.body === undefined) return { status: result.status, headers };
  return {
    status: result.status,
    headers: { 'content-type': SCIM_CONTENT_TYPE, ...headers },
    body: JSON.stringify(result.body),
  };
}

function errorResult(err: ScimError): ScimResult {
  return { status: err.status, body: err.toBody(), headers: err.headers };
}

const isJsonMediaType = (contentType: string | null): boolean => {
  if (!contentType) return true; // clients that omit the header still send JSON
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  return type === 'application/scim+json' || type === 'application/json';
};

async function authenticate(
  request: HttpRequest,
  log: Logger,
): Promise<{ caller: Caller; integration: ScimIntegrationRecord }> {
  const svc = services();
  const unauthorized = (reason: string): ScimError => ScimError.unauthorized(reason, 'Bearer error="invalid_token"');
  let caller: Caller;
  try {
    caller = await svc.tokens.validate(request.headers.get('authorization'));
  } catch (err) {
    if (err instanceof TokenValidationError) {
      await svc.authenticationRefusals.pace('instance');
      if (err.failure === 'missing') throw ScimError.unauthorized('A bearer token is required', 'Bearer');
      logTokenFailure(log, err);
      // One answer for every invalid token: nobody learns from it which organizations are customers.
      throw unauthorized('The bearer token is not valid for this service');
    }
    throw err;
  }
  if (caller.kind !== 'app') throw ScimError.forbidden('The SCIM API accepts application tokens only');
  const integration = await svc.integrations.findByClientId(caller.tenantId, caller.clientId);
  if (integration) noteIntegration(request, integration);
  if (!integration || !integration.enabled) {
    // No side door: a request of a disabled or unknown integration takes from its tenant's SCIM budget and is
    // paced as the tenant's refusals are, before anything (its refusal's record) is written.
    const over = svc.scimAdmission.admitRefused(caller.tenantId);
    await svc.busyRefusals.pace(caller.tenantId);
    if (over) throw ScimError.tooManyRequests(REFUSALS.tenant.rate, over.retryAfterSeconds);
    throw ScimError.forbidden('No enabled SCIM integration of the organization has the application of this token');
  }
  return { caller, integration };
}

/** The detail of a 429, by whose budget is used up. */
const REFUSALS: Record<ScimRefusal['scope'], Record<ScimRefusal['reason'], string>> = {
  integration: {
    rate: 'Too many requests for this integration',
    inFlight: 'Too many requests of this integration are in progress',
  },
  tenant: {
    rate: "Too many requests for the organization's SCIM integrations together",
    inFlight: "Too many requests of the organization's SCIM integrations are in progress",
  },
};

/** Wraps an authenticated SCIM handler: the call carries the caller and its integration. */
export function scimHandler(handler: (call: ScimCall) => Promise<ScimResult>): HttpHandler {
  return wrap(async (request, base) => {
    if (hasRepeatedAuthorization(request)) throw ScimError.badRequest('Send exactly one Authorization header');
    const identity = await authenticate(request, base.log);
    const svc = services();
    const admitted = svc.scimAdmission.admit(identity.caller.tenantId, identity.integration.id);
    if ('refused' in admitted) {
      await svc.busyRefusals.pace(identity.caller.tenantId);
      throw ScimError.tooManyRequests(
        REFUSALS[admitted.refused.scope][admitted.refused.reason],
        admitted.refused.retryAfterSeconds,
      );
    }
    const { release } = admitted;
    try {
      return await handler({
        ...base,
        ...identity,
        log: base.log.child({ tenantId: identity.caller.tenantId, integrationId: identity.integration.id }),
      });
    } finally {
      release();
    }
  });
}

/** Wraps a SCIM endpoint that answers without a token (discovery, RFC 7644 §4). */
export function scimPublicHandler(handler: (call: ScimPublicCall) => Promise<ScimResult>): HttpHandler {
  return wrap((_request, base) => handler(base));
}

function wrap(run: (request: HttpRequest, call: ScimPublicCall) => Promise<ScimResult>): HttpHandler {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const correlationId = correlationIdOf(request, context);
    const log = loggerFor(context, { correlationId });
    let bodyPromise: Promise<unknown> | undefined;
    try {
      const call: ScimPublicCall = {
        method: request.method.toUpperCase(),
        params: request.params,
        query: request.query,
        header: (name) => request.headers.get(name),
        body: () => (bodyPromise ??= parseJsonBody(request)),
        correlationId,
        log,
      };
      const result = await run(request, call);
      log.info('scim request', { method: request.method, status: result.status });
      return respond(result, correlationId);
    } catch (err) {
      const refusal = toScimError(err, log, request.method, correlationId);
      await recordRefusal(request, refusal, { correlationId, log, body: bodyPromise });
      return respond(errorResult(refusal), correlationId);
    }
  };
}

async function parseJsonBody(request: HttpRequest): Promise<unknown> {
  if (!isJsonMediaType(request.headers.get('content-type'))) {
    throw ScimError.unsupportedMediaType('Send the body as application/scim+json or application/json');
  }
  const max = services().settings.scimMaxBodyBytes;
  const text = await readBodyText(request, max);
  if (text === 'tooLarge') throw ScimError.payloadTooLarge(`The body is larger than ${max} bytes`);
  if (text === 'tooSlow')
    throw ScimError.requestTimeout(
      `The body arrived too slowly: send it without pausing ${BODY_IDLE_MS / 1000} s and at ${MIN_BODY_BYTES_PER_SECOND} bytes per second or faster`,
    );
  if (text === 'invalidEncoding') throw ScimError.invalidSyntax('The body is not valid UTF-8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw ScimError.invalidSyntax('The body is not valid JSON');
  }
}

function toScimError(err: unknown, log: Logger, method: string, correlationId: string): ScimError {
  if (err instanceof ScimError) {
    log.info('scim request refused', { method, status: err.status, scimType: err.scimType });
    return err;
  }
  if (err instanceof StoreError && (err.failure === 'throttled' || err.failure === 'unavailable')) {
    const retryAfter = Math.max(1, Math.ceil((err.retryAfterMs ?? 1000) / 1000));
    const busy = 'The service is busy; retry after the given seconds';
    const refusal =
      err.failure === 'throttled'
        ? ScimError.tooManyRequests(busy, retryAfter)
        : ScimError.unavailable(busy, retryAfter);
    log.warn('store unavailable', { method, status: refusal.status, failure: err.failure });
    return refusal;
  }
  if (err instanceof DirectoryUnavailableError) {
    log.warn('directory unavailable', { method, status: 503, directoryStatus: err.status });
    return ScimError.unavailable(
      'The directory is busy; retry after the given seconds',
      Math.max(1, Math.ceil(err.retryAfterMs / 1000)),
    );
  }
  log.error('scim request failed', { method, error: err instanceof Error ? err.name : 'unknown' });
  return ScimError.internal(`Internal error; correlation id ${correlationId}`);
}
