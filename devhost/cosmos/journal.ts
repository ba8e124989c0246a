/**
 * Durable state of the local engine in a folder: `snapshot.jsonl` (the state up to a rotation point;
 * its first line names the first journal file it does not contain) and the journal files
 * `journal.jsonl`, `journal.1.jsonl`, `journal.2.jsonl`, ... (every acknowledged change since,
 * appended with write(2) before the response is sent, so it survives the process being killed at any
 * point). At start the snapshot and every journal file from the one it names are replayed, in order.
 *
 * Compaction, at start and while the engine runs once the journal has grown past a quarter of the
 * snapshot (and past a minimum size): (1) rotate, so new writes go to the next journal file, and take
 * the state as of that instant; (2) write it aside as `snapshot.jsonl.<n>.tmp`, in chunks that each
 * give the event loop back; (3) fsync and rename it into place; (4) delete the journal files it
 * contains. A crash between any two steps leaves either the old snapshot with every journal after it
 * or the new one with the journal files after the rotation, so nothing acknowledged is lost.
 */
import fs from 'node:fs';
import path from 'node:path';

export type JournalRecord = Record<string, unknown> & { t: string };

export type CompactionStep = 'rotated' | 'chunk' | 'written' | 'renamed' | 'deleted' | 'abandoned';

export interface CompactionOptions {
  /** The journal files not yet in the snapshot must hold at least this many bytes before compaction (default 4 MiB). */
  minBytes?: number;
  /** Records serialised per chunk before the event loop is given back (default 2,000). */
  chunkRecords?: number;
  /** Called after each step of a compaction (tests crash the engine there). */
  onStep?: (step: CompactionStep) => void;
}

const SNAPSHOT = 'snapshot.jsonl';
const CHUNK = 16 * 1024 * 1024;
const JOURNAL_FILE = /^journal(?:\.(\d+))?\.jsonl$/;
const TMP_FILE = /^snapshot\.jsonl\.\d+\.tmp$/;

const journalName = (n: number) => (n === 0 ? 'journal.jsonl' : `journal.${n}.jsonl`);

/** The complete lines of a file (a torn last line, from a write cut short by a crash, is left out). */
export function* linesOf(file: string, chunkSize = CHUNK): Generator<string> {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const chunk = Buffer.alloc(chunkSize);
    let carry: Buffer | undefined; // the start of a line that continues in the next chunk
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunkSize, null);
      if (n === 0) break;
      let start = 0;
      let nl = chunk.indexOf(10, 0);
      if (carry) {
        if (nl === -1 || nl >= n) {
          carry = Buffer.concat([carry, chunk.subarray(0, n)]);
          continue;
        }
        yield Buffer.concat([carry, chunk.subarray(0, nl)]).toString('utf8');
        carry = undefined;
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      while (nl !== -1 && nl < n) {
        if (nl > start) yield chunk.toString('utf8', start, nl);
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      if (start < n) carry = Buffer.from(chunk.subarray(start, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}

function* recordsOf(file: string): Generator<JournalRecord> {
  for (const line of linesOf(file)) {
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue; // a line torn by a crash mid-write was never acknowledged
    }
    if (typeof rec === 'object' && rec !== null && typeof (rec as JournalRecord).t === 'string')
      yield rec as JournalRecord;
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

interface SnapshotFile {
  tmp: string;
  bytes(): number;
  write(recs: JournalRecord[]): void;
  finish(): void;
  /** Closes and deletes the file unless it was renamed into place. */
  abandon(): void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Journal {
  private fd: number | undefined;
  /** The journal file appends go to. */
  private current: number;
  /** The first journal file the snapshot does not contain. */
  private from: number;
  private snapshotBytes: number;
  /** Bytes of the journal files from `from` on. */
  private journalBytes = 0;
  private compacting = false;
  /** After a failed compaction, the journal size at which the next one is tried. */
  private retryAtBytes = 0;
  private closed = false;
  private readonly minBytes: number;
  private readonly chunkRecords: number;
  /** The last background compaction that failed (the journal files stay; the next one covers them). */
  lastError: Error | undefined;

  private constructor(
    readonly dir: string,
    private readonly options: CompactionOptions,
  ) {
    this.minBytes = options.minBytes ?? 4 * 1024 * 1024;
    this.chunkRecords = options.chunkRecords ?? 2000;
    const file = path.join(dir, SNAPSHOT);
    this.snapshotBytes = sizeOf(file);
    const first = linesOf(file, 64 * 1024).next();
    let from = 0;
    if (!first.done) {
      try {
        const head = JSON.parse(first.value) as { t?: unknown; from?: unknown };
        if (head.t === 'snap' && typeof head.from === 'number') from = head.from;
      } catch {
        // a snapshot from before rotation (no header line) contains no journal file
      }
    }
    this.from = from;
    let current = from;
    for (const name of fs.readdirSync(dir)) {
      const journal = JOURNAL_FILE.exec(name);
      if (journal) {
        const n = Number(journal[1] ?? 0);
        // a journal file a finished compaction had not yet deleted is already in the snapshot
        if (n < from) fs.rmSync(path.join(dir, name), { force: true });
        else current = Math.max(current, n);
      } else if (TMP_FILE.test(name)) fs.rmSync(path.join(dir, name), { force: true });
    }
    this.current = current;
  }

  static open(dir: string, options: CompactionOptions = {}): Journal {
    fs.mkdirSync(dir, { recursive: true });
    return new Journal(dir, options);
  }

  /** The journal files the snapshot does not contain, in order. */
  private journalFiles(): number[] {
    const out: number[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      const journal = JOURNAL_FILE.exec(name);
      const n = journal ? Number(journal[1] ?? 0) : -1;
      if (n >= this.from) out.push(n);
    }
    return out.sort((a, b) => a - b);
  }

  /** Every record of the snapshot, then of each journal file after it, in order. */
  *replay(): Generator<JournalRecord> {
    for (const rec of recordsOf(path.join(this.dir, SNAPSHOT))) if (rec.t !== 'snap') yield rec;
    this.journalBytes = 0;
    for (const n of this.journalFiles()) {
      const file = path.join(this.dir, journalName(n));
      this.journalBytes += sizeOf(file);
      yield* recordsOf(file);
    }
  }

  /**
   * Whether the journal is worth folding into a new snapshot at start: when it is more than a
   * quarter of the snapshot's size (or the snapshot is missing), so start-up stays proportional to the data.
   */
  needsCompaction(): boolean {
    return this.journalBytes > 0 && this.journalBytes * 4 > this.snapshotBytes;
  }

  /** The same while running, once the journal also holds the minimum size, and no compaction is under way. */
  compactionDue(): boolean {
    return (
      !this.compacting &&
      !this.closed &&
      this.journalBytes >= Math.max(this.minBytes, this.retryAtBytes) &&
      this.needsCompaction()
    );
  }

  /** Compacts at once (at start, before any request is served). */
  compact(state: Iterable<JournalRecord>): void {
    const target = this.rotate();
    const out = this.openSnapshot(target);
    try {
      let batch: JournalRecord[] = [];
      for (const rec of state) {
        batch.push(rec);
        if (batch.length >= this.chunkRecords) {
          out.write(batch);
          batch = [];
        }
      }
      out.write(batch);
      out.finish();
    } catch (err) {
      out.abandon();
      throw err;
    }
    this.install(target, out);
  }

  /**
   * Compacts while requests go on: rotates and takes `capture()` (the state as of that instant, which
   * must not change after) synchronously, then writes it in chunks between turns of the event loop.
   * Never throws: a compaction that fails leaves every journal file in place and is tried again once
   * the journal has grown by the minimum size.
   */
  compactInBackground(capture: () => Iterable<JournalRecord>): Promise<void> {
    let target: number;
    let state: Iterable<JournalRecord>;
    try {
      target = this.rotate();
      state = capture();
    } catch (err) {
      this.failed(err);
      return Promise.resolve();
    }
    this.compacting = true;
    return this.writeInBackground(target, state).finally(() => {
      this.compacting = false;
    });
  }

  private async writeInBackground(target: number, state: Iterable<JournalRecord>): Promise<void> {
    let out: SnapshotFile | undefined;
    try {
      this.options.onStep?.('rotated');
      out = this.openSnapshot(target);
      let batch: JournalRecord[] = [];
      for (const rec of state) {
        batch.push(rec);
        if (batch.length < this.chunkRecords) continue;
        out.write(batch);
        batch = [];
        this.options.onStep?.('chunk');
        await nextTurn();
        if (this.closed) throw new Error('journal closed during compaction');
      }
      out.write(batch);
      out.finish();
      this.options.onStep?.('written');
      await nextTurn();
      if (this.closed) throw new Error('journal closed during compaction');
      this.install(target, out);
    } catch (err) {
      out?.abandon();
      if (!this.closed) this.failed(err);
      this.options.onStep?.('abandoned');
    }
  }

  private failed(err: unknown): void {
    this.lastError = err instanceof Error ? err : new Error(String(err));
    this.retryAtBytes = this.journalBytes + this.minBytes;
  }

  /** Step 1: appends go to a new journal file from now on; returns its number. */
  private rotate(): number {
    this.closeFd();
    this.current += 1;
    this.fd = fs.openSync(path.join(this.dir, journalName(this.current)), 'a');
    return this.current;
  }

  /** Step 2: the snapshot written aside; its header names the first journal file it does not contain. */
  private openSnapshot(from: number): SnapshotFile {
    const tmp = path.join(this.dir, `${SNAPSHOT}.${from}.tmp`);
    const fd = fs.openSync(tmp, 'w');
    let bytes = 0;
    let open = true;
    const write = (text: string) => {
      fs.writeSync(fd, text);
      bytes += Buffer.byteLength(text);
    };
    write(`${JSON.stringify({ t: 'snap', from })}\n`);
    return {
      tmp,
      bytes: () => bytes,
      write: (recs) => {
        if (recs.length > 0) write(`${recs.map((r) => JSON.stringify(r)).join('\n')}\n`);
      },
      finish: () => {
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        open = false;
      },
      abandon: () => {
        if (open) fs.closeSync(fd);
        open = false;
        if (fs.existsSync(tmp)) fs.rmSync(tmp, { force: true });
      },
    };
  }

  /** Steps 3 and 4: the snapshot into place, then the journal files it contains deleted. */
  private install(from: number, out: SnapshotFile): void {
    fs.renameSync(out.tmp, path.join(this.dir, SNAPSHOT));
    this.syncDir();
    this.options.onStep?.('renamed');
    const covered = this.journalFiles().filter((n) => n < from);
    this.from = from;
    this.snapshotBytes = out.bytes();
    for (const n of covered) fs.rmSync(path.join(this.dir, journalName(n)), { force: true });
    this.journalBytes = 0;
    for (const n of this.journalFiles()) this.journalBytes += sizeOf(path.join(this.dir, journalName(n)));
    this.options.onStep?.('deleted');
  }

  private syncDir(): void {
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.dir, 'r');
      fs.fsyncSync(fd);
    } catch {
      // not every platform can fsync a directory; the rename is still atomic
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /** Appends one record; returns once the bytes are with the operating system. */
  append(rec: JournalRecord): void {
    if (this.fd === undefined) this.fd = fs.openSync(path.join(this.dir, journalName(this.current)), 'a');
    const line = `${JSON.stringify(rec)}\n`;
    fs.writeSync(this.fd, line);
    this.journalBytes += Buffer.byteLength(line);
  }

  private closeFd(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** Stops appending; a compaction under way is abandoned at its next step (its journal files stay). */
  close(): void {
    this.closed = true;
    this.closeFd();
  }
}
