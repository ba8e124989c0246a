/**
 * Collects the request units the document store charges while one request is served: the store
 * adds each write's charge to the meter of the request it runs for (requests interleave while
 * their bodies are read, so a shared counter would mix them).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Meter {
  ru: number;
}

const current = new AsyncLocalStorage<Meter>();

/** Runs `fn` with a fresh meter; everything the store charges inside it (also after awaits) lands there. */
export function withMeter<T>(fn: () => T): { result: T; meter: Meter } {
  const meter: Meter = { ru: 0 };
  const result = current.run(meter, fn);
  return { result, meter };
}

/** Adds an operation's charge to the current request's meter (computed only when there is one). */
export function addCharge(ru: () => number): void {
  const meter = current.getStore();
  if (meter) meter.ru += ru();
}
