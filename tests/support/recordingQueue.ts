/** A work queue for unit tests: it keeps the messages sent (with their delays), and a test takes them in order. */
import type { BackgroundWork } from '../../lib/background/backgroundWork';
import type { WorkQueue } from '../../lib/background/workQueue';

export class RecordingQueue implements WorkQueue {
  readonly messages: Array<{ work: BackgroundWork; delaySeconds: number }> = [];
  sent = 0;

  send(work: BackgroundWork, delaySeconds = 0): Promise<void> {
    this.messages.push({ work, delaySeconds });
    this.sent++;
    return Promise.resolve();
  }

  /** The oldest message not taken yet, taken. */
  take(): BackgroundWork | undefined {
    return this.messages.shift()?.work;
  }
}
