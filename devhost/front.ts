/**
 * The front of the local fleet, on the host URL: spreads requests over the live instances in turn with no
 * stickiness, as Flex Consumption's front end does, and streams bodies both ways (a body is never held whole:
 * what the instance does not read yet, the front does not read from the caller either, so its memory stays
 * bounded whatever the caller sends). An instance that died is no longer picked (the fleet takes it out of the
 * turn when its process ends); a request that was on it when it died fails (502 when nothing was answered yet),
 * as a request in flight on a lost Azure instance does. Each answer names the instance that gave it in
 * `x-dev-instance` (the front's header, for tests and for a developer watching; the service sets no such header).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeUnread } from './host';

export const INSTANCE_HEADER = 'x-dev-instance';

export interface FrontTarget {
  /** The instance's place in the fleet (1-based). */
  index: number;
  port: number;
  /** Connections to the instance kept alive between requests (frontAgent()). */
  agent: http.Agent;
}

/** The instances close a connection idle for 5 s (the dev host's keepAliveTimeout). */
const INSTANCE_KEEP_ALIVE_MS = 5000;

/**
 * The front's connections to one instance: kept alive, and closed by the front after 4 s idle, before the
 * instance closes them, so a request is not sent on a connection the instance is closing at that moment.
 */
export function frontAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 256, timeout: INSTANCE_KEEP_ALIVE_MS - 1000 });
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

/** Headers that belong to one connection, never passed on (RFC 9110 §7.6.1), plus those the Connection header names. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** Raw headers (name, value, name, value, …) without the hop-by-hop ones; repeated headers stay repeated. */
export function endToEndHeaders(raw: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!named.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

function refuse(res: http.ServerResponse, status: number, error: string): void {
  const text = JSON.stringify({ error });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(status === 503 ? { 'retry-after': '1' } : {}),
  });
  res.end(text);
}

export async function startFront(options: {
  port: number;
  host?: string;
  /** The instance for the next request (undefined when none is live). */
  pick: () => FrontTarget | undefined;
}): Promise<Front> {
  const server = http.createServer((req, res) => {
    const target = options.pick();
    if (!target) {
      req.resume();
      return refuse(res, 503, 'No instance of the service is running');
    }
    const bodiless =
      req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? '0') === 0;
    const forward = (retried: boolean): void => {
      const upstream = http.request({
        host: '127.0.0.1',
        port: target.port,
        method: req.method,
        path: req.url,
        headers: endToEndHeaders(req.rawHeaders) as unknown as http.OutgoingHttpHeaders,
        // A request with a body goes on a connection of its own, as from a caller straight to the instance: on a
        // kept-alive one, the dev host ended some whose body was slow (held) with no answer at all.
        agent: bodiless ? target.agent : false,
      });
      upstream.on('response', (answer) => {
        const headers = endToEndHeaders(answer.rawHeaders);
        headers.push(INSTANCE_HEADER, String(target.index));
        // The instance ends a connection whose body it did not read; the caller's connection ends the same way.
        if (/\bclose\b/i.test(String(answer.headers.connection ?? '')) && !req.complete) {
          headers.push('connection', 'close');
          res.once('finish', () => closeUnread(req));
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(res);
        answer.once('aborted', () => res.destroy());
        answer.once('error', () => res.destroy());
      });
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the instance closed just as it was reused: a request without a body goes
        // again once, on a new connection (what node:http's documentation advises); nothing of it was lost.
        if (!retried && bodiless && upstream.reusedSocket && err.code === 'ECONNRESET' && !res.headersSent)
          return forward(true);
        if (!res.headersSent) refuse(res, 502, 'The instance that took the request is gone');
        else res.destroy();
      });
      // The caller went away before the answer was complete: so does the request to the instance.
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      if (bodiless) upstream.end();
      else req.pipe(upstream);
    };
    if (bodiless) req.resume();
    forward(false);
  });

  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
