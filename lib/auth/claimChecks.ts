/**
 * The checks of a token's claims that cost nothing: audience, expiry and not-before. The validator runs
 * them on the decoded payload before any key is looked up or any signature checked, so a token that would
 * be refused anyway (expired, for another API, without `exp`) costs no RSA work and never causes a key-set
 * fetch. The payload checked is the one the signature covers: a token that passes here and is forged fails
 * its signature check next. The rules are jsonwebtoken's (the clock skew on both sides), so a genuine
 * token is decided as before.
 */

export type ClaimProblem =
  { failure: 'wrong_audience' | 'expired' | 'not_yet_valid' | 'malformed'; message: string } | undefined;

type Claims = Record<string, unknown>;

/** The first problem of the token's audience and lifetime at `nowMs`, with `skewSeconds` of tolerance. */
export function claimProblem(
  payload: Claims,
  audiences: readonly string[],
  skewSeconds: number,
  nowMs: number,
): ClaimProblem {
  const aud = Array.isArray(payload.aud) ? (payload.aud as unknown[]) : [payload.aud];
  if (!aud.some((a) => typeof a === 'string' && audiences.includes(a)))
    return { failure: 'wrong_audience', message: 'The token is not for this service' };
  const now = Math.floor(nowMs / 1000);
  const { exp, nbf } = payload;
  // An access token must expire.
  if (typeof exp !== 'number' || !Number.isFinite(exp))
    return { failure: 'malformed', message: 'The token has no expiry' };
  if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf)))
    return { failure: 'malformed', message: 'The token could not be verified' };
  if (now >= exp + skewSeconds) return { failure: 'expired', message: 'The token has expired' };
  if (nbf !== undefined && nbf > now + skewSeconds)
    return { failure: 'not_yet_valid', message: 'The token is not valid yet' };
  return undefined;
}
