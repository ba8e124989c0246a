import { startTestStack, call, type TestStack } from '../support/stack';
import { EXT, scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_GRAPH_CLIENT } from '../../devhost/devData';
import { services } from '../../lib/services';
import type { IdentityDoc } from '../../lib/identities/model';

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
};

/** A directory outage or a missing consent never blocks provisioning (issue: SCIM saves were 503 for ever). */
describe('directory outage and missing consent', () => {
  let stack: TestStack;
  let api: ReturnType<typeof scim>;
  const gql = async (query: string, variables: Record<string, unknown>) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const associateO1 = () =>
    gql('mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }', {
      i: { source: 'Outage', associations: [{ externalId: 'O1', userPrincipalName: 'alice@dev.example.com' }] },
    });
  /** The pending-link timer plans a unit per tenant; backgroundWork does them. */
  const backgroundRun = async () => {
    await stack.host.runTimer('resolvePendingLinks');
    await stack.host.queuesIdle();
  };
  const runLines = (from: number, fn: string) => stack.logs.slice(from).filter((l) => l.includes(`"function":"${fn}"`));

  beforeAll(async () => {
    stack = await startTestStack();
    api = scim(stack, await stack.token(DEV_CLIENTS.scim));
  });
  afterAll(async () => stack?.stop());

  it('without consent in the tenant: SCIM saves store the User as pending, GraphQL says DIRECTORY_UNAVAILABLE, the run says why once, and links once consent is given', async () => {
    stack.idp.withdrawConsent(DEV_TENANT_ID, SERVICE_GRAPH_CLIENT.clientId);
    const logStart = stack.logs.length;
    const created = await api.create(userBody({}, { directoryUserPrincipalName: 'alice@dev.example.com' }));
    expect(created.status).toBe(201);
    expect(created.body[EXT]?.directoryLinkStatus).toBe('pending');
    const other = await api.create(userBody());
    const put = await api.put(
      other.body.id,
      userBody(
        { externalId: other.body.externalId, userName: other.body.userName },
        { directoryUserPrincipalName: 'bob@dev.example.com' },
      ),
    );
    expect(put.status).toBe(200);
    expect(put.body[EXT]?.directoryLinkStatus).toBe('pending');
    const third = await api.create(userBody());
    const patched = await api.patch(third.body.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: `${EXT}:directoryUserPrincipalName`, value: 'carol@dev.example.com' }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body[EXT]?.directoryLinkStatus).toBe('pending');
    const saveLines = stack.logs.slice(logStart).filter((l) => l.includes('admin consent'));
    expect(saveLines.length).toBeGreaterThanOrEqual(3);
    expect(saveLines[0]).toContain('"directoryProblem":"consentMissing"');

    const runFrom = stack.logs.length;
    await backgroundRun();
    const consentLines = runLines(runFrom, 'backgroundWork').filter(
      (l) => l.includes('admin consent') && l.includes(DEV_TENANT_ID),
    );
    expect(consentLines).toHaveLength(1); // once per tenant and run, although three identities wait
    expect(consentLines[0]).toContain('"reason":"notConsented"');
    expect((await api.get(created.body.id)).body[EXT]?.directoryLinkStatus).toBe('pending');

    // GraphQL calls that need the directory say so with their own code and a retry hint.
    await gql('mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }', {
      i: {
        source: 'Outage',
        identities: [{ externalId: 'O1', affiliationType: 'EMPLOYMENT', firstName: 'O', lastName: 'One' }],
      },
    });
    const associated = await associateO1();
    expect(associated.body.errors?.[0]?.extensions).toMatchObject({
      code: 'DIRECTORY_UNAVAILABLE',
      reason: 'consentMissing',
    });
    expect(associated.body.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(associated.text).not.toContain('alice@');
    const id = (
      await services()
        .store.collection<IdentityDoc>('identities')
        .queryPartitionPage<{ id: string }>(`${DEV_TENANT_ID}|src:Outage`, 'SELECT c.id', '', [])
    ).items[0]!.id;
    const linked = await gql(
      'mutation($s: String!, $id: ID!, $u: String) { linkBusinessIdentity(input: { source: $s, id: $id, userPrincipalName: $u }) { businessIdentity { id } } }',
      {
        s: 'Outage',
        id,
        u: 'alice@dev.example.com',
      },
    );
    expect(linked.body.errors?.[0]?.extensions).toMatchObject({
      code: 'DIRECTORY_UNAVAILABLE',
      reason: 'consentMissing',
    });

    stack.idp.grantConsent(DEV_TENANT_ID, SERVICE_GRAPH_CLIENT.clientId);
    await backgroundRun();
    for (const id of [created.body.id, other.body.id, third.body.id])
      expect((await api.get(id)).body[EXT]?.directoryLinkStatus).toBe('linked');
    for (const id of [created.body.id, other.body.id, third.body.id]) await api.delete(id);
  });

  it('while Graph throttles beyond its retries: the save is stored as pending, the background run links it later; association reports it', async () => {
    stack.directory.throttleNext(4, 0); // the Graph client's three retries are used up
    const logStart = stack.logs.length;
    const created = await api.create(userBody({}, { directoryUserPrincipalName: 'alice@dev.example.com' }));
    expect(created.status).toBe(201);
    expect(created.body[EXT]?.directoryLinkStatus).toBe('pending');
    expect(
      stack.logs.slice(logStart).some((l) => l.includes('"directoryProblem":"throttled"') && l.includes('throttling')),
    ).toBe(true);
    await backgroundRun();
    expect((await api.get(created.body.id)).body[EXT]?.directoryLinkStatus).toBe('linked');
    await api.delete(created.body.id);

    stack.directory.throttleNext(4, 0);
    const throttled = await associateO1();
    expect(throttled.body.errors?.[0]?.extensions).toMatchObject({
      code: 'DIRECTORY_UNAVAILABLE',
      reason: 'throttled',
    });
  });
});
