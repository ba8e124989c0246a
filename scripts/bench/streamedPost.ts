import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface StreamedAnswer {
  status: number;
  text: string;
  /** Body bytes handed to the socket before the answer arrived. */
  bytesSent: number;
  /** Whether the whole declared body was sent. */
  complete: boolean;
}

export type BodyChunks = (offset: number, length: number) => Buffer;

/**
 * A GraphQL document of `size` bytes as JSON, made of repeated fields and different per `salt`,
 * produced chunk by chunk so the sender never holds the whole document. With `shared`, chunks after
 * the first (the same in every document) are made once and reused.
 */
export function largeGraphQLBody(size: number, salt: number, shared?: Map<string, Buffer>): BodyChunks {
  const prefix = Buffer.from(`{"query":"query Q${String(salt).padStart(9, '0')} { `);
  const suffix = Buffer.from(' }"}');
  const field = 'scimIntegrations { id displayName clientId enabled scimEndpoint } ';
  const pattern = Buffer.from(field.repeat(Math.ceil((128 * 1024) / field.length) + 1));
  // Whole fields only; the rest up to the suffix is spaces.
  const fieldsEnd = prefix.length + Math.floor((size - prefix.length - suffix.length) / field.length) * field.length;
  const make: BodyChunks = (offset, length) => {
    const out = Buffer.alloc(length, 0x20);
    for (let i = 0; i < length;) {
      const at = offset + i;
      if (at < prefix.length) out[i++] = prefix[at] ?? 0x20;
      else if (at >= size - suffix.length) out[i++] = suffix[at - (size - suffix.length)] ?? 0x20;
      else if (at >= fieldsEnd) i++;
      else {
        const start = (at - prefix.length) % field.length;
        const n = Math.min(length - i, fieldsEnd - at, pattern.length - start);
        pattern.copy(out, i, start, start + n);
        i += n;
      }
    }
    return out;
  };
  if (!shared) return make;
  return (offset, length) => {
    if (offset < prefix.length) return make(offset, length);
    const key = `${size}:${offset}:${length}`;
    let chunk = shared.get(key);
    if (!chunk) shared.set(key, (chunk = make(offset, length)));
    return chunk;
  };
}

/** Invalid JSON of `size` bytes: the large document with a comma where its first colon was. */
export function invalidJsonBody(size: number, salt: number, shared?: Map<string, Buffer>): BodyChunks {
  const doc = largeGraphQLBody(size, salt, shared);
  const colon = '{"query"'.length;
  return (offset, length) => {
    const chunk = doc(offset, length);
    if (offset <= colon && colon < offset + length) chunk[colon - offset] = 0x2c;
    return chunk;
  };
}

/**
 * POSTs a body of `size` bytes in 64 KB chunks, each written only when the socket has taken the last
 * (so what is sent is what the server let in), and stops sending once the answer arrives. With
 * `chunked` the body has no Content-Length (Transfer-Encoding: chunked).
 */
export function postStreamed(
  url: string,
  headers: Record<string, string>,
  size: number,
  chunkAt: BodyChunks,
  options: { chunked?: boolean } = {},
): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let closed = false;
    let answer: { status: number; bytesSent: number; chunks: Buffer[] } | undefined;
    let wake: (() => void) | undefined;
    const length = options.chunked ? {} : { 'content-length': String(size) };
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, ...length } }, (res) => {
      const got = (answer = { status: res.statusCode ?? 0, bytesSent: sent, chunks: [] as Buffer[] });
      wake?.();
      res.on('data', (c: Buffer) => got.chunks.push(c));
      res.on('end', () => req.destroy());
      res.on('error', () => undefined);
    });
    // A reset after the answer is expected; 'close' decides.
    req.on('error', () => undefined);
    req.on('close', () => {
      closed = true;
      wake?.();
      if (!answer) return reject(new Error('the connection closed before an answer'));
      resolve({
        status: answer.status,
        text: Buffer.concat(answer.chunks).toString('utf8'),
        bytesSent: answer.bytesSent,
        complete: sent === size,
      });
    });
    req.on('drain', () => wake?.());
    void (async () => {
      while (sent < size && !closed && !answer) {
        const length = Math.min(64 * 1024, size - sent);
        const flushed = req.write(chunkAt(sent, length));
        sent += length;
        if (!flushed) await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      if (sent === size && !closed) req.end();
    })();
  });
}

/**
 * A sender that ignores the answer: writes the request over a plain socket (an HTTP client would stop
 * at the answer) and keeps sending until the server ends the connection. Resolves with the body bytes
 * the socket took in all and whether an answer came.
 */
export function sendIgnoringAnswer(
  url: string,
  headers: Record<string, string>,
  size: number,
  chunkAt: BodyChunks,
): Promise<{ bytesSent: number; answered: boolean; complete: boolean }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    let closed = false;
    let wake: (() => void) | undefined;
    const socket = connect(Number(port), hostname);
    socket.on('data', () => (answered = true));
    socket.on('error', () => undefined);
    socket.on('drain', () => wake?.());
    socket.on('close', () => {
      closed = true;
      wake?.();
      resolve({ bytesSent: sent, answered, complete: sent === size });
    });
    const head = [
      `POST ${pathname} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `content-length: ${size}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    socket.write(head);
    void (async () => {
      while (sent < size && !closed) {
        const length = Math.min(64 * 1024, size - sent);
        const flushed = socket.write(chunkAt(sent, length));
        sent += length;
        if (!flushed) await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    })();
  });
}
