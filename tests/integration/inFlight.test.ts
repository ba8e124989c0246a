import { connect } from 'node:net';
import { startTestStack, call, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';

interface Held {
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends a POST's headers with `Content-Length: 1000` and `sent` of the body, then nothing more; resolves
 * with the answer, or status 0 when none came within `giveUpMs`.
 */
function holdBody(
  base: string,
  path: string,
  headers: Record<string, string>,
  sent = '',
  giveUpMs = 4_000,
): Promise<Held> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const finish = () => {
      clearTimeout(giveUp);
      socket.destroy();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body });
    };
    const giveUp = setTimeout(finish, giveUpMs);
    socket.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      const at = text.indexOf('\r\n\r\n');
      if (at >= 0 && length !== undefined && Buffer.byteLength(text.slice(at + 4)) >= Number(length)) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    const lines = Object.entries({ host: url.host, 'content-length': '1000', ...headers }).map(
      ([k, v]) => `${k}: ${v}`,
    );
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${sent}`);
  });
}

describe('requests in flight: a caller holding its requests open takes only its own share', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('60 SCIM POSTs that never send their body: 32 held until the 2 s idle timeout (408), 28 refused at once (429 Retry-After); another integration is served meanwhile', async () => {
    const headers = {
      authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`,
      'content-type': 'application/scim+json',
    };
    const other = await stack.token(DEV_CLIENTS.scim2);
    let otherStatus = 0;
    const held = Array.from({ length: 60 }, () => holdBody(stack.base, '/scim/v2/Users', headers));
    // While the integration's places are taken, another integration of the same organization is served.
    const otherAnswer = call(`${stack.base}/scim/v2/Users?count=1`, { token: other }).then(
      (r) => (otherStatus = r.status),
    );
    const answers = await Promise.all(held);
    await otherAnswer;
    expect(otherStatus).toBe(200);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 0)).toEqual([]);
    expect(statuses.filter((s) => s === 408)).toHaveLength(32);
    expect(statuses.filter((s) => s === 429)).toHaveLength(28);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.headers).toContain('retry-after: 1');
      expect(JSON.parse(a.body)).toMatchObject({ status: '429', detail: expect.stringMatching(/in progress/) });
    }
    // The places are free again.
    expect((await call(`${stack.base}/scim/v2/Users?count=1`, { token: headers.authorization.slice(7) })).status).toBe(
      200,
    );
  });

  it('a body that stops after its first bytes is answered 408 after the idle timeout, SCIM and GraphQL', async () => {
    const scim = holdBody(
      stack.base,
      '/scim/v2/Users',
      { authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`, 'content-type': 'application/scim+json' },
      '{"schemas":',
    );
    const graphql = holdBody(
      stack.base,
      '/graphql',
      { authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}`, 'content-type': 'application/json' },
      '{"query":"{ scimIntegrations { id } }"',
    );
    const [s, g] = await Promise.all([scim, graphql]);
    expect(s.status).toBe(408);
    expect(g.status).toBe(408);
    expect(JSON.parse(g.body)).toMatchObject({ errors: [{ extensions: { code: 'REQUEST_TIMEOUT' } }] });
  });

  it('40 held GraphQL requests of one tenant: 32 held, 8 answered SERVICE_BUSY with a retry hint', async () => {
    const headers = {
      authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}`,
      'content-type': 'application/json',
    };
    const answers = await Promise.all(Array.from({ length: 40 }, () => holdBody(stack.base, '/graphql', headers)));
    expect(answers.filter((a) => a.status === 0)).toEqual([]);
    expect(answers.filter((a) => a.status === 408)).toHaveLength(32);
    const busy = answers.filter((a) => a.status === 200).map((a) => JSON.parse(a.body) as { errors: unknown[] });
    expect(busy).toHaveLength(8);
    for (const b of busy)
      expect(b.errors).toEqual([
        { message: expect.any(String), extensions: { code: 'SERVICE_BUSY', retryAfterSeconds: 1 } },
      ]);
  });
});

describe('per-tenant budgets of GraphQL requests and of identities and pairs', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        GRAPHQL_REQUESTS_PER_MINUTE: '24',
        IMPORT_MAX_IDENTITIES: '10',
        ASSOCIATION_MAX_PAIRS: '10',
        BULK_ITEMS_PER_MINUTE: '15',
      },
    });
  });
  afterAll(async () => stack?.stop());

  const gql = async (query: string, variables?: unknown) =>
    call<{ data?: unknown; errors?: Array<{ extensions?: { code?: string; retryAfterSeconds?: number } }> }>(
      `${stack.base}/graphql`,
      {
        method: 'POST',
        token: await stack.token(DEV_CLIENTS.admin),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      },
    );
  const IMPORT =
    'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created runId } }';
  const identities = (from: number) =>
    Array.from({ length: 10 }, (_, i) => ({
      externalId: `budget-${from + i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'A',
      lastName: 'B',
    }));

  it('a second import of 10 identities within the minute (budget 15) is refused SERVICE_BUSY before it runs', async () => {
    const first = await gql(IMPORT, { i: { source: 'BudgetA', identities: identities(0) } });
    expect(first.body.errors).toBeUndefined();
    const second = await gql(IMPORT, { i: { source: 'BudgetB', identities: identities(100) } });
    expect(second.body.errors?.[0]?.extensions?.code).toBe('SERVICE_BUSY');
    expect(second.body.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const runs = await gql('{ importRuns(source: "BudgetB") { id } }');
    expect(runs.body.data).toEqual({ importRuns: [] });
  });

  it('the tenant gets SERVICE_BUSY once its requests of the minute are used up', async () => {
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await gql('{ scimIntegrations { id } }'));
    const codes = answers.map((a) => a.body.errors?.[0]?.extensions?.code ?? 'ok');
    expect(codes).toContain('SERVICE_BUSY');
    const busy = answers.find((a) => a.body.errors?.[0]?.extensions?.code === 'SERVICE_BUSY');
    expect(busy?.body.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});
