import { startTestStack, call, type TestStack } from '../support/stack';
import { CORE, EXT, expectScimError, scim, userBody } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';

/** SCIM protocol edges as third-party conformance checkers and client libraries exercise them. */
describe('SCIM protocol edges', () => {
  let stack: TestStack;
  let token: string;
  let api: ReturnType<typeof scim>;
  const url = (path: string) => `${stack.base}/scim/v2${path}`;

  beforeAll(async () => {
    stack = await startTestStack();
    token = await stack.token(DEV_CLIENTS.scim);
    api = scim(stack, token);
  });
  afterAll(async () => stack?.stop());

  it.each([
    ['GET', '/Groups'],
    ['POST', '/Bulk'],
    ['GET', '/Me'],
    ['POST', '/.search'],
    ['POST', '/Users/.search'],
    ['GET', ''],
    ['GET', '/Users/x/y'],
  ])('%s %s is 404 with the SCIM Error schema', async (method, path) => {
    const res = await call(url(path), { method, token, json: method === 'POST' ? { schemas: [] } : undefined });
    expectScimError(res, 404, undefined);
  });

  it.each([
    ['DELETE', '/Users', 'GET, POST'],
    ['PUT', '/Users', 'GET, POST'],
    ['POST', '/Users/0192b7a0-0000-7000-8000-000000000000', 'GET, PUT, PATCH, DELETE'],
    ['POST', '/ServiceProviderConfig', 'GET'],
    ['DELETE', '/Schemas', 'GET'],
    ['PATCH', '/ResourceTypes/User', 'GET'],
  ])('%s %s is 405 with the SCIM Error schema and Allow', async (method, path, allow) => {
    const res = await call(url(path), { method, token, json: method === 'DELETE' ? undefined : {} });
    expectScimError(res, 405, undefined);
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('the catch-all does not shadow the served routes', async () => {
    expect((await call(url('/ServiceProviderConfig'))).status).toBe(200);
    expect((await call(url('/Schemas'))).status).toBe(200);
    expect((await api.list('?count=0')).status).toBe(200);
    const created = await api.create(userBody());
    expect(created.status).toBe(201);
    expect((await api.get(created.body.id)).status).toBe(200);
  });

  it('If-None-Match with the current tag answers 304 without a body; an older tag gets the User', async () => {
    const created = await api.create(userBody());
    const tag = created.headers.get('etag') ?? '';
    const same = await call(url(`/Users/${created.body.id}`), { token, headers: { 'if-none-match': tag } });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe(tag);
    expect(
      (await call(url(`/Users/${created.body.id}`), { token, headers: { 'if-none-match': '"1", W/"7"' } })).status,
    ).toBe(304);
    await api.patch(created.body.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    const changed = await call(url(`/Users/${created.body.id}`), { token, headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('W/"2"');
  });

  it.each(['/ServiceProviderConfig', '/Schemas', '/ResourceTypes'])('a filter on %s is 403', async (path) => {
    const res = await call(url(`${path}?filter=${encodeURIComponent('id eq "secret-filter-value"')}`));
    expectScimError(res, 403, undefined, 'secret-filter-value');
  });

  it('ignores schemas inside the extension object on POST, PUT and PATCH', async () => {
    const inner = { schemas: [EXT], affiliationType: 'employment', personalEmail: 'a@private.example' };
    const created = await api.create(userBody({ [EXT]: inner }));
    expect(created.status).toBe(201);
    const put = await api.put(created.body.id, {
      ...userBody({ externalId: created.body.externalId, userName: created.body.userName }),
      [EXT]: { ...inner, affiliationType: 'other' },
    });
    expect(put.status).toBe(200);
    expect(put.body[EXT]?.affiliationType).toBe('other');
    const patched = await api.patch(created.body.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'replace', path: EXT, value: { schemas: [EXT], affiliationType: 'engagement' } },
        { op: 'replace', value: { [EXT]: { schemas: [EXT], nationality: 'DK' } } },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body[EXT]).toMatchObject({ affiliationType: 'engagement', nationality: 'DK' });
    expect(patched.body[EXT]).not.toHaveProperty('schemas');
  });

  it('leaves unassigned attributes out: no empty lists, no empty link source or user id', async () => {
    const created = await api.create(userBody({}, { personalNumbers: [{ type: 'DkCpr', value: '0101901234' }] }));
    expect(created.body[EXT]).toHaveProperty('personalNumbers');
    const emptied = await api.patch(created.body.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'remove', path: `${EXT}:personalNumbers` }],
    });
    expect(emptied.status).toBe(200);
    const ext = (await api.get(created.body.id)).body[EXT];
    expect(ext).toEqual({ affiliationType: 'employment', directoryLinkStatus: 'notAsserted' });
  });

  it.each([
    ['missing', undefined],
    ['only the core URN', [CORE]],
    ['only the extension URN', [EXT]],
    ['not a list', 'urn:secret-schema-value'],
  ])('schemas %s: POST and PUT are 400 invalidValue naming schemas', async (_what, schemas) => {
    const body = userBody();
    if (schemas === undefined) delete body.schemas;
    else body.schemas = schemas;
    const created = await api.create(body);
    expectScimError(created, 400, 'invalidValue', 'urn:secret-schema-value');
    expect(created.body.detail).toContain('schemas');
    const existing = await api.create(userBody());
    const put = await api.put(existing.body.id, { ...body, externalId: existing.body.externalId });
    expectScimError(put, 400, 'invalidValue', 'urn:secret-schema-value');
  });

  it('schemas with other URNs besides the two, in any case, are accepted', async () => {
    const res = await api.create(
      userBody({ schemas: [CORE.toUpperCase(), EXT, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'] }),
    );
    expect(res.status).toBe(201);
  });
});
