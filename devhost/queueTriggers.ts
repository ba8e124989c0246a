/**
 * Serves `app.storageQueue` registrations the way the Functions host's queue listener does:
 * polls each queue (exponential back-off up to maxPollingInterval while it is empty), receives up to
 * batchSize messages under a lease, runs them concurrently and receives the next batch once the messages
 * running are down to newBatchThreshold (so a long message does not hold back the ones behind it), deletes a message whose invocation
 * succeeded, makes a failed one visible again after visibilityTimeout, and moves a message that failed
 * maxDequeueCount times to `<queue>-poison`. Settings come from host.json (`extensions.queues`).
 */
import { randomUUID } from 'node:crypto';
import { QueueClient, type DequeuedMessageItem } from '@azure/storage-queue';
import { InvocationContext } from '@azure/functions';
import type { HostLog } from './hostLog';

export interface QueueHostSettings {
  batchSize: number;
  /** A new batch is received once the messages running are down to this many (the host's default: batchSize / 2). */
  newBatchThreshold: number;
  maxDequeueCount: number;
  /** Delay before a failed message is visible again. */
  visibilityTimeoutSeconds: number;
  maxPollingIntervalMs: number;
  messageEncoding: 'base64' | 'none';
}

export interface QueueTriggerFunction {
  name: string;
  queueName: string;
  /** Name of the setting that holds the connection string. */
  connection: string;
  handler: (message: unknown, ctx: InvocationContext) => Promise<unknown> | unknown;
}

export interface QueueTriggers {
  names: string[];
  /** Resolves once every queue is empty (no visible, invisible or running message), or rejects after timeoutMs. */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MIN_POLL_MS = 100;
/** How long a received message stays invisible while it runs (the host's lease; functionTimeout is 10 minutes). */
const LEASE_SECONDS = 600;

/** "hh:mm:ss" (or "d.hh:mm:ss") as Functions settings write time spans. */
export function parseTimeSpanMs(value: string): number {
  const m = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(value.trim());
  if (!m) throw new Error('A time span is written hh:mm:ss');
  const [, days = '0', h = '0', min = '0', s = '0', ms = '0'] = m;
  return (((Number(days) * 24 + Number(h)) * 60 + Number(min)) * 60 + Number(s)) * 1000 + Number(ms.padEnd(3, '0'));
}

/** The queue settings of a host.json document, with the Functions host's defaults. */
export function queueHostSettings(hostJson: unknown): QueueHostSettings {
  const queues = ((hostJson as { extensions?: { queues?: Record<string, unknown> } } | undefined)?.extensions?.queues ??
    {}) as Record<string, unknown>;
  const num = (key: string, fallback: number, min: number, max: number): number => {
    const v = queues[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new Error(`host.json extensions.queues.${key} must be a whole number from ${min} to ${max}`);
    return v;
  };
  const span = (key: string, fallback: number): number =>
    typeof queues[key] === 'string' ? parseTimeSpanMs(queues[key]) : fallback;
  const encoding = queues.messageEncoding ?? 'base64';
  if (encoding !== 'base64' && encoding !== 'none')
    throw new Error('host.json extensions.queues.messageEncoding must be base64 or none');
  const batchSize = num('batchSize', 16, 1, 32);
  return {
    batchSize,
    newBatchThreshold: num('newBatchThreshold', Math.floor(batchSize / 2), 0, 1000),
    maxDequeueCount: num('maxDequeueCount', 5, 1, 1000),
    visibilityTimeoutSeconds: Math.round(span('visibilityTimeout', 0) / 1000),
    maxPollingIntervalMs: Math.max(MIN_POLL_MS, span('maxPollingInterval', 60_000)),
    messageEncoding: encoding,
  };
}

/** The invocation's input: the decoded text, parsed as JSON when it is JSON (as the Node.js worker does). */
export function decodeMessage(messageText: string, encoding: QueueHostSettings['messageEncoding']): unknown {
  const text = encoding === 'base64' ? Buffer.from(messageText, 'base64').toString('utf8') : messageText;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function contextFor(fn: QueueTriggerFunction, message: DequeuedMessageItem, log: HostLog): InvocationContext {
  return new InvocationContext({
    functionName: fn.name,
    invocationId: randomUUID(),
    triggerMetadata: {
      id: message.messageId,
      dequeueCount: message.dequeueCount,
      insertionTime: message.insertedOn.toISOString(),
      expirationTime: message.expiresOn.toISOString(),
      nextVisibleTime: message.nextVisibleOn.toISOString(),
      popReceipt: message.popReceipt,
    },
    logHandler: (level, ...args) => {
      const text = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      log(level === 'error' || level === 'critical' ? 'error' : level === 'warning' ? 'warn' : 'info', text);
    },
  });
}

class QueueListener {
  private stopped = false;
  private wake: (() => void) | undefined;
  private running = 0;
  private readonly invocations = new Set<Promise<void>>();
  /** Called when an invocation ends (the loop waits for one while too many run). */
  private ended: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly fn: QueueTriggerFunction,
    private readonly queue: QueueClient,
    private readonly poison: QueueClient,
    private readonly settings: QueueHostSettings,
    private readonly log: HostLog,
  ) {
    this.loop = this.run();
  }

  get busy(): boolean {
    return this.running > 0;
  }

  async approximateCount(): Promise<number> {
    return (await this.queue.getProperties()).approximateMessagesCount ?? 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.ended?.();
    await this.loop;
    await Promise.all(this.invocations);
  }

  private async run(): Promise<void> {
    let delay = MIN_POLL_MS;
    while (!this.stopped) {
      let received: DequeuedMessageItem[] = [];
      try {
        received = (
          await this.queue.receiveMessages({
            numberOfMessages: this.settings.batchSize,
            visibilityTimeout: LEASE_SECONDS,
          })
        ).receivedMessageItems;
      } catch (err) {
        if (!this.stopped)
          this.log('warn', `Queue listener of '${this.fn.name}': receive failed (${(err as Error).name})`);
      }
      if (received.length > 0) {
        delay = MIN_POLL_MS;
        this.running += received.length;
        for (const m of received) {
          const invocation = this.invoke(m).finally(() => {
            this.running--;
            this.invocations.delete(invocation);
            this.ended?.();
          });
          this.invocations.add(invocation);
        }
        while (!this.stopped && this.running > this.settings.newBatchThreshold)
          await new Promise<void>((resolve) => (this.ended = resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      delay = Math.min(delay * 2, this.settings.maxPollingIntervalMs);
    }
  }

  private async invoke(message: DequeuedMessageItem): Promise<void> {
    const ctx = contextFor(this.fn, message, this.log);
    this.log(
      'info',
      `Executing '${this.fn.name}' (invocation ${ctx.invocationId}, message ${message.messageId}, dequeue count ${message.dequeueCount})`,
    );
    try {
      await this.fn.handler(decodeMessage(message.messageText, this.settings.messageEncoding), ctx);
      this.log('info', `Executed '${this.fn.name}' (Succeeded, invocation ${ctx.invocationId})`);
      await this.queue.deleteMessage(message.messageId, message.popReceipt);
    } catch (err) {
      this.log('error', `Executed '${this.fn.name}' (Failed, invocation ${ctx.invocationId}): ${(err as Error).name}`);
      await this.failed(message).catch((e: unknown) =>
        this.log(
          'warn',
          `Queue listener of '${this.fn.name}': could not release a failed message (${(e as Error).name})`,
        ),
      );
    }
  }

  private async failed(message: DequeuedMessageItem): Promise<void> {
    if (message.dequeueCount >= this.settings.maxDequeueCount) {
      this.log(
        'warn',
        `Message ${message.messageId} has reached MaxDequeueCount of ${this.settings.maxDequeueCount}. Moving message to queue '${this.poison.name}'.`,
      );
      await this.poison.sendMessage(message.messageText);
      await this.queue.deleteMessage(message.messageId, message.popReceipt);
      return;
    }
    await this.queue.updateMessage(
      message.messageId,
      message.popReceipt,
      message.messageText,
      this.settings.visibilityTimeoutSeconds,
    );
  }
}

/** Starts one listener per queue-triggered function; `connectionString(setting)` resolves a `connection` setting. */
export async function startQueueTriggers(
  fns: QueueTriggerFunction[],
  settings: QueueHostSettings,
  connectionString: (setting: string) => string | undefined,
  log: HostLog,
): Promise<QueueTriggers> {
  const listeners: QueueListener[] = [];
  for (const fn of fns) {
    const conn = connectionString(fn.connection);
    if (!conn) {
      log('warn', `Function ${fn.name}: connection setting ${fn.connection} is not set; its queue is not served`);
      continue;
    }
    const queue = new QueueClient(conn, fn.queueName);
    const poison = new QueueClient(conn, `${fn.queueName}-poison`);
    await queue.createIfNotExists();
    await poison.createIfNotExists();
    listeners.push(new QueueListener(fn, queue, poison, settings, log));
  }
  return {
    names: fns.map((f) => f.name),
    idle: async (timeoutMs = 60_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const counts = await Promise.all(listeners.map((l) => l.approximateCount()));
        if (listeners.every((l) => !l.busy) && counts.every((c) => c === 0)) return;
        if (Date.now() > until) throw new Error('The queues did not become empty in time');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: async () => {
      await Promise.all(listeners.map((l) => l.stop()));
    },
  };
}
