/** Every container's named queries, for the index-coverage test (callers import the container's module). */
import * as activity from './activity';
import * as audit from './audit';
import * as identities from './identities';
import * as imports from './imports';
import * as integrations from './integrations';
import * as links from './links';
import * as tenants from './tenants';

export const QUERY_MODULES = { activity, audit, identities, imports, integrations, links, tenants } as const;
