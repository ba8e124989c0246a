/**
 * The resource paths under /scim/v2 and the methods each one serves. Requests for other paths or
 * methods are answered by the catch-all function (functions/scimFallback.ts) with a SCIM Error:
 * 404 for a path the service does not serve (/Groups, /Bulk, /Me, /.search, /Users/.search),
 * 405 with `Allow` for a served path and a method it does not take.
 */

const SEARCH = '.search';

/** The methods of a path below /scim/v2 (e.g. "Users/123"), or undefined when the service does not serve it. */
export function scimMethodsOf(path: string): string[] | undefined {
  const segments = path.split('/').filter((s) => s.length > 0);
  const [resource, id, ...rest] = segments;
  if (resource === undefined || rest.length > 0) return undefined;
  switch (resource.toLowerCase()) {
    case 'users':
      if (id === undefined) return ['GET', 'POST'];
      return id.toLowerCase() === SEARCH ? undefined : ['GET', 'PUT', 'PATCH', 'DELETE'];
    case 'serviceproviderconfig':
      return id === undefined ? ['GET'] : undefined;
    case 'schemas':
    case 'resourcetypes':
      return ['GET'];
    default:
      return undefined;
  }
}
