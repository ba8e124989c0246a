/** The Users a SCIM call may see: those of one integration of one tenant. */
export interface UserScope {
  tenantId: string;
  integrationId: string;
}
