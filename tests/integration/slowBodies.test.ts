import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';
import { BODY_GRACE_MS } from '../../lib/http/request';

interface Trickled {
  status: number;
  text: string;
  /** Milliseconds from the start of the request to the answer. */
  ms: number;
}

/**
 * Sends the headers and `first` at once, then one byte a second (never the whole body) and reports the
 * answer; a request still unanswered after `giveUpMs` is closed and reported with status 0.
 */
function trickle(url: string, headers: Record<string, string>, first: string, giveUpMs: number): Promise<Trickled> {
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
    const ticker = setInterval(() => req.write(' '), 1000);
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
