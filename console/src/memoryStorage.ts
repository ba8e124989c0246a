/**
 * The storage GraphiQL keeps its state in: the page's memory, nothing else. GraphiQL 4 keeps the query,
 * the variables, the headers, the tabs and the history in `localStorage` by default, where a personal
 * number typed into the variables outlives the sign-out and the 90-day retention, readable by the next
 * person on that browser profile. Here they last as long as the tab.
 */

/** The storage interface GraphiQL takes (`storage` prop): the shape of the Web Storage API. */
export interface GraphiQLStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  clear(): void;
  readonly length: number;
}

export function createMemoryStorage(): GraphiQLStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    clear: () => items.clear(),
    get length() {
      return items.size;
    },
  };
}

/** GraphiQL's keys in a Web Storage (what an earlier version of the page may have left behind). */
export const GRAPHIQL_KEY_PREFIX = 'graphiql:';

/** Removes GraphiQL's keys from a Web Storage; the other keys (the sign-in's) stay. */
export function forgetGraphiQL(storage: Storage): void {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key?.startsWith(GRAPHIQL_KEY_PREFIX)) keys.push(key);
  }
  for (const key of keys) storage.removeItem(key);
}
