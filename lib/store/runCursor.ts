/**
 * Where a background run that pages through a container goes on next time, so that successive runs
 * cover every item instead of re-reading the same first page. One small document per run, kept in the
 * `links` container under a partition key no tenant id can take (tenant ids are GUIDs).
 */
import type { Store, StoredDoc } from './store';

interface RunCursorDoc extends StoredDoc {
  /** The last key examined; empty = start from the beginning. */
  after: string;
  updatedAt: string;
}

const RUN_CURSOR_PARTITION = '_service';

export class RunCursor {
  constructor(
    private readonly store: Store,
    private readonly name: string,
  ) {}

  private get docs() {
    return this.store.collection<RunCursorDoc>('links');
  }

  /** The key to continue after ('' at the start). */
  async after(): Promise<string> {
    return (await this.docs.read(RUN_CURSOR_PARTITION, this.name))?.after ?? '';
  }

  /** Records where the next run goes on: after `key`, or from the beginning when the run reached the end. */
  async save(key: string | undefined): Promise<void> {
    await this.docs.upsert({
      id: this.name,
      pk: RUN_CURSOR_PARTITION,
      after: key ?? '',
      updatedAt: new Date().toISOString(),
    });
  }
}
