/**
 * Measures the `query` member of a GraphQL JSON request body while the body streams in, so a document
 * longer than the query-text cap is refused as soon as that is known: before the rest of the body is
 * read, before JSON.parse builds the string, and before graphql-js parses it. Variables (an import's
 * identities) are not counted: they have their own limit, the body size.
 *
 * The meter counts the bytes of the string as written in JSON with each escape sequence counted as one,
 * which is never more than the UTF-8 length of the decoded text; the exact length is checked again after
 * JSON.parse. Only the top-level object's members are followed; anything else is left to the JSON parser.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const U = 0x75;
const isOpener = (byte: number) => byte === 0x7b || byte === 0x5b; // { [
const isCloser = (byte: number) => byte === 0x7d || byte === 0x5d; // } ]
const MAX_KEY_BYTES = 16;

export class QueryTextMeter {
  private depth = 0;
  private inString = false;
  /** Bytes still to skip inside an escape: 1 after a backslash, 4 more after \u. */
  private escapeLeft = 0;
  private keyBytes: number[] | undefined;
  private keyEscaped = false;
  private lastKey: string | undefined;
  /** Whether the top-level string being read is the value of `query`. */
  private inQuery = false;
  private expectingValueOf: string | undefined;
  private queryBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The query text measured so far (a lower bound of its UTF-8 length). */
  get measured(): number {
    return this.queryBytes;
  }

  /** Feeds the next chunk; returns true once the query text is known to exceed the cap. */
  exceeded(chunk: Uint8Array): boolean {
    // Where the next quote and backslash are (-2: not looked for yet, -1: none left in the chunk): a string
    // that is neither the query nor a key is skipped with a search instead of byte by byte.
    let quote = -2;
    let backslash = -2;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString && !this.inQuery && !this.keyBytes && this.escapeLeft === 0) {
        if (quote !== -1 && quote < i) quote = chunk.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
        if (quote === -1 && backslash === -1) return false;
        i = quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
      }
      const byte = chunk[i] as number;
      if (this.inString) {
        this.inStringByte(byte);
        if (this.queryBytes > this.maxBytes) return true;
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
        const topLevel = this.depth === 1;
        this.inQuery = topLevel && this.expectingValueOf === 'query';
        this.keyBytes = topLevel && this.expectingValueOf === undefined ? [] : undefined;
        this.expectingValueOf = topLevel && this.expectingValueOf !== undefined ? undefined : this.expectingValueOf;
      } else if (isOpener(byte)) {
        if (this.depth === 1) this.expectingValueOf = undefined;
        this.depth++;
      } else if (isCloser(byte)) {
        this.depth--;
      } else if (byte === COLON && this.depth === 1 && this.lastKey !== undefined) {
        this.expectingValueOf = this.lastKey;
        this.lastKey = undefined;
      } else if (this.depth === 1 && byte > 0x20 && byte !== 0x2c) {
        // A number, true, false or null as a top-level value.
        this.expectingValueOf = undefined;
      }
    }
    return false;
  }

  private inStringByte(byte: number): void {
    if (this.escapeLeft > 0) {
      this.escapeLeft = this.escapeLeft === 1 && byte === U ? 4 : this.escapeLeft - 1;
      return;
    }
    if (byte === BACKSLASH) {
      this.escapeLeft = 1;
      // A key written with escapes could decode to "query": its value is measured as the query.
      if (this.keyBytes) this.keyEscaped = true;
      this.count(byte);
      return;
    }
    if (byte === QUOTE) {
      this.inString = false;
      if (this.keyBytes) this.lastKey = this.keyEscaped ? 'query' : Buffer.from(this.keyBytes).toString('latin1');
      this.keyBytes = undefined;
      this.keyEscaped = false;
      this.inQuery = false;
      return;
    }
    this.count(byte);
  }

  private count(byte: number): void {
    if (this.inQuery) this.queryBytes++;
    else if (this.keyBytes && this.keyBytes.length <= MAX_KEY_BYTES) this.keyBytes.push(byte);
  }
}
