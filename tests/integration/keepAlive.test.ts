import http from 'node:http';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS } from '../../devhost/devData';

interface Answer {
  status: number;
  connection: string | undefined;
  socketReused: boolean;
}

const MB = 1024 * 1024;

describe('a connection the dev host ends after a refusal says Connection: close, so a keep-alive client can go on', () => {
  let stack: TestStack;
  let agent: http.Agent;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    agent?.destroy();
    await stack?.stop();
  });
  beforeEach(() => {
    agent?.destroy();
    // One socket, kept alive: every request goes over the previous one's connection when it may.
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });

  /** Sends a request (with `body` written, or only declared when `declared` is larger) and waits for the answer. */
  const send = (
    path: string,
    o: { method?: string; headers?: Record<string, string>; body?: Buffer; declared?: number; hold?: boolean } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        `${stack.base}${path}`,
        {
          agent,
          method: o.method ?? 'GET',
          headers: {
            ...o.headers,
            ...(o.body || o.declared ? { 'content-length': String(o.declared ?? o.body?.length ?? 0) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              socketReused: req.reusedSocket,
            }),
          );
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      if (o.body) req.write(o.body);
      if (!o.hold && !o.declared) req.end();
    });

  const ok = () => send('/scim/v2/ServiceProviderConfig');

  it.each([
    [
      '401 before a large body is read',
      async () =>
        send('/scim/v2/Users', {
          method: 'POST',
          headers: { 'content-type': 'application/scim+json' },
          body: Buffer.alloc(2 * MB, 0x20),
        }),
      401,
    ],
    [
      '413 for a declared body over the limit',
      async () =>
        send('/scim/v2/Users', {
          method: 'POST',
          headers: {
            'content-type': 'application/scim+json',
            authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`,
          },
          declared: 5 * MB,
        }),
      413,
    ],
    [
      '408 for a body that never comes',
      async () =>
        send('/scim/v2/Users', {
          method: 'POST',
          headers: {
            'content-type': 'application/scim+json',
            authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`,
          },
          declared: 1000,
        }),
      408,
    ],
    [
      'QUERY_TOO_LARGE in the middle of a GraphQL body',
      async () =>
        send('/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}`,
          },
          body: Buffer.from(`{"query":"{ ${'__typename '.repeat(200_000)}}"}`),
          declared: 3 * MB,
        }),
      413,
    ],
    [
      '404 for an unknown route with a body',
      async () => send('/nothing-here', { method: 'POST', body: Buffer.alloc(2 * MB, 0x20) }),
      404,
    ],
  ])('%s', async (_what, refuse, status) => {
    const first = await ok();
    expect(first.connection).toBe('keep-alive');
    const refused = await refuse();
    expect(refused.status).toBe(status);
    expect(refused.socketReused).toBe(true);
    expect(refused.connection).toBe('close');
    // The next request goes over a new connection and is answered (not "socket hang up").
    const next = await ok();
    expect(next.status).toBe(200);
    expect(next.socketReused).toBe(false);
  });

  it('an answer after the whole body was read keeps the connection', async () => {
    await ok();
    const res = await send('/scim/v2/Users', {
      method: 'POST',
      headers: {
        'content-type': 'application/scim+json',
        authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`,
      },
      body: Buffer.from('{}'),
    });
    expect(res.status).toBe(400);
    expect(res.connection).toBe('keep-alive');
    expect((await ok()).socketReused).toBe(true);
  });
});
