/**
 * The dev host's queue triggers against Azurite: delivery with trigger metadata, delete on
 * success, retry after visibilityTimeout, poison queue after maxDequeueCount, delayed messages.
 */
import { app, type InvocationContext } from '@azure/functions';
import { QueueClient } from '@azure/storage-queue';
import { startLocalQueues, type LocalQueues } from '../../../devhost/localQueues';
import { startDevHost, type DevHost } from '../../../devhost/host';

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

describe('dev host queue triggers', () => {
  let queues: LocalQueues;
  let host: DevHost;
  const logs: string[] = [];
  const delivered: Array<{ message: unknown; dequeueCount: unknown; at: number }> = [];
  const failing: number[] = [];
  let work: QueueClient;
  let broken: QueueClient;

  beforeAll(async () => {
    queues = await startLocalQueues(0);
    process.env.TEST_QUEUE_CONNECTION = queues.connectionString;
    process.env.TEST_QUEUE_NAME = 'test-work';
    app.storageQueue('testWork', {
      queueName: '%TEST_QUEUE_NAME%',
      connection: 'TEST_QUEUE_CONNECTION',
      handler: (message: unknown, ctx: InvocationContext) => {
        delivered.push({ message, dequeueCount: ctx.triggerMetadata?.dequeueCount, at: Date.now() });
      },
    });
    app.storageQueue('testBroken', {
      queueName: 'test-broken',
      connection: 'TEST_QUEUE_CONNECTION',
      handler: (_message: unknown, ctx: InvocationContext) => {
        failing.push(Number(ctx.triggerMetadata?.dequeueCount));
        throw new Error('always fails');
      },
    });
    host = await startDevHost({
      port: 0,
      load: () => undefined,
      runTimersOnSchedule: false,
      hostJson: {
        extensions: {
          queues: {
            batchSize: 4,
            maxDequeueCount: 3,
            visibilityTimeout: '00:00:00',
            maxPollingInterval: '00:00:00.200',
          },
        },
      },
      log: (_level, message) => logs.push(message),
    });
    work = new QueueClient(queues.connectionString, 'test-work');
    broken = new QueueClient(queues.connectionString, 'test-broken');
  });

  afterAll(async () => {
    await host?.close();
    await queues?.close();
    delete process.env.TEST_QUEUE_CONNECTION;
    delete process.env.TEST_QUEUE_NAME;
  });

  it('serves each queue function and resolves %SETTING% queue names', () => {
    expect(host.functions.queues.sort()).toEqual(['testBroken', 'testWork']);
  });

  it('delivers a JSON message once, parsed, with its dequeue count, and deletes it', async () => {
    await work.sendMessage(encode({ kind: 'x', n: 1 }));
    await host.queuesIdle(10_000);
    expect(delivered).toEqual([expect.objectContaining({ message: { kind: 'x', n: 1 }, dequeueCount: 1 })]);
    expect((await work.getProperties()).approximateMessagesCount).toBe(0);
  });

  it('does not deliver a message before its visibility delay', async () => {
    delivered.length = 0;
    const sent = Date.now();
    await work.sendMessage(encode('later'), { visibilityTimeout: 2 });
    await host.queuesIdle(10_000);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.message).toBe('later');
    expect((delivered[0]?.at ?? 0) - sent).toBeGreaterThanOrEqual(1900);
  });

  it('retries a failing message up to maxDequeueCount, then moves it unchanged to <queue>-poison', async () => {
    const text = encode({ kind: 'poison-me' });
    await broken.sendMessage(text);
    await host.queuesIdle(10_000);
    expect(failing).toEqual([1, 2, 3]);
    const poison = new QueueClient(queues.connectionString, 'test-broken-poison');
    const peeked = await poison.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems.map((m) => m.messageText)).toEqual([text]);
    expect(logs.some((l) => l.includes("Moving message to queue 'test-broken-poison'"))).toBe(true);
    expect(logs.filter((l) => l.includes("Executed 'testBroken' (Failed"))).toHaveLength(3);
  });
});
