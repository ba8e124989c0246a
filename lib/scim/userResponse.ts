import type { IdentityDoc } from '../identities/model';
import { etagOf, projectAttributes, toScimUser } from './userResource';

/** A User response: body projected per attributes/excludedAttributes, ETag and (for 201) Location. */
export function userResult(
  doc: IdentityDoc,
  baseUrl: string,
  query: URLSearchParams,
  status = 200,
): { status: number; body: unknown; headers: Record<string, string> } {
  const resource = toScimUser(doc, baseUrl);
  const headers: Record<string, string> = { etag: etagOf(doc) };
  if (status === 201) headers.location = (resource.meta as { location: string }).location;
  return {
    status,
    body: projectAttributes(resource, query.get('attributes'), query.get('excludedAttributes')),
    headers,
  };
}
