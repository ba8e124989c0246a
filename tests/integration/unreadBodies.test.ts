import v8 from 'node:v8';
import vm from 'node:vm';
import { startTestStack, type TestStack } from '../support/stack';
import {
  largeGraphQLBody,
  postStreamed,
  sendIgnoringAnswer,
  type StreamedAnswer,
} from '../../scripts/bench/streamedPost';
import { DEV_CLIENTS } from '../../devhost/devData';

const MB = 1024 * 1024;
const codesOf = (answer: StreamedAnswer) =>
  (JSON.parse(answer.text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.map(
    (e) => e.extensions?.code,
  );

/** A full collection (the test process is not started with --expose-gc). */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** Heap plus buffers outside it (a request body held by the host would be a Buffer). */
const inUse = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

describe('a refused caller cannot make the service take in its body', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  const graphql = () => `${stack.base}/graphql`;
  const json = { 'content-type': 'application/json' };

  it('a 20 MB GraphQL document without a token is answered AUTH_NOT_AUTHENTICATED after a small part of it was sent', async () => {
    const answer = await postStreamed(graphql(), json, 20 * MB, largeGraphQLBody(20 * MB, 1));
    expect(answer.status).toBe(200);
    expect(codesOf(answer)).toEqual(['AUTH_NOT_AUTHENTICATED']);
    expect(answer.complete).toBe(false);
    // What loopback socket buffers take in without the server reading; the document is 20 MB.
    expect(answer.bytesSent).toBeLessThan(8 * MB);
  });

  it('a 20 MB GraphQL document with a token of the wrong role is answered AUTH_NOT_AUTHORIZED after a small part of it was sent', async () => {
    const headers = { ...json, authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}` };
    const answer = await postStreamed(graphql(), headers, 20 * MB, largeGraphQLBody(20 * MB, 2));
    expect(codesOf(answer)).toEqual(['AUTH_NOT_AUTHORIZED']);
    expect(answer.complete).toBe(false);
    expect(answer.bytesSent).toBeLessThan(8 * MB);
  });

  it('a 20 MB SCIM body without a token is 401 after a small part of it was sent', async () => {
    const answer = await postStreamed(
      `${stack.base}/scim/v2/Users`,
      { 'content-type': 'application/scim+json' },
      20 * MB,
      largeGraphQLBody(20 * MB, 3),
    );
    expect(answer.status).toBe(401);
    expect(answer.complete).toBe(false);
    expect(answer.bytesSent).toBeLessThan(8 * MB);
  });

  it('a SCIM body without a Content-Length is read only up to the 1 MB limit: 413 after a small part of 20 MB was sent', async () => {
    const headers = {
      'content-type': 'application/scim+json',
      authorization: `Bearer ${await stack.token(DEV_CLIENTS.scim)}`,
    };
    const answer = await postStreamed(`${stack.base}/scim/v2/Users`, headers, 20 * MB, largeGraphQLBody(20 * MB, 6), {
      chunked: true,
    });
    expect(answer.status).toBe(413);
    expect(answer.complete).toBe(false);
    expect(answer.bytesSent).toBeLessThan(8 * MB);
  });

  it('a sender that ignores the answer and keeps sending gets no more in: the connection ends after the answer and is reset within 5 s', async () => {
    const sender = await sendIgnoringAnswer(graphql(), json, 20 * MB, largeGraphQLBody(20 * MB, 5));
    expect(sender.answered).toBe(true);
    expect(sender.complete).toBe(false);
    expect(sender.bytesSent).toBeLessThan(8 * MB);
  });

  it('eight different 11 MB documents at once without a token leave memory in use within 32 MB of where it was', async () => {
    // The senders reuse the chunks after each document's first, made before measuring.
    const shared = new Map<string, Buffer>();
    const warm = largeGraphQLBody(11 * MB, 0, shared);
    for (let offset = 64 * 1024; offset < 11 * MB; offset += 64 * 1024)
      warm(offset, Math.min(64 * 1024, 11 * MB - offset));
    collectGarbage();
    let peak = inUse();
    const before = peak;
    const sampler = setInterval(() => (peak = Math.max(peak, inUse())), 5);
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          postStreamed(graphql(), json, 11 * MB, largeGraphQLBody(11 * MB, 10 + i, shared)),
        ),
      );
      peak = Math.max(peak, inUse());
      for (const answer of answers) {
        expect(codesOf(answer)).toEqual(['AUTH_NOT_AUTHENTICATED']);
        expect(answer.complete).toBe(false);
      }
    } finally {
      clearInterval(sampler);
    }
    // Taking the eight documents in would hold 88 MB (twice that while each is joined into one buffer).
    expect(peak - before).toBeLessThan(32 * MB);
  });

  it('an administrator still sends a large body (its variables), read in full', async () => {
    const headers = { ...json, authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}` };
    const body = Buffer.from(
      JSON.stringify({ query: '{ scimIntegrations { id } }', variables: { padding: 'x'.repeat(2 * MB) } }),
    );
    const answer = await postStreamed(graphql(), headers, body.length, (offset, length) =>
      body.subarray(offset, offset + length),
    );
    expect(answer.complete).toBe(true);
    expect(codesOf(answer)).toBeUndefined();
  });
});
