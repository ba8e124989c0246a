/**
 * The dev host: serves captured Azure Functions registrations on node:http the way
 * the Functions host does (routePrefix ""), runs timers on their NCRONTAB schedules,
 * serves queue triggers (see queueTriggers.ts), and exposes `POST /admin/functions/{name}`
 * to run a timer now (as Core Tools do).
 */
import http from 'node:http';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import type { HttpResponseInit } from '@azure/functions';
import { HttpRequest, HttpResponse, InvocationContext } from '@azure/functions';
import type { RegisteredFunction } from './functionsCore';
import { registeredFunctions } from './functionsCore';
import { matchRoute, parseRouteTemplate, type RouteTemplate } from './routeTemplate';
import { parseNcrontab, resolveAppSettingExpression, type Schedule } from './ncrontab';
import type { HostLog } from './hostLog';
import { queueHostSettings, startQueueTriggers, type QueueTriggerFunction, type QueueTriggers } from './queueTriggers';

const MAX_BODY_BYTES = 100 * 1024 * 1024; // the Functions host's request limit

export type { HostLog };

interface HttpFunction {
  name: string;
  template: RouteTemplate;
  methods: Set<string>;
  handler: (req: HttpRequest, ctx: InvocationContext) => Promise<HttpResponseInit | HttpResponse>;
}

interface TimerFunction {
  name: string;
  schedule: Schedule;
  scheduleText: string;
  handler: (timer: unknown, ctx: InvocationContext) => Promise<unknown> | unknown;
}

export interface DevHost {
  url: string;
  functions: { http: string[]; timers: string[]; queues: string[] };
  runTimer(name: string): Promise<void>;
  /**
   * Starts or stops running the timers on their schedules (an instance of the local fleet runs them only while
   * it owns them: devhost/timerOwner.ts).
   */
  setTimersOnSchedule(on: boolean): void;
  /** Resolves once every served queue is empty and no queue-triggered invocation runs. */
  queuesIdle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DevHostOptions {
  port: number;
  host?: string;
  /** Loads the function modules (each calls app.http / app.timer). */
  load: () => void;
  runTimersOnSchedule: boolean;
  /** The app's host.json (queue trigger settings). */
  hostJson?: unknown;
  log: HostLog;
  /** Told when a timer function has run (on its schedule or asked), and whether it succeeded. */
  onTimerRun?: (name: string, succeeded: boolean) => void;
}

/**
 * Requires the function modules of a folder: an app folder's package.json "main" (a deployed package, as the
 * Functions host loads it), otherwise every module in name order, like the host's "main" glob.
 */
export function requireFunctionFolder(dir: string, extension: '.js' | '.ts'): void {
  const manifest = path.join(dir, 'package.json');
  if (fs.existsSync(manifest)) {
    const { main } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { main?: string };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (main) return void require(path.join(dir, main));
  }
  for (const file of fs.readdirSync(dir).sort()) {
    // The host loads function modules by path at run time, as the Functions host does.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (file.endsWith(extension) && !file.endsWith('.d.ts')) require(path.join(dir, file));
  }
}

function toFunctions(
  registrations: RegisteredFunction[],
  log: HostLog,
): { http: HttpFunction[]; timers: TimerFunction[]; queues: QueueTriggerFunction[] } {
  const httpFns: HttpFunction[] = [];
  const timers: TimerFunction[] = [];
  const queues: QueueTriggerFunction[] = [];
  for (const { metadata, handler } of registrations) {
    const trigger = Object.values(metadata.bindings).find(
      (b) => b.direction === 'in' && /trigger$/i.test(b.type ?? ''),
    );
    if (!trigger) continue;
    if (trigger.type?.toLowerCase() === 'httptrigger') {
      httpFns.push({
        name: metadata.name,
        template: parseRouteTemplate(trigger.route ?? metadata.name),
        methods: new Set((trigger.methods ?? ['GET', 'POST']).map((m) => m.toUpperCase())),
        handler: handler as HttpFunction['handler'],
      });
    } else if (trigger.type?.toLowerCase() === 'timertrigger') {
      const scheduleText = resolveAppSettingExpression(String(trigger.schedule ?? ''));
      timers.push({
        name: metadata.name,
        schedule: parseNcrontab(scheduleText),
        scheduleText,
        handler: handler as TimerFunction['handler'],
      });
    } else if (trigger.type?.toLowerCase() === 'queuetrigger') {
      queues.push({
        name: metadata.name,
        queueName: resolveAppSettingExpression(String(trigger.queueName ?? '')),
        connection: String(trigger.connection ?? 'AzureWebJobsStorage'),
        handler: handler as QueueTriggerFunction['handler'],
      });
    } else {
      log('warn', `Function ${metadata.name}: trigger type ${trigger.type ?? '?'} is not served by the dev host`);
    }
  }
  httpFns.sort((a, b) => b.template.specificity - a.template.specificity);
  return { http: httpFns, timers, queues };
}

function contextFor(functionName: string, log: HostLog): InvocationContext {
  const invocationId = randomUUID();
  return new InvocationContext({
    functionName,
    invocationId,
    logHandler: (level, ...args) => {
      const text = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      log(level === 'error' || level === 'critical' ? 'error' : level === 'warning' ? 'warn' : 'info', text);
    },
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'tooLarge'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(tooLarge ? 'tooLarge' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The request as a function sees it with HTTP streaming on (`app.setup({ enableHttpStream: true })`):
 * the body is the incoming stream, read only as far as the function reads it.
 */
function streamingRequest(
  req: http.IncomingMessage,
  method: string,
  url: URL,
  headers: Record<string, string>,
  params: Record<string, string>,
): HttpRequest {
  const withBody = method !== 'GET' && method !== 'HEAD';
  // The incoming message is pulled only when the function reads the body (as @azure/functions does).
  const body = withBody ? (req as unknown as RequestInit['body']) : undefined;
  const nativeRequest = new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
  // @azure/functions builds its streaming requests the same way, from a native Request.
  return new HttpRequest({ nativeRequest, params } as unknown as ConstructorParameters<typeof HttpRequest>[0]);
}

/** How long the host waits for a sender to close after answering a request whose body it did not read. */
const LINGER_MS = 5000;

/**
 * After answering a request whose body was not read to its end: the host reads no more of it (the
 * sender's TCP window closes, so it cannot push the rest), ends the connection after the answer, and
 * resets it if the sender has not closed within LINGER_MS. Nothing is reset at once: a sender still
 * writing would get the reset before it reads the answer.
 */
export function closeUnread(req: http.IncomingMessage): void {
  const socket = req.socket;
  // For a request that said "Connection: close", node:http resets the connection as soon as the answer
  // is written (with the body unread, the sender sees a reset instead of the answer).
  socket.removeListener('finish', socket.destroy);
  // node:http resumes an unread request (on the next tick) to read and discard the rest of its body.
  socket.pause();
  setImmediate(() => socket.pause());
  socket.end();
  socket.setTimeout(LINGER_MS, () => socket.destroy());
}

/**
 * An answer written before the request's body was read to its end is the connection's last (see
 * closeUnread): it says so, so a client does not send its next request on a connection about to close.
 */
function connectionHeader(res: http.ServerResponse): Record<string, string> {
  return res.req.complete ? {} : { connection: 'close' };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...connectionHeader(res),
  });
  res.end(text);
}

async function writeResponse(
  res: http.ServerResponse,
  result: HttpResponseInit | HttpResponse | undefined,
): Promise<void> {
  const response = result instanceof HttpResponse ? result : new HttpResponse(result ?? {});
  const given = result instanceof HttpResponse ? undefined : result?.body;
  if (given !== null && typeof given === 'object' && Symbol.asyncIterator in given && response.body) {
    // A streamed body (HTTP streaming is on): written as the function makes it, at the pace the client takes it.
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    res.writeHead(response.status, { ...headers, ...connectionHeader(res) });
    const reader = response.body.getReader();
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    try {
      for (;;) {
        const next = await Promise.race([reader.read(), closed.then(() => undefined)]);
        if (next === undefined || next.done) break;
        if (!res.write(next.value)) await Promise.race([once(res, 'drain'), closed]);
      }
    } finally {
      if (res.destroyed) await reader.cancel().catch(() => undefined);
      res.end();
    }
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  if (body.length > 0 && !headers['content-type']) headers['content-type'] = 'text/plain; charset=utf-8';
  headers['content-length'] = String(body.length);
  Object.assign(headers, connectionHeader(res));
  res.writeHead(response.status, headers);
  res.end(body);
}

export async function startDevHost(opts: DevHostOptions): Promise<DevHost> {
  opts.load();
  const { http: httpFns, timers, queues } = toFunctions(registeredFunctions(), opts.log);
  const timerByName = new Map(timers.map((t) => [t.name.toLowerCase(), t]));

  const runTimer = async (timer: TimerFunction): Promise<void> => {
    const ctx = contextFor(timer.name, opts.log);
    const now = new Date().toISOString();
    opts.log('info', `Executing '${timer.name}' (invocation ${ctx.invocationId})`);
    try {
      await timer.handler(
        {
          isPastDue: false,
          schedule: { adjustForDST: true },
          scheduleStatus: { last: now, next: now, lastUpdated: now },
        },
        ctx,
      );
      opts.log('info', `Executed '${timer.name}' (Succeeded, invocation ${ctx.invocationId})`);
      opts.onTimerRun?.(timer.name, true);
    } catch (err) {
      opts.log('error', `Executed '${timer.name}' (Failed, invocation ${ctx.invocationId}): ${(err as Error).name}`);
      opts.onTimerRun?.(timer.name, false);
      throw err;
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    res.once('finish', () => {
      if (!req.complete) closeUnread(req);
    });
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const method = (req.method ?? 'GET').toUpperCase();

    const admin = /^\/admin\/functions\/([^/]+)$/i.exec(url.pathname);
    if (admin && method === 'POST') {
      const timer = timerByName.get(decodeURIComponent(admin[1] ?? '').toLowerCase());
      if (!timer) return sendJson(res, 404, { error: 'No timer function with that name' });
      await readBody(req);
      res.writeHead(202, { 'content-length': '0' });
      res.end();
      runTimer(timer).catch(() => undefined);
      return;
    }

    let matched: { fn: HttpFunction; params: Record<string, string> } | undefined;
    let pathMatched = false;
    for (const fn of httpFns) {
      const params = matchRoute(fn.template, url.pathname);
      if (!params) continue;
      pathMatched = true;
      if (fn.methods.has(method)) {
        matched = { fn, params };
        break;
      }
    }
    if (!matched) {
      return sendJson(res, pathMatched ? 405 : 404, { error: pathMatched ? 'Method not allowed' : 'Not found' });
    }

    if (Number(req.headers['content-length'] ?? '0') > MAX_BODY_BYTES)
      return sendJson(res, 413, { error: 'Request body too large' });
    // Repeated headers are joined with ", " as the Functions host does (node:http alone would keep only
    // the first Authorization header, and the request would be judged by whichever came first).
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headersDistinct)) {
      if (v !== undefined) headers[k] = v.join(', ');
    }
    const request = streamingRequest(req, method, url, headers, matched.params);
    const ctx = contextFor(matched.fn.name, opts.log);
    try {
      await writeResponse(res, await matched.fn.handler(request, ctx));
    } catch (err) {
      opts.log('error', `Function ${matched.fn.name} failed (invocation ${ctx.invocationId}): ${(err as Error).name}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error', correlationId: ctx.invocationId });
      else res.destroy();
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  let ticker: NodeJS.Timeout | undefined;
  const setTimersOnSchedule = (on: boolean): void => {
    if (!on || timers.length === 0) {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      return;
    }
    if (ticker) return;
    let lastSecond = Math.floor(Date.now() / 1000);
    ticker = setInterval(() => {
      const second = Math.floor(Date.now() / 1000);
      for (let s = lastSecond + 1; s <= second; s++) {
        const at = new Date(s * 1000);
        for (const t of timers) if (t.schedule.matches(at)) runTimer(t).catch(() => undefined);
      }
      lastSecond = second;
    }, 250);
    ticker.unref();
  };
  setTimersOnSchedule(opts.runTimersOnSchedule);

  let queueTriggers: QueueTriggers | undefined;
  try {
    queueTriggers =
      queues.length > 0
        ? await startQueueTriggers(
            queues,
            queueHostSettings(opts.hostJson),
            (setting) => process.env[setting],
            opts.log,
          )
        : undefined;
  } catch (err) {
    if (ticker) clearInterval(ticker);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }

  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    functions: {
      http: httpFns.map((f) => f.name),
      timers: timers.map((t) => t.name),
      queues: queues.map((q) => q.name),
    },
    queuesIdle: async (timeoutMs) => queueTriggers?.idle(timeoutMs),
    setTimersOnSchedule,
    runTimer: async (name) => {
      const t = timerByName.get(name.toLowerCase());
      if (!t) throw new Error(`No timer ${name}`);
      await runTimer(t);
    },
    close: async () => {
      setTimersOnSchedule(false);
      await queueTriggers?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
