import { CODE, type ErrorCode } from './errorCodes';

/** A field-level problem: the path of the offending input and what is wrong, never the value. */
export interface FieldProblem {
  /** The index of the offending item in the list sent (an identity of an import set or part), where there is one. */
  index?: number;
  field: string;
  problem: string;
}

/**
 * An expected failure of an administrative or import operation, with a stable code
 * (BAD_USER_INPUT, SCIM_INTEGRATION_CLIENT_ID_TAKEN, ...). The GraphQL layer maps it to
 * `errors[].extensions.code`. Messages never contain submitted values.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
    /** Further machine-readable facts for the caller (ids the service made, never submitted values). */
    readonly details: Record<string, string | number | readonly number[]> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function badInput(problems: FieldProblem[], message = 'The input is not valid'): DomainError {
  return new DomainError(CODE.BAD_USER_INPUT, message, problems);
}
