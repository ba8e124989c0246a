/**
 * The front of the local fleet (devhost/front.ts) over plain HTTP servers standing for instances: bodies stream
 * both ways (the instance sees the first bytes of a body before the caller has sent the rest, and the caller
 * the first bytes of an answer before the instance has finished it), requests go to the instances in turn, and
 * an instance that is gone or missing is answered for by the front.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { INSTANCE_HEADER, startFront, type Front, type FrontTarget } from '../../../devhost/front';
import { RoundRobin } from '../../../devhost/roundRobin';

interface Upstream {
  target: FrontTarget;
  server: http.Server;
  received: Buffer[];
  onChunk?: () => void;
}

async function upstream(
  index: number,
  handler: (u: Upstream, req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  const u = { received: [] as Buffer[] } as unknown as Upstream;
  u.server = http.createServer((req, res) => handler(u, req, res));
  await new Promise<void>((resolve) => u.server.listen(0, '127.0.0.1', resolve));
  u.target = { index, port: (u.server.address() as AddressInfo).port, agent: new http.Agent({ keepAlive: true }) };
  return u;
}

const until = async (ok: () => boolean) => {
  const end = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the front of the local fleet', () => {
  const servers: http.Server[] = [];
  let front: Front | undefined;
  afterEach(async () => {
    await front?.close();
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('streams a request body to the instance as it comes, and the answer back as it goes', async () => {
    let release: (() => void) | undefined;
    const u = await upstream(1, (self, req, res) => {
      req.on('data', (c: Buffer) => self.received.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part;');
        release = () => res.end('second part');
      });
    });
    servers.push(u.server);
    front = await startFront({ port: 0, pick: () => u.target });
    const url = new URL(front.url);

    const answer = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/x' }, (res) => {
        expect(res.headers[INSTANCE_HEADER]).toBe('1');
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
          // The first part arrives while the instance still holds the rest back.
          if (text === 'first part;') release?.();
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.write('a'.repeat(1000));
      // The instance has the first bytes before the caller sends the rest.
      until(() => u.received.length > 0).then(() => req.end('b'.repeat(1000)), reject);
    });
    expect(answer).toBe('first part;second part');
    expect(Buffer.concat(u.received).toString()).toBe('a'.repeat(1000) + 'b'.repeat(1000));
  });

  it('passes each request to the next instance in turn; a removed one is no longer picked', async () => {
    const ups = await Promise.all(
      [1, 2, 3].map((i) =>
        upstream(i, (_, req, res) => {
          req.resume();
          res.end(String(i));
        }),
      ),
    );
    servers.push(...ups.map((u) => u.server));
    const turn = new RoundRobin(ups.map((u) => u.target));
    front = await startFront({ port: 0, pick: () => turn.pick() });
    const served = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push(await (await fetch(`${front!.url}/`)).text());
      return out;
    };
    expect(await served(6)).toEqual(['1', '2', '3', '1', '2', '3']);
    turn.remove(ups[1]!.target);
    expect(await served(4)).toEqual(['1', '3', '1', '3']);
  });

  it("passes repeated headers on repeated, and none of the connection's own", async () => {
    const u = await upstream(1, (_, req, res) => {
      req.resume();
      res.end(JSON.stringify({ authorization: req.headersDistinct.authorization, hop: req.headers['x-hop'] ?? null }));
    });
    servers.push(u.server);
    front = await startFront({ port: 0, pick: () => u.target });
    const url = new URL(front.url);
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/',
          // A raw header list: node:http sends it as it is (no Host of its own).
          headers: [
            ['host', url.host],
            ['authorization', 'Bearer a'],
            ['authorization', 'Bearer b'],
            ['connection', 'keep-alive, x-hop'],
            ['x-hop', 'for this connection only'],
          ].flat(),
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body)).toEqual({ authorization: ['Bearer a', 'Bearer b'], hop: null });
  });

  it('a request without a body whose kept-alive connection the instance closes goes again on a new one', async () => {
    const served = new WeakSet<object>();
    const u = await upstream(1, (_, req, res) => {
      req.resume();
      // The second request on a connection finds it closing, as when the instance's keep-alive timeout ends.
      if (served.has(req.socket)) return void req.socket.destroy();
      served.add(req.socket);
      res.end('ok');
    });
    servers.push(u.server);
    front = await startFront({ port: 0, pick: () => u.target });
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${front.url}/health`);
      expect({ status: answer.status, text: await answer.text() }).toEqual({ status: 200, text: 'ok' });
    }
  });

  it('keeps connections to an instance alive for requests without a body; one with a body gets a connection of its own', async () => {
    const sockets: Array<[string, object]> = [];
    const u = await upstream(1, (_, req, res) => {
      req.resume();
      req.on('end', () => {
        sockets.push([req.method ?? '', req.socket]);
        res.end('ok');
      });
    });
    servers.push(u.server);
    front = await startFront({ port: 0, pick: () => u.target });
    for (const method of ['GET', 'GET', 'POST', 'POST']) {
      const answer = await fetch(`${front.url}/x`, { method, body: method === 'POST' ? 'body' : undefined });
      expect(await answer.text()).toBe('ok');
    }
    const [get1, get2, post1, post2] = sockets.map(([, s]) => s);
    expect(get2).toBe(get1);
    expect(new Set([get1, post1, post2]).size).toBe(3);
  });

  it('answers 502 for an instance that is gone, and 503 with Retry-After when none is left', async () => {
    const gone = await upstream(1, () => undefined);
    const target = gone.target;
    await new Promise((r) => gone.server.close(r));
    let live: FrontTarget | undefined = target;
    front = await startFront({ port: 0, pick: () => live });
    const refused = await fetch(`${front.url}/scim/v2/Users`, { method: 'POST', body: 'x' });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toEqual({ error: 'The instance that took the request is gone' });
    live = undefined;
    const none = await fetch(`${front.url}/scim/v2/Users`);
    expect(none.status).toBe(503);
    expect(none.headers.get('retry-after')).toBe('1');
  });
});
