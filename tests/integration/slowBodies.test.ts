import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { startTestStack, call, type TestStack } from '../support/stack';
import { importPeople } from '../support/importSets';
import { DEV_CLIENTS, DEV_TENANT_ID, UNREGISTERED_TENANT_ID } from '../../devhost/devData';
import { BODY_GRACE_MS } from '../../lib/http/request';
import { services } from '../../lib/services';

interface Trickled {
  status: number;
  text: string;
  /** Milliseconds from the start of the request to the answer. */
  ms: number;
}

/**
 * Sends the headers and `first` at once, then `step.bytes` every `step.everyMs` (by default one byte a second;
 * never the whole body) and reports the answer; a request still unanswered after `giveUpMs` is closed and
 * reported with status 0.
 */
function trickle(
  url: string,
  headers: Record<string, string>,
  first: string,
  giveUpMs: number,
  step = { bytes: 1, everyMs: 1000 },
): Promise<Trickled> {
  return new Promise((resolve) => {
    const started = Date.now();
    const finish = (answer: Trickled) => {
      clearInterval(ticker);
      clearTimeout(giveUp);
      req.destroy();
      resolve(answer);
    };
    const req = httpRequest(url, { method: 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started }),
      );
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    const giveUp = setTimeout(() => finish({ status: 0, text: '', ms: Date.now() - started }), giveUpMs);
    req.write(first);
    const ticker = setInterval(() => req.write(' '.repeat(step.bytes)), step.everyMs);
  });
}

describe('a caller that trickles its body', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('is answered 408 once it falls behind the minimum rate: SCIM and GraphQL, with a Content-Length above what is sent, or chunked', async () => {
    const scim = `Bearer ${await stack.token(DEV_CLIENTS.scim)}`;
    const admin = `Bearer ${await stack.token(DEV_CLIENTS.admin)}`;
    const giveUp = BODY_GRACE_MS + 15_000;
    const [scimDeclared, scimChunked, graphqlDeclared, graphqlChunked] = await Promise.all([
      trickle(
        `${stack.base}/scim/v2/Users`,
        { authorization: scim, 'content-type': 'application/scim+json', 'content-length': '4000' },
        '{"schemas":',
        giveUp,
      ),
      trickle(
        `${stack.base}/scim/v2/Users`,
        { authorization: scim, 'content-type': 'application/scim+json' },
        '{"schemas":',
        giveUp,
      ),
      trickle(
        `${stack.base}/graphql`,
        { authorization: admin, 'content-type': 'application/json', 'content-length': '900000' },
        '{"query":"{ scimIntegrations { id } }"',
        giveUp,
      ),
      trickle(
        `${stack.base}/graphql`,
        { authorization: admin, 'content-type': 'application/json' },
        '{"query":"{ scimIntegrations { id } }"',
        giveUp,
      ),
    ]);
    for (const answer of [scimDeclared, scimChunked, graphqlDeclared, graphqlChunked]) {
      expect(answer.status).toBe(408);
      expect(answer.ms).toBeGreaterThanOrEqual(BODY_GRACE_MS - 500);
    }
    expect(JSON.parse(scimDeclared.text)).toMatchObject({ status: '408', detail: expect.stringMatching(/too slowly/) });
    expect(
      (JSON.parse(graphqlChunked.text) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions
        .code,
    ).toBe('REQUEST_TIMEOUT');
  });

  it('a Content-Length below what is sent: 400, and the excess is not taken as a body nor repeated', async () => {
    const token = await stack.token(DEV_CLIENTS.scim);
    const body = JSON.stringify({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'short.length@example.com',
      externalId: 'short-length',
    });
    // A raw socket: node:http's client refuses to send more than the Content-Length it declared.
    const { hostname: host, port } = new URL(stack.host.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host, port: Number(port) }, () => {
        socket.write(
          `POST /scim/v2/Users HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/scim+json\r\ncontent-length: 12\r\nconnection: close\r\n\r\n${body}`,
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).not.toContain('short');
  });
});

describe("one tenant's slow bodies and another tenant's import", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    await services().tenants.register(UNREGISTERED_TENANT_ID);
  });
  afterAll(async () => {
    await services().tenants.remove(UNREGISTERED_TENANT_ID);
    await stack?.stop();
  });

  it("while tenant A trickles two bodies declared 100 MB and 28 MB and as many 8 MiB ones as it may at 24 KB/s, tenant B's 500-identity import succeeds within 10 s; A's bodies are refused", async () => {
    const headers = {
      authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}`,
      'content-type': 'application/json',
    };
    const MB = 1024 * 1024;
    const declared = [100 * MB, 28 * MB, 8 * MB, 8 * MB, 8 * MB];
    // 2,400 bytes every 100 ms: 24 KB/s.
    const slow = declared.map((size) =>
      trickle(
        `${stack.base}/graphql`,
        { ...headers, 'content-length': String(size) },
        '{"query":"{ __typename }","variables":{"pad":"',
        BODY_GRACE_MS + 30_000,
        { bytes: 2_400, everyMs: 100 },
      ),
    );
    // A holds its whole share (two 8 MiB bodies) before B sends.
    const until = Date.now() + 5_000;
    while (services().graphqlBodyBytes.held(DEV_TENANT_ID) < 16 * MB && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(services().graphqlBodyBytes.held(DEV_TENANT_ID)).toBe(16 * MB);

    const started = Date.now();
    const imported = await call<{
      data?: { importBusinessIdentities: { created: number } } | null;
      errors?: Array<{ extensions?: { code?: string } }>;
    }>(`${stack.base}/graphql`, {
      method: 'POST',
      token: await stack.token(DEV_CLIENTS.otherAdmin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
        variables: { i: { source: 'WhileAHolds', identities: importPeople('b', 500) } },
      }),
    });
    expect(imported.body.errors).toBeUndefined();
    expect(imported.body.data?.importBusinessIdentities.created).toBe(500);
    expect(Date.now() - started).toBeLessThan(10_000);

    const answers = await Promise.all(slow);
    const code = (a: Trickled) =>
      (JSON.parse(a.text) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code;
    // Past GRAPHQL_MAX_BODY_BYTES by their Content-Length: refused at once, unread.
    for (const oversized of answers.slice(0, 2)) {
      expect(oversized.status).toBe(413);
      expect(code(oversized)).toBe('USE_STAGED_IMPORT');
      expect(oversized.ms).toBeLessThan(2_000);
    }
    // A's share of the body budget holds two 8 MiB bodies: the third is refused busy; the two held fall behind
    // the minimum rate and are refused soon after the grace time, whatever size they declared.
    const held = answers.slice(2).sort((x, y) => x.status - y.status);
    expect(held.map((a) => [a.status, code(a)])).toEqual([
      [200, 'SERVICE_BUSY'],
      [408, 'REQUEST_TIMEOUT'],
      [408, 'REQUEST_TIMEOUT'],
    ]);
    for (const late of held.slice(1)) expect(late.ms).toBeLessThan(BODY_GRACE_MS + 10_000);
    expect(services().graphqlBodyBytes.held()).toBe(0);
  });
});
