/** The User schemas the service publishes (RFC 7643 §7) and uses to canonicalise attribute names. */

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

export const CORE_ATTRIBUTES: AttributeDefinition[] = [
  attr('id', 'Identifier set by the service.', {
    ...readOnly,
    returned: 'always',
    caseExact: true,
    uniqueness: 'server',
  }),
  attr('externalId', "Identifier of the person in the provisioning system; stays the same for the person's life.", {
    required: true,
    caseExact: true,
    uniqueness: 'server',
  }),
  attr('userName', 'Unique within the integration, case-insensitive. Not used to find the directory user.', {
    required: true,
    uniqueness: 'server',
  }),
  attr('name', 'The name of the person.', {
    type: 'complex',
    required: true,
    subAttributes: [
      attr('givenName', 'Given name, at most 128 characters.', { required: true }),
      attr('familyName', 'Family name, at most 128 characters.', { required: true }),
    ],
  }),
  attr('active', 'false makes the business identity inactive. Default true.', { type: 'boolean' }),
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
  attr('affiliationType', 'employment, enrollment, engagement or other (any case on input).', {
    required: true,
    canonicalValues: ['employment', 'enrollment', 'engagement', 'other'],
  }),
  attr('birthDate', 'YYYY-MM-DD.'),
  attr('nationality', 'ISO 3166-1 alpha-2 code.'),
  attr('personalEmail', 'Private address, not the work address. At most 200 characters.'),
  attr('personalPhone', 'Private number, E.164.'),
  attr('personalNumbers', 'Sensitive. One number per type. Cannot be used in a filter.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attr('type', 'DkCpr', { required: true, canonicalValues: ['DkCpr'] }),
      attr('value', 'CPR number: 10 digits, returned without dash.', { required: true, caseExact: true }),
    ],
  }),
  attr('identityDocumentReferences', 'Sensitive. Cannot be used in a filter.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attr('type', 'Passport or IdentityCard', { required: true, canonicalValues: ['Passport', 'IdentityCard'] }),
      attr('issuingCountry', 'ISO 3166-1 alpha-2 code.', { required: true }),
      attr('documentNumber', 'The number of the document.', { required: true, caseExact: true }),
    ],
  }),
  attr(
    'directoryUserPrincipalName',
    "UPN of the person's directory user; the service links the identity to that user.",
  ),
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
