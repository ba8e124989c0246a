/**
 * SCIM protocol errors (RFC 7644 §3.12). `detail` names the attribute, never its value.
 *
 * The constructor is protected: an error is made by the factory of its meaning, which fixes its status and
 * scimType, so only the pairs RFC 7644 §3.12 allows can be written (a scimType other than `uniqueness` goes
 * with 400; the statuses without a scimType carry none).
 */
export type ScimType =
  'invalidValue' | 'invalidSyntax' | 'invalidFilter' | 'mutability' | 'uniqueness' | 'invalidPath' | 'noTarget';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

const retryAfter = (seconds: number): Record<string, string> => ({ 'retry-after': String(seconds) });

export class ScimError extends Error {
  protected constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ScimError';
  }

  /** The same kind of error (status, scimType, headers) with another detail, e.g. one listing several problems. */
  withDetail(detail: string): ScimError {
    return new ScimError(this.status, this.scimType, detail, this.headers);
  }

  /** 400: an attribute's value is missing, of the wrong type or not acceptable. */
  static invalidValue(detail: string): ScimError {
    return new ScimError(400, 'invalidValue', detail);
  }

  /** 400: the body is not JSON of the expected structure, or names an attribute the schema lacks. */
  static invalidSyntax(detail: string): ScimError {
    return new ScimError(400, 'invalidSyntax', detail);
  }

  /** 400: the filter cannot be parsed or is not supported. */
  static invalidFilter(detail: string): ScimError {
    return new ScimError(400, 'invalidFilter', detail);
  }

  /** 400: the request changes an attribute the client may not change. */
  static mutability(detail: string): ScimError {
    return new ScimError(400, 'mutability', detail);
  }

  /** 400: a PATCH path is not valid. */
  static invalidPath(detail: string): ScimError {
    return new ScimError(400, 'invalidPath', detail);
  }

  /** 400: a PATCH path's filter selects nothing. */
  static noTarget(detail: string): ScimError {
    return new ScimError(400, 'noTarget', detail);
  }

  /** 409: another resource already has the value of a unique attribute. */
  static uniqueness(detail: string): ScimError {
    return new ScimError(409, 'uniqueness', detail);
  }

  /** 400 without a scimType: the request is malformed outside its body (headers, for instance). */
  static badRequest(detail: string): ScimError {
    return new ScimError(400, undefined, detail);
  }

  /** 401: no credentials or invalid ones; `challenge` is the WWW-Authenticate header. */
  static unauthorized(detail: string, challenge: string): ScimError {
    return new ScimError(401, undefined, detail, { 'www-authenticate': challenge });
  }

  /** 403: the caller may not do this. */
  static forbidden(detail: string): ScimError {
    return new ScimError(403, undefined, detail);
  }

  /** 404: no such resource or endpoint. */
  static notFound(detail: string): ScimError {
    return new ScimError(404, undefined, detail);
  }

  /** 405: the endpoint does not take this method; `allowed` becomes the Allow header. */
  static methodNotAllowed(detail: string, allowed: readonly string[]): ScimError {
    return new ScimError(405, undefined, detail, { allow: allowed.join(', ') });
  }

  /** 408: the body arrived too slowly. */
  static requestTimeout(detail: string): ScimError {
    return new ScimError(408, undefined, detail);
  }

  /** 412: the resource changed after the version in If-Match. */
  static preconditionFailed(detail: string): ScimError {
    return new ScimError(412, undefined, detail);
  }

  /** 413: the body is larger than the service takes. */
  static payloadTooLarge(detail: string): ScimError {
    return new ScimError(413, undefined, detail);
  }

  /** 415: the body is not of a JSON media type. */
  static unsupportedMediaType(detail: string): ScimError {
    return new ScimError(415, undefined, detail);
  }

  /** 429: the caller sends too many requests; it may retry after `seconds`. */
  static tooManyRequests(detail: string, seconds: number): ScimError {
    return new ScimError(429, undefined, detail, retryAfter(seconds));
  }

  /** 500: the service failed; the detail holds the correlation id only. */
  static internal(detail: string): ScimError {
    return new ScimError(500, undefined, detail);
  }

  /** 503: the service or a service it depends on is busy; the caller may retry after `seconds`. */
  static unavailable(detail: string, seconds: number): ScimError {
    return new ScimError(503, undefined, detail, retryAfter(seconds));
  }

  toBody(): Record<string, unknown> {
    return {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType ? { scimType: this.scimType } : {}),
      detail: this.detail,
    };
  }
}

export const invalidValue = (detail: string): ScimError => ScimError.invalidValue(detail);
export const invalidSyntax = (detail: string): ScimError => ScimError.invalidSyntax(detail);
export const notFound = (): ScimError => ScimError.notFound('No User with this id exists in this integration');
