/**
 * Back-off of identities that stay pending or in conflict: each background check that changes
 * nothing doubles the wait before the next one (from `baseSeconds` up to `maxSeconds`), so
 * identities that never resolve cost little and fresh ones are looked at first. A new link object
 * (the UPN changed, an administrator linked or unlinked) starts again at zero checks.
 */
import type { DirectoryLink } from '../identities/model';

export interface BackoffPolicy {
  baseSeconds: number;
  maxSeconds: number;
}

/** Seconds to wait after the `checks`-th unchanged check (1-based). */
export function backoffSeconds(checks: number, policy: BackoffPolicy): number {
  if (checks < 1 || policy.baseSeconds <= 0) return 0;
  const doubled = policy.baseSeconds * 2 ** Math.min(checks - 1, 30);
  return Math.min(doubled, policy.maxSeconds);
}

/** The link after one more check that left it as it was. */
export function afterUnchangedCheck(link: DirectoryLink, policy: BackoffPolicy, now: Date): DirectoryLink {
  const checks = (link.checks ?? 0) + 1;
  return {
    ...link,
    checks,
    nextCheckAt: new Date(now.getTime() + backoffSeconds(checks, policy) * 1000).toISOString(),
  };
}

/** The link without back-off: looked at by the next background run. */
export function withoutBackoff(link: DirectoryLink): DirectoryLink {
  const { checks: _checks, nextCheckAt: _next, ...rest } = link;
  return rest;
}

export function isDue(link: DirectoryLink, now: Date): boolean {
  return link.nextCheckAt === undefined || link.nextCheckAt <= now.toISOString();
}
