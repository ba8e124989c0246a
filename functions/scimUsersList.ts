import { app } from '@azure/functions';
import { scimHandler } from '../lib/http/scimHttp';
import { scopeOf } from '../lib/http/scimActor';
import { JUMP_IDS_PER_REQUEST, parseListQuery } from '../lib/scim/userList';
import { projectAttributes, toScimUser } from '../lib/scim/userResource';
import { LIST_RESPONSE_SCHEMA } from '../lib/scim/schema';
import { partitionKey } from '../lib/identities/model';
import { services } from '../lib/services';

app.http('scimUsersList', {
  route: 'scim/v2/Users',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: scimHandler(async (call) => {
    const svc = services();
    const { scope } = scopeOf(call);
    const query = parseListQuery(call.query);
    // A page without a cursor reads ids up to its start: every 1,000 beyond the first count as one more request of the integration.
    const result = await svc.userLister.list(partitionKey(scope.tenantId, scope.integrationId), query, (idsRead) =>
      svc.scimRateLimiter.charge(scope.integrationId, Math.floor(idsRead / JUMP_IDS_PER_REQUEST)),
    );
    const resources = result.items.map((doc) =>
      projectAttributes(
        toScimUser(doc, svc.settings.publicBaseUrl),
        call.query.get('attributes'),
        call.query.get('excludedAttributes'),
      ),
    );
    return {
      status: 200,
      body: {
        schemas: [LIST_RESPONSE_SCHEMA],
        totalResults: result.totalResults,
        startIndex: result.startIndex,
        itemsPerPage: resources.length,
        Resources: resources,
      },
    };
  }),
});
