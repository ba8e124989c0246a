/** SCIM protocol errors (RFC 7644 §3.12). `detail` names the attribute, never its value. */
export type ScimType =
  | 'invalidValue'
  | 'invalidSyntax'
  | 'invalidFilter'
  | 'mutability'
  | 'uniqueness'
  | 'tooMany'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidVers'
  | 'sensitive';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ScimError';
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

export const invalidValue = (detail: string): ScimError => new ScimError(400, 'invalidValue', detail);
export const invalidSyntax = (detail: string): ScimError => new ScimError(400, 'invalidSyntax', detail);
export const notFound = (): ScimError =>
  new ScimError(404, undefined, 'No User with this id exists in this integration');
