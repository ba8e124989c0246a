/**
 * The User schemas the service publishes (RFC 7643 §7) and uses to canonicalise attribute names. The writable
 * attributes are the rows of the identity attribute table; the read-only ones (id, meta, the link) are the service's.
 */
import { IDENTITY_ATTRIBUTES, type AttributeRow, type ItemField } from '../identities/attributes';

export const CORE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SERVICE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:service:2.0:User';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface AttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: AttributeDefinition[];
}

const attr = (name: string, description: string, o: Partial<AttributeDefinition> = {}): AttributeDefinition => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...o,
});

const readOnly = { mutability: 'readOnly' as const };

/** A SCIM definition of an identity attribute (or of an item field of a list), from its row of the attribute table. */
function definitionOf(field: AttributeRow | ItemField, required: boolean): AttributeDefinition {
  const row = field as AttributeRow;
  return attr(field.name, field.scim.description, {
    ...(field.type === 'boolean' ? { type: 'boolean' as const } : {}),
    ...(field.type === 'list' ? { type: 'complex' as const, multiValued: true } : {}),
    required,
    caseExact: field.scim.caseExact,
    ...('uniqueness' in field.scim ? { uniqueness: field.scim.uniqueness } : {}),
    ...(field.values !== undefined ? { canonicalValues: field.values.map((v) => v.model) } : {}),
    ...(row.items !== undefined ? { subAttributes: row.items.map((f) => definitionOf(f, true)) } : {}),
  });
}

/** Complex core attributes whose sub-attributes are rows of the table (`name.givenName`). */
const CORE_PARENTS: ReadonlyMap<string, string> = new Map([['name', 'The name of the person.']]);

/** The writable attributes of a schema, in table order; sub-attributes grouped under their complex parent. */
function identityDefinitions(schema: 'core' | 'extension'): AttributeDefinition[] {
  const out: AttributeDefinition[] = [];
  const rows: readonly AttributeRow[] = IDENTITY_ATTRIBUTES;
  for (const row of rows.filter((r) => r.scim.schema === schema)) {
    const [parent, sub] = row.scim.path.split('.');
    if (parent === undefined || sub === undefined) {
      out.push(definitionOf(row, row.scim.required));
      continue;
    }
    let complex = out.find((d) => d.name === parent);
    if (complex === undefined) {
      complex = attr(parent, CORE_PARENTS.get(parent) ?? parent, { type: 'complex', subAttributes: [] });
      out.push(complex);
    }
    complex.required ||= row.scim.required;
    complex.subAttributes?.push({ ...definitionOf(row, row.scim.required), name: sub });
  }
  return out;
}

export const CORE_ATTRIBUTES: AttributeDefinition[] = [
  attr('id', 'Identifier set by the service.', {
    ...readOnly,
    returned: 'always',
    caseExact: true,
    uniqueness: 'server',
  }),
  ...identityDefinitions('core'),
  attr('meta', 'Resource metadata.', {
    type: 'complex',
    ...readOnly,
    subAttributes: [
      attr('resourceType', 'User', readOnly),
      attr('created', 'When the User was created.', { type: 'dateTime', ...readOnly }),
      attr('lastModified', 'When the User last changed, including link status changes.', {
        type: 'dateTime',
        ...readOnly,
      }),
      attr('version', 'Weak entity tag, W/"<n>".', { ...readOnly, caseExact: true }),
      attr('location', 'URL of the User.', {
        type: 'reference',
        ...readOnly,
        referenceTypes: ['uri'],
        caseExact: true,
      }),
    ],
  }),
];

export const SERVICE_ATTRIBUTES: AttributeDefinition[] = [
  ...identityDefinitions('extension'),
  attr('directoryLinkStatus', 'linked, pending, conflict or notAsserted.', {
    ...readOnly,
    canonicalValues: ['linked', 'pending', 'conflict', 'notAsserted'],
  }),
  attr('directoryLinkSource', 'asserted or manual; empty when there is no link.', {
    ...readOnly,
    canonicalValues: ['asserted', 'manual'],
  }),
  attr('directoryLinkedUserId', 'Object ID of the linked directory user; empty when there is no link.', {
    ...readOnly,
    caseExact: true,
  }),
];

export function schemaResource(baseUrl: string, id: string): Record<string, unknown> | undefined {
  const def =
    id === CORE_USER_SCHEMA
      ? { name: 'User', description: 'Business identity (core attributes)', attributes: CORE_ATTRIBUTES }
      : id === SERVICE_USER_SCHEMA
        ? { name: 'ServiceUser', description: 'Business identity (service extension)', attributes: SERVICE_ATTRIBUTES }
        : undefined;
  if (!def) return undefined;
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id,
    ...def,
    meta: { resourceType: 'Schema', location: `${baseUrl}/scim/v2/Schemas/${id}` },
  };
}

export function userResourceType(baseUrl: string): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'Business identity',
    schema: CORE_USER_SCHEMA,
    schemaExtensions: [{ schema: SERVICE_USER_SCHEMA, required: true }],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/scim/v2/ResourceTypes/User` },
  };
}

export function serviceProviderConfig(baseUrl: string): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${baseUrl}/scim/v2/Schemas`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 100 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "OAuth 2.0 client-credential access token from the organization's own Microsoft Entra tenant",
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` },
  };
}
