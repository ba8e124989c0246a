/** The handlers of the SCIM /Users endpoints (registered in functions/scimUsers*.ts). */
import type { HttpHandler } from '@azure/functions';
import { scimHandler } from './scimHttp';
import { scopeOf } from './scimActor';
import { userResult } from '../scim/userResponse';
import { etagOf, projectAttributes, toScimUser } from '../scim/userResource';
import { isNotModified } from '../scim/ifMatch';
import { JUMP_IDS_PER_REQUEST, parseListQuery } from '../scim/userList';
import { LIST_RESPONSE_SCHEMA } from '../scim/schema';
import { partitionKey } from '../identities/model';
import { services } from '../services';

export const createUser: HttpHandler = scimHandler(async (call) => {
  const { scope, actor } = scopeOf(call);
  const svc = services();
  const doc = await svc.scimUsers.create(scope, await call.body(), actor, call.log);
  call.log.info('user created', { userId: doc.id, linkStatus: doc.link.status });
  return userResult(doc, svc.settings.publicBaseUrl, call.query, 201);
});

export const deleteUser: HttpHandler = scimHandler(async (call) => {
  const { scope, actor } = scopeOf(call);
  await services().scimUsers.delete(scope, call.params.id ?? '', call.header('if-match'), actor);
  call.log.info('user deleted', { userId: call.params.id });
  return { status: 204 };
});

export const getUser: HttpHandler = scimHandler(async (call) => {
  const svc = services();
  const doc = await svc.scimUsers.get(scopeOf(call).scope, call.params.id ?? '');
  if (isNotModified(call.header('if-none-match'), doc.version)) return { status: 304, headers: { etag: etagOf(doc) } };
  return userResult(doc, svc.settings.publicBaseUrl, call.query);
});

export const listUsers: HttpHandler = scimHandler(async (call) => {
  const svc = services();
  const { scope } = scopeOf(call);
  const query = parseListQuery(call.query);
  // A page without a cursor reads ids up to its start: every 1,000 beyond the first count as one more request of the integration.
  const result = await svc.userLister.list(partitionKey(scope.tenantId, scope.integrationId), query, (idsRead) =>
    svc.scimAdmission.charge(scope.tenantId, scope.integrationId, Math.floor(idsRead / JUMP_IDS_PER_REQUEST)),
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
});

/** PATCH and PUT: the body applied to the User as of If-Match, answered with the User. */
const userWrite = (write: 'patch' | 'replace'): HttpHandler =>
  scimHandler(async (call) => {
    const { scope, actor } = scopeOf(call);
    const svc = services();
    const doc = await svc.scimUsers[write](
      scope,
      call.params.id ?? '',
      await call.body(),
      call.header('if-match'),
      actor,
      call.log,
    );
    return userResult(doc, svc.settings.publicBaseUrl, call.query);
  });

export const patchUser = userWrite('patch');
export const replaceUser = userWrite('replace');
