/**
 * Counts the values of a JSON text and the depth of its nesting while its bytes stream in, so a body that
 * would make JSON.parse build too much is refused before anything is built. What JSON.parse makes of a
 * body is bounded by its bytes only loosely: 8 MB of `[],` are 2.8 million arrays, several hundred MB of
 * heap. Every string, number, literal, array and object counts as one value (object keys are not counted:
 * each comes with a value); the depth is the number of arrays and objects open at once.
 *
 * The meter is exact on any prefix of valid JSON, the only part JSON.parse ever builds (it stops at the
 * first error); after a syntax error its counts may be anything and the parser refuses the body anyway.
 * It works on bytes: a multi-byte UTF-8 character never contains a byte below 0x80, so only ASCII
 * structure is looked at, and a value or an escape split between two chunks is followed across them.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Bytes that end a number or a literal (true, false, null). */
function endsBareValue(byte: number): boolean {
  return (
    byte === 0x20 ||
    byte === 0x09 ||
    byte === 0x0a ||
    byte === 0x0d ||
    byte === COMMA ||
    byte === COLON ||
    byte === CLOSE_ARRAY ||
    byte === CLOSE_OBJECT ||
    byte === OPEN_ARRAY ||
    byte === OPEN_OBJECT ||
    byte === QUOTE
  );
}

const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** Which bound a body passed. */
export type JsonShapeExcess = 'values' | 'depth';

export class JsonShapeMeter {
  private valueCount = 0;
  private depth = 0;
  private deepest = 0;
  /** Per open level, 1 when it is an object (its members start with a key); level 0 is outside any. */
  private readonly objectAt: Uint8Array;
  private inString = false;
  private escaped = false;
  /** Inside a number or a literal. */
  private inBareValue = false;
  /** The next string is an object key (after `{` or after `,` in an object). */
  private keyNext = false;

  constructor(
    private readonly maxValues: number,
    private readonly maxDepth: number,
  ) {
    this.objectAt = new Uint8Array(maxDepth + 2);
  }

  /** Values seen so far. */
  get values(): number {
    return this.valueCount;
  }

  /** The deepest nesting seen so far. */
  get maxNesting(): number {
    return this.deepest;
  }

  /** Feeds the next chunk; the bound it passed (counting stops there), or undefined while within both. */
  feed(chunk: Uint8Array): JsonShapeExcess | undefined {
    // Where the next quote and backslash are in this chunk (-2: not looked for yet, -1: none left), so the
    // inside of a string is skipped with a search instead of byte by byte.
    let quote = -2;
    let backslash = -2;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (quote !== -1 && quote < i) quote = chunk.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
        if (quote === -1 && backslash === -1) return undefined;
        i = quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
        if (i === backslash) this.escaped = true;
        else this.inString = false;
        continue;
      }
      const byte = chunk[i] as number;
      if (this.inBareValue) {
        if (!endsBareValue(byte)) continue;
        this.inBareValue = false;
      }
      const excess = this.structure(byte);
      if (excess) return excess;
    }
    return undefined;
  }

  /** A byte outside strings and bare values. */
  private structure(byte: number): JsonShapeExcess | undefined {
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.keyNext) {
          this.keyNext = false;
          return undefined;
        }
        return this.counted();
      case OPEN_OBJECT:
      case OPEN_ARRAY: {
        const excess = this.counted();
        if (excess) return excess;
        this.deepest = Math.max(this.deepest, ++this.depth);
        if (this.depth > this.maxDepth) return 'depth';
        this.objectAt[this.depth] = byte === OPEN_OBJECT ? 1 : 0;
        this.keyNext = byte === OPEN_OBJECT;
        return undefined;
      }
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (this.depth > 0) this.depth--;
        this.keyNext = false;
        return undefined;
      case COMMA:
        this.keyNext = this.objectAt[this.depth] === 1;
        return undefined;
      case COLON:
        this.keyNext = false;
        return undefined;
      default:
        if (isWhitespace(byte)) return undefined;
        // A number or a literal (or a byte JSON does not allow here, which the parser refuses).
        this.inBareValue = true;
        this.keyNext = false;
        return this.counted();
    }
  }

  private counted(): JsonShapeExcess | undefined {
    return ++this.valueCount > this.maxValues ? 'values' : undefined;
  }
}
