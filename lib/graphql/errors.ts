import { GraphQLError } from 'graphql';
import { DomainError } from '../util/domainError';
import { StoreError } from '../store/errors';
import { DirectoryUnavailableError, directoryCallAdvice } from '../directory/directoryTrouble';
import { CODE } from '../util/errorCodes';

export function notAuthenticated(): GraphQLError {
  return new GraphQLError(
    'Not authenticated: the token is missing, expired, for another audience, or from an organization that is not registered',
    {
      extensions: { code: CODE.AUTH_NOT_AUTHENTICATED },
    },
  );
}

export function notAuthorized(): GraphQLError {
  return new GraphQLError(
    "Not authorized: the token is neither an application token with the Admin role nor a console user's token (the Console.Admin scope and the Admin role assigned to the user). Grant the Admin application permission with admin consent (or assign the user the Admin role), then get a new token",
    {
      extensions: { code: CODE.AUTH_NOT_AUTHORIZED },
    },
  );
}

/** The tenant's share of the service is in use: retry after the given seconds. */
export function serviceBusy(retryAfterSeconds: number): GraphQLError {
  return new GraphQLError('The service is busy; retry later', {
    extensions: { code: CODE.SERVICE_BUSY, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) },
  });
}

/** Maps expected failures to GraphQL errors with a code; anything else stays unexpected (masked). */
export function toGraphQLError(err: unknown): unknown {
  if (err instanceof GraphQLError) return err;
  if (err instanceof DomainError) {
    return new GraphQLError(err.message, {
      extensions: { ...err.details, code: err.code, ...(err.problems.length ? { problems: err.problems } : {}) },
    });
  }
  if (err instanceof StoreError && (err.failure === 'throttled' || err.failure === 'unavailable'))
    return serviceBusy((err.retryAfterMs ?? 1000) / 1000);
  if (err instanceof DirectoryUnavailableError) {
    return new GraphQLError(directoryCallAdvice(err.reason), {
      extensions: {
        code: CODE.DIRECTORY_UNAVAILABLE,
        reason: err.reason,
        retryAfterSeconds: Math.max(1, Math.ceil(err.retryAfterMs / 1000)),
      },
    });
  }
  return err;
}

/**
 * Some pairs of an association could not be processed (still failing after their retries); the result
 * beside it counts the others. The externalIds are the caller's own keys of the pairs to send again.
 */
export function associationIncomplete(externalIds: string[], path: ReadonlyArray<string | number>): GraphQLError {
  return new GraphQLError(
    `${externalIds.length} pair(s) could not be processed now; the result counts the others. Send the pairs whose externalIds are listed in extensions.externalIds again`,
    {
      path,
      extensions: { code: CODE.ASSOCIATION_INCOMPLETE, externalIds },
    },
  );
}
