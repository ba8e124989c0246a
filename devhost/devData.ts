/** The fixed development data of the local stack (listed in the README; used by tests and scripts). */

export const DEV_TENANT_ID = '11111111-1111-4111-8111-111111111111';
export const UNREGISTERED_TENANT_ID = '22222222-2222-4222-8222-222222222222';
export const SERVICE_APP_ID_URI = 'api://business-identity-service';
export const SERVICE_SCOPE = `${SERVICE_APP_ID_URI}/.default`;
export const GRAPH_RESOURCE = 'https://graph.microsoft.com';

export interface DevClient {
  name: string;
  tenantId: string;
  clientId: string;
  secret: string;
  roles: string[];
  /** Display name of the SCIM integration seeded for this client, if any. */
  scimIntegration?: string;
}

export const DEV_CLIENTS = {
  admin: {
    name: 'dev-admin',
    tenantId: DEV_TENANT_ID,
    clientId: 'aaaaaaaa-0000-4000-8000-000000000001',
    secret: 'dev-admin-secret',
    roles: ['Admin'],
  },
  scim: {
    name: 'dev-scim',
    tenantId: DEV_TENANT_ID,
    clientId: 'aaaaaaaa-0000-4000-8000-000000000002',
    secret: 'dev-scim-secret',
    roles: [],
    scimIntegration: 'Dev SCIM',
  },
  scim2: {
    name: 'dev-scim-2',
    tenantId: DEV_TENANT_ID,
    clientId: 'aaaaaaaa-0000-4000-8000-000000000003',
    secret: 'dev-scim-2-secret',
    roles: [],
    scimIntegration: 'Dev SCIM 2',
  },
  noRole: {
    name: 'dev-norole',
    tenantId: DEV_TENANT_ID,
    clientId: 'aaaaaaaa-0000-4000-8000-000000000004',
    secret: 'dev-norole-secret',
    roles: [],
  },
  otherAdmin: {
    name: 'other-admin',
    tenantId: UNREGISTERED_TENANT_ID,
    clientId: 'aaaaaaaa-0000-4000-8000-000000000005',
    secret: 'other-admin-secret',
    roles: ['Admin'],
  },
} satisfies Record<string, DevClient>;

/**
 * The service's own application, used to call the directory (Graph) in each customer tenant.
 * In Azure it authenticates with a certificate; locally with this secret.
 */
export const SERVICE_GRAPH_CLIENT = {
  clientId: 'bbbbbbbb-0000-4000-8000-000000000001',
  secret: 'dev-service-graph-secret',
};

/** The administrator console's app registration (a single-page application, public client) and its delegated scope. */
export const CONSOLE_SCOPE_NAME = 'Console.Admin';
export const CONSOLE_SCOPE = `${SERVICE_APP_ID_URI}/${CONSOLE_SCOPE_NAME}`;
export const DEV_CONSOLE_CLIENT_ID = 'cccccccc-0000-4000-8000-000000000001';

/** People who can sign in to the console on the identity-provider stand-in: one holds the Admin app role, one does not. */
export const DEV_CONSOLE_USERS = [
  { tenantId: DEV_TENANT_ID, upn: 'admin@dev.example.com', displayName: 'Dev Admin', roles: ['Admin'] },
  { tenantId: DEV_TENANT_ID, upn: 'reader@dev.example.com', displayName: 'Dev Reader (no role)', roles: [] },
];

export const DEV_DIRECTORY_USERS = ['alice@dev.example.com', 'bob@dev.example.com', 'carol@dev.example.com'];

export const DEFAULT_PORTS = { host: 7071, idp: 7072, directory: 7073, keyVault: 7074, cosmos: 8081, queues: 10001 };
