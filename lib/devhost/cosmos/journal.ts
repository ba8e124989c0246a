/**
 * Durable state of the local engine in a folder: `snapshot.jsonl` (the state at the last start) and
 * `journal.jsonl` (every acknowledged change since, appended with write(2) before the response is
 * sent, so it survives the process being killed at any point). At start the snapshot and the
 * journal are replayed; when the journal has grown past a quarter of the snapshot they are compacted
 * into a new snapshot (written aside, then renamed) and the journal starts empty. Replay is idempotent, so a crash at any step of compaction loses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

export type JournalRecord = Record<string, unknown> & { t: string };

const SNAPSHOT = 'snapshot.jsonl';
const JOURNAL = 'journal.jsonl';
const CHUNK = 16 * 1024 * 1024;

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
    if (typeof rec === 'object' && rec !== null && typeof (rec as JournalRecord).t === 'string') yield rec as JournalRecord;
  }
}

export class Journal {
  private fd: number | undefined;

  private constructor(readonly dir: string) {}

  static open(dir: string): Journal {
    fs.mkdirSync(dir, { recursive: true });
    return new Journal(dir);
  }

  /** Every record of the last snapshot, then of the journal, in order. */
  *replay(): Generator<JournalRecord> {
    yield* recordsOf(path.join(this.dir, SNAPSHOT));
    yield* recordsOf(path.join(this.dir, JOURNAL));
  }

  /**
   * Whether the journal is worth folding into a new snapshot at start: when it is more than a
   * quarter of the snapshot's size (or the snapshot is missing), so start-up stays proportional to the data.
   */
  needsCompaction(): boolean {
    const size = (name: string) => {
      try {
        return fs.statSync(path.join(this.dir, name)).size;
      } catch {
        return 0;
      }
    };
    const journal = size(JOURNAL);
    return journal > 0 && journal * 4 > size(SNAPSHOT);
  }

  /** Writes `state` as the new snapshot and empties the journal; then appends go to the journal. */
  compact(state: Iterable<JournalRecord>): void {
    this.close();
    const tmp = path.join(this.dir, `${SNAPSHOT}.tmp`);
    const fd = fs.openSync(tmp, 'w');
    try {
      let pending: string[] = [];
      let size = 0;
      for (const rec of state) {
        const line = `${JSON.stringify(rec)}\n`;
        pending.push(line);
        size += line.length;
        if (size > 4 * 1024 * 1024) {
          fs.writeSync(fd, pending.join(''));
          pending = [];
          size = 0;
        }
      }
      if (pending.length > 0) fs.writeSync(fd, pending.join(''));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path.join(this.dir, SNAPSHOT));
    this.fd = fs.openSync(path.join(this.dir, JOURNAL), 'w');
    fs.fsyncSync(this.fd);
  }

  /** Appends one record; returns once the bytes are with the operating system. */
  append(rec: JournalRecord): void {
    if (this.fd === undefined) this.fd = fs.openSync(path.join(this.dir, JOURNAL), 'a');
    fs.writeSync(this.fd, `${JSON.stringify(rec)}\n`);
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
