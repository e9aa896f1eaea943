/**
 * A replay file's JSON read from its bytes, for the web console's first read of a recording (10,000
 * instances: 100 MB of JSON, 1.3 million samples). Measured side by side against JSON.parse of each
 * entry and the zod schema: decode CPU and peak RSS both well under 0.8× (BENCHMARKS.md, "Scale code:
 * kept or removed").
 *
 * - EntrySplitter follows the document as it arrives in chunks (a gunzip stream) and hands over each
 *   element of its top-level `instant` and `range` arrays as its own bytes, keeping the rest (the header)
 *   as a skeleton with those arrays left empty: at most one entry's bytes and the header's are held.
 * - readInstantEntry reads one instant entry in the form the recorder writes (JSON.stringify of
 *   `{query, answers: [{time, data: [{labels, value}, …]}]}`): each answer's samples straight into
 *   columns, with no object per sample and a label set built once per distinct byte text (a
 *   10,000-instance recording's 1.3 million samples have about 280,000); everything else is JSON.parse'd.
 *
 * Only the structure is followed here (brackets matched outside strings, ':' and ',' where JSON puts
 * them); each piece still goes through JSON.parse or, for samples, JSON's number grammar. Anything
 * either does not expect (another key order, an escape in a sample, a duplicate or `__proto__` key, a
 * number JSON would not write, damage) it declines, and the caller reads that with JSON.parse and the
 * zod schema, whose result or error stands (replay.ts).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** JSON's four whitespace bytes (RFC 8259 §2). */
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i]!)) i++;
  return i;
}

// ---- entries as they stream in ----

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

// ---- one instant entry ----

/** [start, end) byte offsets of a JSON value or key. */
type Span = readonly [start: number, end: number];
type Member = { readonly key: Span; readonly value: Span };
type Labels = Readonly<Record<string, string>>;

/** Label sets already built, by the latin1 text of their bytes (one char per byte: equal bytes, equal keys). */
export type LabelSetsByBytes = Map<string, Labels>;

/** One answer's samples in columns. */
export interface SampleColumns {
  readonly labels: Labels[];
  readonly values: Float64Array;
}

/**
 * End (exclusive) of the string starting at its opening quote `i`, or -1: the first quote after it
 * preceded by an even run of backslashes (indexOf finds the quotes; most of a replay's bytes are strings).
 */
function stringEnd(b: Uint8Array, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let k = q - 1;
    while (k > i && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** End (exclusive) of the value starting at `i` (no leading space), or -1 where it cannot end. */
export function valueEnd(b: Uint8Array, i: number): number {
  if (i >= b.length) return -1;
  const first = b[i]!;
  if (first === QUOTE) return stringEnd(b, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const c = b[j]!;
      if (c === QUOTE) {
        j = stringEnd(b, j);
        if (j < 0) return -1;
        j--;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < b.length) {
    const c = b[j]!;
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * The object opening at `start`, in one pass: its members and its end; each value's end is
 * `valueEndOf(key, i)`'s (-1 declines the object). Null where it is not an object there.
 */
function objectAt(
  b: Uint8Array,
  start: number,
  valueEndOf: (key: Span, i: number) => number,
): { members: Member[]; end: number } | null {
  if (b[start] !== OPEN_OBJECT) return null;
  const members: Member[] = [];
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_OBJECT) return { members, end: i + 1 };
  for (;;) {
    if (b[i] !== QUOTE) return null;
    const k = stringEnd(b, i);
    if (k < 0) return null;
    const key: Span = [i, k];
    i = skipSpace(b, k);
    if (b[i] !== COLON) return null;
    i = skipSpace(b, i + 1);
    const e = valueEndOf(key, i);
    if (e < 0) return null;
    members.push({ key, value: [i, e] });
    i = skipSpace(b, e);
    if (b[i] === CLOSE_OBJECT) return { members, end: i + 1 };
    if (b[i] !== COMMA) return null;
    i = skipSpace(b, i + 1);
  }
}

/**
 * The array opening at `start`, in one pass: its elements' starts and its end; each element's end is
 * `elementEnd`'s (-1 declines the array). Null where it is not an array there.
 */
function arrayAt(
  b: Uint8Array,
  start: number,
  elementEnd: (i: number) => number,
): { starts: number[]; end: number } | null {
  if (b[start] !== OPEN_ARRAY) return null;
  const starts: number[] = [];
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_ARRAY) return { starts, end: i + 1 };
  for (;;) {
    const e = elementEnd(i);
    if (e < 0) return null;
    starts.push(i);
    i = skipSpace(b, e);
    if (b[i] === CLOSE_ARRAY) return { starts, end: i + 1 };
    if (b[i] !== COMMA) return null;
    i = skipSpace(b, i + 1);
  }
}

/** Whether the key at `key` is, byte for byte, the JSON text `text` (a quoted name without escapes). */
function keyIs(b: Uint8Array, [start, end]: Span, text: Uint8Array): boolean {
  if (end - start !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (b[start + k] !== text[k]) return false;
  return true;
}

const ANSWERS = Buffer.from('"answers"');
const DATA = Buffer.from('"data"');
const LABELS = Buffer.from('"labels"');
const VALUE = Buffer.from('"value"');
/** JSON's number grammar (RFC 8259 §6). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** End (exclusive) of the string whose opening quote is at `i`; -1 for an escape or a control byte. */
function plainStringEnd(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  for (let j = i + 1; j < b.length; j++) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** `i` past `w` (after space), or -1. */
function word(b: Uint8Array, i: number, w: Uint8Array): number {
  i = skipSpace(b, i);
  if (i + w.length > b.length) return -1;
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return -1;
  return i + w.length;
}

/** `i` past the byte `c` (after space), or -1. */
function byte(b: Uint8Array, i: number, c: number): number {
  i = skipSpace(b, i);
  return b[i] === c ? i + 1 : -1;
}

/**
 * End (exclusive) of the labels object opening at `i`: plain strings, ':' and ',' only; -1 otherwise.
 * With `out`, its members are put there (-2 for a duplicate or `__proto__` name).
 */
function labelsEnd(b: Buffer, i: number, out: Record<string, string> | null): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    const ke = plainStringEnd(b, i);
    if (ke < 0) return -1;
    const vs = byte(b, ke, COLON);
    if (vs < 0) return -1;
    const vStart = skipSpace(b, vs);
    const ve = plainStringEnd(b, vStart);
    if (ve < 0) return -1;
    if (out) {
      const key = b.toString("utf8", i + 1, ke - 1);
      if (key === "__proto__" || Object.hasOwn(out, key)) return -2;
      out[key] = b.toString("utf8", vStart + 1, ve - 1);
    }
    i = skipSpace(b, ve);
    if (b[i] === COMMA) i = skipSpace(b, i + 1);
    else if (b[i] === CLOSE_OBJECT) return i + 1;
    else return -1;
  }
}

/** One sample's value at `i`: a JSON number, or "NaN" / "+Inf" / "-Inf"; its end, or -1. */
function sampleValue(b: Buffer, i: number, out: Float64Array): number {
  if (b[i] === QUOTE) {
    const ve = plainStringEnd(b, i);
    if (ve < 0) return -1;
    const text = b.toString("latin1", i + 1, ve - 1);
    if (text === "NaN") out[0] = Number.NaN;
    else if (text === "+Inf") out[0] = Number.POSITIVE_INFINITY;
    else if (text === "-Inf") out[0] = Number.NEGATIVE_INFINITY;
    else return -1;
    return ve;
  }
  let e = i;
  while (e < b.length) {
    const c = b[e]!;
    if (c === COMMA || c === CLOSE_OBJECT || isSpace(c)) break;
    e++;
  }
  const text = b.toString("latin1", i, e);
  if (!JSON_NUMBER.test(text)) return -1;
  const v = Number(text);
  if (!Number.isFinite(v)) return -1;
  out[0] = v;
  return e;
}

/**
 * The samples of the JSON array opening at `start` (no leading space), in the recorder's form
 * `{"labels":{…},"value":v}`, as columns, with the end (exclusive) of the array: valueEnd's where it
 * does not return null, and the columns are what JSON.parse and the sample schema give.
 */
export function readSamplesAt(
  b: Buffer,
  start: number,
  sets: LabelSetsByBytes,
): (SampleColumns & { end: number }) | null {
  const labels: Labels[] = [];
  const values: number[] = [];
  const value = new Float64Array(1);
  if (b[start] !== OPEN_ARRAY) return null;
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_ARRAY) return { labels, values: new Float64Array(0), end: i + 1 };
  for (;;) {
    i = byte(b, i, OPEN_OBJECT);
    if (i >= 0) i = word(b, i, LABELS);
    if (i >= 0) i = byte(b, i, COLON);
    if (i < 0) return null;
    const ls = skipSpace(b, i);
    if (b[ls] !== OPEN_OBJECT) return null;
    const le = labelsEnd(b, ls, null);
    if (le < 0) return null;
    const key = b.toString("latin1", ls, le);
    let set = sets.get(key);
    if (!set) {
      const built: Record<string, string> = {};
      if (labelsEnd(b, ls, built) !== le) return null;
      set = built;
      sets.set(key, set);
    }
    i = byte(b, le, COMMA);
    if (i >= 0) i = word(b, i, VALUE);
    if (i >= 0) i = byte(b, i, COLON);
    if (i >= 0) i = sampleValue(b, skipSpace(b, i), value);
    if (i >= 0) i = byte(b, i, CLOSE_OBJECT);
    if (i < 0) return null;
    labels.push(set);
    values.push(value[0]!);
    i = skipSpace(b, i);
    if (b[i] === COMMA) {
      i++;
      continue;
    }
    if (b[i] !== CLOSE_ARRAY) return null;
    return { labels, values: Float64Array.from(values), end: i + 1 };
  }
}

/**
 * One instant entry's own bytes (as EntrySplitter hands them over) in the recorder's form: the entry
 * with each answer's `data` left empty, for the entry schema, and each answer's samples in columns, in
 * the answers' order. Null for anything else (the caller then validates the entry whole).
 */
export function readInstantEntry(
  b: Buffer,
  sets: LabelSetsByBytes,
): { entry: Record<string, unknown>; samples: SampleColumns[] } | null {
  // One pass finds the entry's members, its answers and their members, and reads each answer's samples.
  const samplesAt = new Map<number, SampleColumns>();
  const answerAt = new Map<number, Member[]>();
  const answersAt = new Map<number, number[]>();
  const answerEnd = (i: number): number => {
    const o = objectAt(b, i, (key, at) => {
      if (!keyIs(b, key, DATA)) return valueEnd(b, at);
      const read = readSamplesAt(b, at, sets);
      if (!read) return -1;
      samplesAt.set(at, read);
      return read.end;
    });
    if (!o) return -1;
    answerAt.set(i, o.members);
    return o.end;
  };
  const found = objectAt(b, 0, (key, at) => {
    if (!keyIs(b, key, ANSWERS)) return valueEnd(b, at);
    const a = arrayAt(b, at, answerEnd);
    if (!a) return -1;
    answersAt.set(at, a.starts);
    return a.end;
  });
  if (!found || skipSpace(b, found.end) !== b.length) return null;
  try {
    return entryOf(b, found.members, answersAt, answerAt, samplesAt);
  } catch {
    // A member JSON.parse refuses.
    return null;
  }
}

/** The entry readInstantEntry found, its members JSON.parse'd but for the samples. */
function entryOf(
  b: Buffer,
  members: readonly Member[],
  answersAt: ReadonlyMap<number, readonly number[]>,
  answerAt: ReadonlyMap<number, readonly Member[]>,
  samplesAt: ReadonlyMap<number, SampleColumns>,
): { entry: Record<string, unknown>; samples: SampleColumns[] } | null {
  const parse = ([start, end]: Span): unknown => JSON.parse(b.toString("utf8", start, end));
  const entry: Record<string, unknown> = {};
  const samples: SampleColumns[] = [];
  for (const m of members) {
    const name = parse(m.key) as string;
    if (name === "__proto__" || Object.hasOwn(entry, name)) return null;
    if (name !== "answers") {
      entry[name] = parse(m.value);
      continue;
    }
    // An escaped key was not read as the answers: declined.
    const starts = answersAt.get(m.value[0]);
    if (!starts) return null;
    const answers: Record<string, unknown>[] = [];
    for (const start of starts) {
      const answer: Record<string, unknown> = {};
      let columns: SampleColumns | undefined;
      for (const f of answerAt.get(start)!) {
        const field = parse(f.key) as string;
        if (field === "__proto__" || Object.hasOwn(answer, field)) return null;
        if (field === "data") {
          columns = samplesAt.get(f.value[0]);
          if (!columns) return null;
          answer[field] = [];
        } else answer[field] = parse(f.value);
      }
      if (!columns) return null;
      samples.push(columns);
      answers.push(answer);
    }
    entry[name] = answers;
  }
  return { entry, samples };
}
