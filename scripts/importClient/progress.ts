/*
 * Progress of an upload and of the run that applies it: a bar redrawn in place on a terminal, plain lines
 * otherwise (a scheduled job's log). Only counts are shown, never an identity's value.
 */

/** Progress lines (stderr by default). */
export type Progress = (line: string) => void;

export interface Meter {
  /** `done` of `total` identities, e.g. update('uploaded', 4000, 10000). */
  update(label: string, done: number, total: number): void;
  /** A line of its own (the bar, if shown, is cleared first and drawn again at the next update). */
  line(text: string): void;
  /** Leaves the bar as it is and moves on to a new line. */
  end(): void;
}

const percent = (done: number, total: number) => (total > 0 ? Math.floor((done / total) * 100) : 100);

/** `label done of total identities (p%)`. */
export function countLine(label: string, done: number, total: number): string {
  return `${label} ${done} of ${total} identities (${percent(done, total)}%)`;
}

/** Lines at each tenth of the way and at the end, once each per label. */
export function plainMeter(lines: Progress): Meter {
  const shown = new Map<string, number>();
  return {
    update(label, done, total) {
      const step = done >= total ? 10 : Math.floor((percent(done, total) / 100) * 10);
      if ((shown.get(label) ?? -1) >= step || (step === 0 && done === 0)) return;
      shown.set(label, step);
      lines(countLine(label, done, total));
    },
    line: lines,
    end: () => undefined,
  };
}

export function renderBar(label: string, done: number, total: number, width: number): string {
  const text = ` ${countLine(label, done, total)}`;
  const barWidth = Math.max(10, Math.min(40, width - text.length - 3));
  const filled = total > 0 ? Math.min(barWidth, Math.round((done / total) * barWidth)) : barWidth;
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${text}`;
}

/** A bar redrawn in place (at most every 100 ms, and always at the end). */
export function ttyMeter(
  stream: { write(text: string): unknown; columns?: number },
  now: () => number = Date.now,
): Meter {
  let drawn = false;
  let lastDraw = 0;
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    update(label, done, total) {
      const t = now();
      if (drawn && done < total && t - lastDraw < 100) return;
      lastDraw = t;
      clear();
      stream.write(renderBar(label, done, total, stream.columns ?? 80));
      drawn = true;
    },
    line(text) {
      clear();
      stream.write(`${text}\n`);
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
