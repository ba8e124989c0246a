import { request as httpRequest } from 'node:http';
import { startTestStack, call, type TestStack } from '../support/stack';
import { importPeople } from '../support/importSets';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { RunFollower } from '../../scripts/runFollower';

type Gql = {
  data?: { importBusinessIdentities?: { created: number } } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
};
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }';
const importBody = (source: string, n: number) =>
  JSON.stringify({ query: IMPORT, variables: { i: { source, identities: importPeople(source, n) } } });
/** An import of 10 identities, led by JSON whitespace up to `size` bytes (a large body that is quick to serve). */
const paddedImport = (source: string, size: number) => {
  const body = importBody(source, 10);
  return `${' '.repeat(size - Buffer.byteLength(body))}${body}`;
};

/**
 * Sends the body with its Content-Length but its last bytes, then one of them every 500 ms (so it keeps its
 * pace and is never idle); the rest when `finish` is called.
 */
function held(url: string, token: string, body: string): { answer: Promise<Gql>; finish: () => void } {
  let finish: () => void = () => undefined;
  const answer = new Promise<Gql>((resolve, reject) => {
    const req = httpRequest(
      new URL(url),
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve(JSON.parse(text) as Gql));
      },
    );
    req.on('error', reject);
    let sent = body.length - 64;
    req.write(body.slice(0, sent));
    const dribble = setInterval(() => req.write(body.slice(sent, ++sent)), 500);
    finish = () => {
      clearInterval(dribble);
      req.end(body.slice(sent));
    };
  });
  return { answer, finish };
}

describe("the instance's bound on GraphQL body bytes held at once, and each tenant's share of it", () => {
  let stack: TestStack;
  const tokens: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
  const TENANT_C = '33333333-3333-4333-8333-333333333333';
  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        GRAPHQL_MAX_BODY_BYTES: '600000',
        GRAPHQL_TENANT_BODY_BYTES_IN_FLIGHT: '1000000',
        GRAPHQL_BODY_BYTES_IN_FLIGHT: '2000000',
      },
    });
    await services().tenants.register(UNREGISTERED_TENANT_ID);
    await services().tenants.register(TENANT_C);
    tokens.a = await stack.token(DEV_CLIENTS.admin);
    tokens.b = await stack.token(DEV_CLIENTS.otherAdmin);
    tokens.c = stack.idp.mintAppToken({
      tenantId: TENANT_C,
      clientId: 'aaaaaaaa-0000-4000-8000-0000000000c1',
      audience: SERVICE_APP_ID_URI,
      roles: ['Admin'],
    });
  });
  afterAll(async () => {
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
    await services().tenants.remove(TENANT_C);
    await stack?.stop();
  });

  const send = (tenant: keyof typeof tokens, body: string) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token: tokens[tenant],
      headers: { 'content-type': 'application/json' },
      body,
    });
  const hold = (tenant: keyof typeof tokens, body: string) => held(`${stack.base}/graphql`, tokens[tenant], body);
  /** Waits until the tenant holds body bytes (its held request's headers are in and it is authenticated). */
  const holding = async (tenantId: string) => {
    const until = Date.now() + 20_000;
    while (services().graphqlBodyBytes.held(tenantId) === 0) {
      if (Date.now() > until) throw new Error('the body was not held');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const busy = (res: { body: Gql }) => {
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_BUSY', retryAfterSeconds: 10 });
    expect(res.body.data).toBeNull();
  };

  it("refuses a body past its tenant's share, busy and unread, while other tenants are served; past the instance's bound every tenant is refused; answered bodies give their bytes back", async () => {
    const created = (res: Gql) => res.data?.importBusinessIdentities?.created;
    // A's first body is held (its declared length from its headers on): another 470 KB pass A's 1 MB share.
    const a = hold('a', paddedImport('HeldA', 560_000));
    await holding(DEV_TENANT_ID);
    busy(await send('a', paddedImport('OtherA', 470_000)));
    // Tenant B is served meanwhile: A holds its share, not the instance's bound.
    expect(created((await send('b', paddedImport('OtherB', 470_000))).body)).toBe(10);

    // B and C hold a body each too: 1.68 MB held, and 400 KB more of C fit C's share but not the instance's bound.
    const b = hold('b', paddedImport('HeldB', 560_000));
    const c = hold('c', paddedImport('HeldC', 560_000));
    await holding(UNREGISTERED_TENANT_ID);
    await holding(TENANT_C);
    expect(services().graphqlBodyBytes.held()).toBe(1_680_000);
    busy(await send('c', paddedImport('OtherC', 400_000)));
    expect(services().graphqlBodyBytes.held(TENANT_C)).toBe(560_000);

    for (const h of [a, b, c]) h.finish();
    for (const h of [a, b, c]) expect(created(await h.answer)).toBe(10);
    // Answered: their bytes are free again.
    expect(services().graphqlBodyBytes.held()).toBe(0);
    expect(created((await send('a', paddedImport('OtherA', 470_000))).body)).toBe(10);
  });
});

describe('the reference client and a busy service', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // 20 identities a second come back into a budget of 1,200.
    stack = await startTestStack({
      env: { BULK_ITEMS_PER_MINUTE: '1200', IMPORT_MAX_IDENTITIES: '1200', ASSOCIATION_MAX_PAIRS: '1200' },
    });
  });
  afterAll(async () => stack?.stop());

  it('sends an import answered SERVICE_BUSY again after the wait the service asks for', async () => {
    const progress: string[] = [];
    const follower = (source: string, accessToken: string) =>
      new RunFollower({
        service: stack.base,
        accessToken,
        source,
        timeoutMs: 60_000,
        pollMs: 100,
        progress: (l) => progress.push(l),
      });
    const token = await stack.token(DEV_CLIENTS.admin);
    expect((await follower('BusyFirst', token).importSet(importPeople('f', 1100))).counts.created).toBe(1100);
    // 100 left: 300 more wait about 10 s for the budget, and are then imported.
    const second = await follower('BusySecond', token).importSet(importPeople('s', 300));
    expect(second.counts.created).toBe(300);
    expect(progress.filter((l) => /^the service is busy; sending again in \d+ s$/.test(l)).length).toBeGreaterThan(0);
  }, 60_000);
});
