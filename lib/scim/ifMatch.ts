import { ScimError } from './errors';

/** True when a list of entity tags (`*`, W/"3", "3", comma-separated) names `currentVersion` (weak comparison, RFC 9110 §8.8.3.2). */
function namesVersion(header: string, currentVersion: number): boolean {
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*')) return true;
  const current = `"${currentVersion}"`;
  return tags.some((t) => (t.startsWith('W/') ? t.slice(2) : t) === current);
}

/**
 * Checks an If-Match header against the current version. Accepts `*`, the weak tag as
 * returned (W/"3"), the same tag without W/, and comma-separated lists (RFC 9110 §13.1.1).
 */
export function checkIfMatch(header: string | null, currentVersion: number): void {
  if (header === null || header.trim() === '') return;
  if (namesVersion(header, currentVersion)) return;
  throw ScimError.preconditionFailed('The User changed after the version in If-Match');
}

/** If-None-Match on a read (RFC 7644 §3.14): true when the client already holds the current version (answer 304). */
export function isNotModified(header: string | null, currentVersion: number): boolean {
  return header !== null && header.trim() !== '' && namesVersion(header, currentVersion);
}
