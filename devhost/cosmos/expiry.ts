/**
 * Time to live as Cosmos DB applies it. A container without `defaultTtl` keeps every item (an item's
 * own `ttl` is ignored); with `defaultTtl: -1` items stay unless they carry a positive `ttl`; with
 * `defaultTtl: n` items expire n seconds after their last write (`_ts`) unless their `ttl` says
 * otherwise (-1 = never). An expired item is invisible at once and deleted soon after.
 */
import type { Json } from './library';

/** When the item expires, in epoch milliseconds, or undefined when it never does. */
export function expiresAt(doc: Json, defaultTtl: unknown): number | undefined {
  if (typeof defaultTtl !== 'number' || !Number.isInteger(defaultTtl) || defaultTtl === 0 || defaultTtl < -1)
    return undefined;
  const own = doc.ttl;
  const ttl = typeof own === 'number' && Number.isInteger(own) && (own > 0 || own === -1) ? own : defaultTtl;
  if (ttl === -1) return undefined;
  const ts = typeof doc._ts === 'number' ? doc._ts : 0;
  return (ts + ttl) * 1000;
}

interface Entry<T> {
  at: number;
  value: T;
}

/** Min-heap of values by expiry time. */
export class ExpiryQueue<T> {
  private heap: Array<Entry<T>> = [];

  get size(): number {
    return this.heap.length;
  }

  clear(): void {
    this.heap = [];
  }

  push(at: number, value: T): void {
    const heap = this.heap;
    heap.push({ at, value });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Entry<T>).at <= at) break;
      heap[i] = heap[parent] as Entry<T>;
      i = parent;
    }
    heap[i] = { at, value };
  }

  /** Removes and returns every value due at `now` (earliest first). */
  takeDue(now: number): T[] {
    const out: T[] = [];
    while (this.heap.length > 0 && (this.heap[0] as Entry<T>).at <= now) out.push(this.pop());
    return out;
  }

  private pop(): T {
    const heap = this.heap;
    const top = heap[0] as Entry<T>;
    const last = heap.pop() as Entry<T>;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        let at = last.at;
        if (l < heap.length && (heap[l] as Entry<T>).at < at) {
          smallest = l;
          at = (heap[l] as Entry<T>).at;
        }
        if (r < heap.length && (heap[r] as Entry<T>).at < at) smallest = r;
        if (smallest === i) break;
        heap[i] = heap[smallest] as Entry<T>;
        i = smallest;
      }
      heap[i] = last;
    }
    return top.value;
  }
}
