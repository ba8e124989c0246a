import { request as httpRequest } from 'node:http';

export interface StreamedAnswer {
  status: number;
  text: string;
  /** Body bytes handed to the socket before the answer arrived or the connection closed. */
  bytesSent: number;
  /** Whether the whole declared body was sent. */
  complete: boolean;
}

/**
 * A GraphQL document of `size` bytes as JSON, made of repeated fields and different per `salt`,
 * produced chunk by chunk so the sender never holds the whole document.
 */
export function largeGraphQLBody(size: number, salt: number): (offset: number, length: number) => Buffer {
  const prefix = Buffer.from(`{"query":"query Q${salt} { `);
  const suffix = Buffer.from(' }"}');
  const field = 'scimIntegrations { id displayName clientId enabled scimEndpoint } ';
  const pattern = Buffer.from(field.repeat(Math.ceil((128 * 1024) / field.length) + 1));
  // Whole fields only; the rest up to the suffix is spaces.
  const fieldsEnd = prefix.length + Math.floor((size - prefix.length - suffix.length) / field.length) * field.length;
  return (offset, length) => {
    const out = Buffer.alloc(length, 0x20);
    for (let i = 0; i < length; ) {
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
}

/**
 * POSTs a body of `size` bytes in 64 KB chunks, each written only when the socket has taken the last
 * (so what is sent is what the server let in), and stops sending once the answer arrives.
 */
export function postStreamed(url: string, headers: Record<string, string>, size: number, chunkAt: (offset: number, length: number) => Buffer): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let closed = false;
    let wake: (() => void) | undefined;
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(size) } }, (res) => {
      answered = true;
      const bytesSent = sent;
      wake?.();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), bytesSent, complete: bytesSent === size });
        req.destroy();
      });
      res.on('error', () => undefined);
    });
    req.on('error', (err) => {
      closed = true;
      wake?.();
      if (!answered) reject(err);
    });
    req.on('close', () => {
      closed = true;
      wake?.();
    });
    req.on('drain', () => wake?.());
    void (async () => {
      while (sent < size && !answered && !closed) {
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
