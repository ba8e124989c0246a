import v8 from 'node:v8';
import vm from 'node:vm';
import { startTestStack, call, type TestStack } from '../support/stack';
import { postStreamed, type BodyChunks, type StreamedAnswer } from '../../scripts/bench/streamedPost';
import { deepBody, longStringBody, tinyValuesBody } from '../support/jsonBodies';
import { DEV_CLIENTS } from '../../devhost/devData';

type GqlError = { message: string; extensions?: { code?: string; bound?: string; max?: number } };
type Gql = { data?: Record<string, unknown> | null; errors?: GqlError[] };

const MB = 1024 * 1024;
const MAX_BODY = 8 * MB;
const MAX_VALUES = 250_000;
const MAX_DEPTH = 64;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

interface Measured {
  answer: StreamedAnswer;
  ms: number;
  /** Growth of the process's resident set (the stack runs in this process) at its highest while the request ran. */
  rssGrowth: number;
  /** Growth of heap and buffers at their highest while the request ran. */
  heapGrowth: number;
}

/** Sends the body as postStreamed does and measures the time to the answer and the process's memory meanwhile. */
async function measured(
  url: string,
  headers: Record<string, string>,
  size: number,
  chunks: BodyChunks,
  chunked: boolean,
) {
  collectGarbage();
  const rss = () => process.memoryUsage.rss();
  const heap = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = { rss: rss(), heap: heap() };
  const peak = { ...before };
  const sampler = setInterval(() => {
    peak.rss = Math.max(peak.rss, rss());
    peak.heap = Math.max(peak.heap, heap());
  }, 5);
  const started = Date.now();
  try {
    const answer = await postStreamed(url, headers, size, chunks, { chunked });
    return {
      answer,
      ms: Date.now() - started,
      rssGrowth: Math.max(peak.rss, rss()) - before.rss,
      heapGrowth: Math.max(peak.heap, heap()) - before.heap,
    } satisfies Measured;
  } finally {
    clearInterval(sampler);
  }
}

const errorsOf = (answer: StreamedAnswer) => (JSON.parse(answer.text) as Gql).errors ?? [];

describe('every GraphQL body is bounded: past its bytes, values or depth it is refused at once', () => {
  let stack: TestStack;
  let headers: Record<string, string>;
  const graphql = () => `${stack.base}/graphql`;
  const stillAnswers = async () => {
    const res = await call<Gql>(graphql(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: headers.authorization ?? '' },
      body: JSON.stringify({ query: '{ scimIntegrations { displayName } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.scimIntegrations).toEqual(expect.arrayContaining([{ displayName: 'Dev SCIM' }]));
  };

  beforeAll(async () => {
    stack = await startTestStack();
    headers = { 'content-type': 'application/json', authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}` };
    // The service's code paths are loaded and warm before memory is measured.
    await stillAnswers();
  });
  afterAll(async () => stack?.stop());

  const SIZE = 97.5 * MB;

  it.each([
    ['with its Content-Length: refused from its headers, unread', false, 'bodyBytes', MAX_BODY],
    ['without a Content-Length: refused by the count of its values', true, 'jsonValues', MAX_VALUES],
  ])(
    'a 97.5 MB body of tiny values %s, within 10 s, the process growing at most 64 MB, the stack still up',
    async (_how, chunked, bound, max) => {
      const run = await measured(graphql(), headers, SIZE, tinyValuesBody(SIZE), chunked);
      expect(run.answer.status).toBe(413);
      const errors = errorsOf(run.answer);
      expect(errors.map((e) => e.extensions)).toEqual([{ code: 'USE_STAGED_IMPORT', bound, max }]);
      expect(errors[0]?.message).toMatch(/startImport.*addImportPart/);
      // Nothing of the body comes back.
      expect(run.answer.text).not.toMatch(/Bounded|\[\]/);
      expect(run.answer.complete).toBe(false);
      expect(run.answer.bytesSent).toBeLessThan(16 * MB);
      expect(run.ms).toBeLessThan(10_000);
      expect(run.rssGrowth).toBeLessThan(64 * MB);
      await stillAnswers();
    },
  );

  it('a 97.5 MB body of one long string without a Content-Length: refused as soon as it passes 8 MiB', async () => {
    const run = await measured(graphql(), headers, SIZE, longStringBody(SIZE), true);
    expect(run.answer.status).toBe(413);
    expect(errorsOf(run.answer).map((e) => e.extensions)).toEqual([
      { code: 'USE_STAGED_IMPORT', bound: 'bodyBytes', max: MAX_BODY },
    ]);
    expect(run.answer.complete).toBe(false);
    expect(run.ms).toBeLessThan(10_000);
    expect(run.rssGrowth).toBeLessThan(64 * MB);
    await stillAnswers();
  });

  it.each([
    ['with its Content-Length', false],
    ['without a Content-Length', true],
  ])('a 20 MB body %s is refused within 2 s', async (_how, chunked) => {
    const size = 20 * MB;
    const run = await measured(graphql(), headers, size, longStringBody(size), chunked);
    expect(run.answer.status).toBe(413);
    expect(errorsOf(run.answer)[0]?.extensions?.code).toBe('USE_STAGED_IMPORT');
    expect(run.answer.complete).toBe(false);
    expect(run.ms).toBeLessThan(2_000);
  });

  it('a 7 MiB body of 2.4 million tiny values, within the byte bound, is refused by its value count before it is parsed', async () => {
    const size = 7 * MB;
    const run = await measured(graphql(), headers, size, tinyValuesBody(size), false);
    expect(run.answer.status).toBe(413);
    expect(errorsOf(run.answer).map((e) => e.extensions)).toEqual([
      { code: 'USE_STAGED_IMPORT', bound: 'jsonValues', max: MAX_VALUES },
    ]);
    // Refused as the count passed the bound (after about 750 KB), not after the body was read: parsed, its
    // 2.4 million arrays would take about 100 MB of heap.
    expect(run.answer.complete).toBe(false);
    expect(run.heapGrowth).toBeLessThan(32 * MB);
    expect(stack.logs.some((l) => l.includes('graphql request') && l.includes('USE_STAGED_IMPORT'))).toBe(true);
  });

  it(`a body nested ${MAX_DEPTH} levels deep is served; one level deeper is refused before it is parsed`, async () => {
    const send = (body: string) => call<Gql>(graphql(), { method: 'POST', headers, body });
    const atBound = await send(deepBody(MAX_DEPTH - 2));
    expect(atBound.status).toBe(200);
    expect(atBound.body.data).toEqual({ __typename: 'Query' });
    const deeper = await send(deepBody(MAX_DEPTH - 1));
    expect(deeper.status).toBe(413);
    expect(deeper.body.errors?.map((e) => e.extensions)).toEqual([
      { code: 'USE_STAGED_IMPORT', bound: 'jsonDepth', max: MAX_DEPTH },
    ]);
    expect(deeper.body.data).toBeUndefined();
  });

  it('a body of exactly the value bound is served; one value more is refused', async () => {
    // The body, the query, the variables and x are 4 values; x holds the rest.
    const arrays = (n: number) =>
      `{"query":"query Bounded { __typename }","variables":{"x":[${'[],'.repeat(n - 1)}[]]}}`;
    const send = (body: string) => call<Gql>(graphql(), { method: 'POST', headers, body });
    const atBound = await send(arrays(MAX_VALUES - 4));
    expect(atBound.status).toBe(200);
    expect(atBound.body.data).toEqual({ __typename: 'Query' });
    const past = await send(arrays(MAX_VALUES - 3));
    expect(past.status).toBe(413);
    expect(past.body.errors?.[0]?.extensions).toEqual({
      code: 'USE_STAGED_IMPORT',
      bound: 'jsonValues',
      max: MAX_VALUES,
    });
  });
});
