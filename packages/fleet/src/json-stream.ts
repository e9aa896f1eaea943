/**
 * A replay document's JSON as it arrives in chunks (a gunzip stream): the elements of its top-level
 * `instant` and `range` arrays are handed over one at a time, each as its own bytes, and everything
 * else (the header) is kept as a skeleton with those arrays left empty. Neither the whole text nor the
 * whole decompressed buffer is ever held: at most one entry's bytes and the header's.
 *
 * Only the structure is followed here (brackets matched outside strings, keys of the top-level object);
 * each piece must still be JSON.parse'd, which checks the rest. Anything this does not expect (a second
 * member of the same entry key, an entry that is not an object, brackets that do not match, a document
 * that ends inside a value) makes it `irregular`: the caller then reads the whole file, whose JSON.parse
 * and zod give the errors (decodeReplayApi).
 */

import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  isSpace,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from "./json-bytes.js";

export type EntryKey = "instant" | "range";

export class EntrySplitter {
  /** Set when the document does not have the expected shape; nothing more is handed over then. */
  irregular = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: whether the next string is a key. */
  private expectKey = false;
  private keyParts: Buffer[] | null = null;
  private lastKey: string | null = null;
  private readonly seen = new Set<EntryKey>();
  /** The entry array being split, while inside it. */
  private entries: EntryKey | null = null;
  private elementParts: Buffer[] | null = null;
  private readonly skeleton: Buffer[] = [];

  /** @param onEntry called with each entry's bytes (a fresh Buffer), in document order. */
  constructor(private readonly onEntry: (key: EntryKey, bytes: Buffer) => void) {}

  /** Follows one chunk of the document; `chunk` must not be modified afterwards. */
  push(chunk: Buffer): void {
    if (this.irregular) return;
    let skelFrom = this.entries ? -1 : 0;
    let keyFrom = this.keyParts ? 0 : -1;
    let elemFrom = this.elementParts ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (keyFrom >= 0) {
            this.keyParts!.push(chunk.subarray(keyFrom, i + 1));
            if (!this.endKey()) return;
            keyFrom = -1;
          }
        }
        continue;
      }
      if (isSpace(c)) continue;
      const d = this.depth;
      if (this.entries && d === 2 && c !== COMMA && c !== CLOSE_ARRAY) {
        // An entry starts: only objects are entries.
        if (c !== OPEN_OBJECT) {
          this.fail();
          return;
        }
        this.elementParts = [];
        elemFrom = i;
      }
      if (c === QUOTE) {
        this.inString = true;
        if (d === 1 && this.expectKey) {
          this.keyParts = [];
          keyFrom = i;
        }
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (d === 0 && c === OPEN_OBJECT) this.expectKey = true;
        if (d === 1 && c === OPEN_ARRAY && !this.expectKey && this.lastKey !== null) {
          const key = this.lastKey;
          if (key === "instant" || key === "range") {
            if (this.seen.has(key)) {
              this.fail();
              return;
            }
            this.seen.add(key);
            this.entries = key;
            this.skeleton.push(chunk.subarray(skelFrom, i + 1));
            skelFrom = -1;
          }
        }
        this.depth = d + 1;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (d === 0) {
          this.fail();
          return;
        }
        this.depth = d - 1;
        if (this.entries && d === 3) {
          this.elementParts!.push(chunk.subarray(elemFrom, i + 1));
          const parts = this.elementParts!;
          this.elementParts = null;
          elemFrom = -1;
          this.onEntry(this.entries, parts.length === 1 ? parts[0]! : Buffer.concat(parts));
          if (this.irregular) return;
        } else if (this.entries && d === 2) {
          this.entries = null;
          skelFrom = i;
        }
      } else if (d === 1) {
        if (c === COMMA) this.expectKey = true;
        else if (c === COLON) this.expectKey = false;
      } else if (d === 0) {
        this.fail();
        return;
      }
    }
    if (skelFrom >= 0) this.skeleton.push(chunk.subarray(skelFrom));
    if (keyFrom >= 0) this.keyParts!.push(chunk.subarray(keyFrom));
    if (elemFrom >= 0) this.elementParts!.push(chunk.subarray(elemFrom));
  }

  /**
   * The header: the document with its entry arrays emptied, as bytes for JSON.parse; null when the
   * document was irregular or ended inside a value.
   */
  end(): Buffer | null {
    if (this.irregular || this.inString || this.depth !== 0 || this.skeleton.length === 0) {
      this.irregular = true;
      return null;
    }
    return Buffer.concat(this.skeleton);
  }

  private endKey(): boolean {
    const parts = this.keyParts!;
    this.keyParts = null;
    try {
      this.lastKey = JSON.parse(Buffer.concat(parts).toString("utf8")) as string;
      return true;
    } catch {
      this.fail();
      return false;
    }
  }

  private fail(): void {
    this.irregular = true;
    this.elementParts = null;
    this.keyParts = null;
    this.skeleton.length = 0;
  }
}
