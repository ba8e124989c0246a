import { ScimError } from './errors';

/**
 * Checks an If-Match header against the current version. Accepts `*`, the weak tag as
 * returned (W/"3"), the same tag without W/, and comma-separated lists (RFC 9110 §13.1.1).
 */
export function checkIfMatch(header: string | null, currentVersion: number): void {
  if (header === null || header.trim() === '') return;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*')) return;
  const current = `"${currentVersion}"`;
  if (tags.some((t) => (t.startsWith('W/') ? t.slice(2) : t) === current)) return;
  throw new ScimError(412, undefined, 'The User changed after the version in If-Match');
}
