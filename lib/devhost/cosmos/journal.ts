/**
 * Durable state of the local engine in a folder: `snapshot.jsonl` (the state at the last start) and
 * `journal.jsonl` (every acknowledged change since, appended with write(2) before the response is
 * sent, so it survives the process being killed at any point). At start the snapshot and the
 * journal are replayed, then compacted into a new snapshot (written aside, then renamed) and the
 * journal starts empty. Replay is idempotent, so a crash at any step of compaction loses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

export type JournalRecord = Record<string, unknown> & { t: string };

const SNAPSHOT = 'snapshot.jsonl';
const JOURNAL = 'journal.jsonl';
const CHUNK = 16 * 1024 * 1024;

/** The complete lines of a file (a torn last line, from a write cut short by a crash, is left out). */
function* linesOf(file: string): Generator<string> {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    let rest = Buffer.alloc(0);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      let data = Buffer.concat([rest, buf.subarray(0, n)]);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        if (nl > start) yield data.toString('utf8', start, nl);
        start = nl + 1;
      }
      data = data.subarray(start);
      rest = Buffer.from(data);
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
