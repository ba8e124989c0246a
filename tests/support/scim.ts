import { call, type JsonResponse, type TestStack } from './stack';

export const EXT = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
export const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';

let seq = 0;
/** A valid SCIM User body; every call gives a new externalId and userName. */
export function userBody(
  overrides: Record<string, unknown> = {},
  ext: Record<string, unknown> = {},
): Record<string, unknown> {
  seq++;
  return {
    schemas: [CORE, EXT],
    externalId: `E${Date.now()}-${seq}`,
    userName: `user${seq}.${Date.now()}@corp.example`,
    name: { givenName: 'Anna', familyName: 'Berg' },
    active: true,
    [EXT]: { affiliationType: 'employment', ...ext },
    ...overrides,
  };
}

export type ScimUser = {
  id: string;
  externalId: string;
  userName: string;
  active: boolean;
  name: { givenName: string; familyName: string };
  meta: { version: string; lastModified: string; created: string; location: string };
  [EXT]: Record<string, unknown>;
  /** Present on error responses. */
  detail?: string;
  scimType?: string;
};

export function scim(stack: TestStack, token: string) {
  const url = (path: string) => `${stack.base}/scim/v2${path}`;
  return {
    create: (body: unknown) => call<ScimUser>(url('/Users'), { method: 'POST', token, json: body }),
    get: (id: string, query = '') => call<ScimUser>(url(`/Users/${encodeURIComponent(id)}${query}`), { token }),
    put: (id: string, body: unknown, headers: Record<string, string> = {}) =>
      call<ScimUser>(url(`/Users/${encodeURIComponent(id)}`), { method: 'PUT', token, json: body, headers }),
    patch: (id: string, body: unknown, headers: Record<string, string> = {}) =>
      call<ScimUser>(url(`/Users/${encodeURIComponent(id)}`), { method: 'PATCH', token, json: body, headers }),
    delete: (id: string, headers: Record<string, string> = {}) =>
      call(url(`/Users/${encodeURIComponent(id)}`), { method: 'DELETE', token, headers }),
    list: (query: string) =>
      call<{ totalResults: number; startIndex: number; itemsPerPage: number; Resources: ScimUser[] }>(
        url(`/Users${query}`),
        { token },
      ),
  };
}

/** Asserts a SCIM error response: status, scimType, schema, and that detail does not contain `secret`. */
export function expectScimError(
  res: JsonResponse,
  status: number,
  scimType: string | undefined,
  ...secrets: string[]
): void {
  expect({ status: res.status, scimType: res.body?.scimType }).toEqual({ status, scimType });
  expect(res.body?.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  expect(res.body?.status).toBe(String(status));
  expect(res.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
  for (const s of secrets) expect(res.text).not.toContain(s);
}
