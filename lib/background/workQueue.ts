/**
 * Sends units of background work to the Storage queue. In Azure the connection is identity-based
 * (BACKGROUND_QUEUE__queueServiceUri with the app's managed identity, no keys); locally it is
 * Azurite's connection string (BACKGROUND_QUEUE). Messages are base64 JSON, as the Functions
 * queue trigger reads them by default.
 */
import { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { DefaultAzureCredential } from '@azure/identity';
import { ConfigError, type Settings } from '../config/settings';
import { BACKGROUND_QUEUE_NAME, type BackgroundWork } from './backgroundWork';

/** The longest delay Storage accepts for a message's first visibility is 7 days; ours stay far below. */
const MAX_DELAY_SECONDS = 24 * 3600;

export interface WorkQueue {
  /** Enqueues one unit; `delaySeconds` keeps it invisible that long (a deferred retry). */
  send(work: BackgroundWork, delaySeconds?: number): Promise<void>;
  /** Units sent by this process (benchmarks count them). */
  readonly sent: number;
}

export function encodeWork(work: BackgroundWork): string {
  return Buffer.from(JSON.stringify(work), 'utf8').toString('base64');
}

/** Connects on first send, so a process that never plans or continues work needs no queue setting. */
class StorageWorkQueue implements WorkQueue {
  sent = 0;
  private queue: QueueClient | undefined;

  constructor(private readonly settings: Settings['backgroundQueue']) {}

  private client(): QueueClient {
    this.queue ??= connect(this.settings);
    return this.queue;
  }

  async send(work: BackgroundWork, delaySeconds = 0): Promise<void> {
    const visibilityTimeout = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)));
    await this.client().sendMessage(encodeWork(work), visibilityTimeout > 0 ? { visibilityTimeout } : {});
    this.sent++;
  }
}

/** A client of one queue of the background-work storage (the work queue, or its -poison queue to peek). */
export function connect(settings: Settings['backgroundQueue'], queueName: string = BACKGROUND_QUEUE_NAME): QueueClient {
  if (settings.connectionString) return new QueueClient(settings.connectionString, queueName);
  if (settings.queueServiceUri)
    return new QueueServiceClient(settings.queueServiceUri, new DefaultAzureCredential()).getQueueClient(queueName);
  throw new ConfigError(
    'BACKGROUND_QUEUE__queueServiceUri',
    '(or BACKGROUND_QUEUE, a connection string) is required for background work',
  );
}

export function createWorkQueue(settings: Settings['backgroundQueue']): WorkQueue {
  return new StorageWorkQueue(settings);
}
