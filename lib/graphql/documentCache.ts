/**
 * The parsed-document cache of the GraphQL server, bounded in bytes of document text. graphql-yoga's
 * default keeps any document (1,024 entries of any size) and failed ones too; here a document longer
 * than the entry limit is parsed every time and never kept, and failures are never kept.
 */
export interface StringKeyedCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
}

export class ByteBoundedCache<T> implements StringKeyedCache<T> {
  private readonly entries = new Map<string, T>();
  private bytes = 0;

  /**
   * @param maxTotalBytes bound on the sum of the keys' lengths (UTF-16 code units, about the bytes of ASCII documents)
   * @param maxEntryBytes longer keys are not kept
   */
  constructor(
    private readonly maxTotalBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get(key: string): T | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Least recently used first: move the hit to the end.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: T): void {
    if (key.length > this.maxEntryBytes) return;
    if (this.entries.delete(key)) this.bytes -= key.length;
    this.entries.set(key, value);
    this.bytes += key.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxTotalBytes) break;
      this.entries.delete(oldest);
      this.bytes -= oldest.length;
    }
  }
}

/** A cache that keeps nothing (for parse errors: a failed document is not worth memory). */
export const NO_CACHE: StringKeyedCache<never> = { get: () => undefined, set: () => undefined };
