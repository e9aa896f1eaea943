/**
 * A replay answer's samples read straight from their bytes into columns, for the form the recorder
 * writes (JSON.stringify of `{labels, value}`): `{"labels":{"name":"value",...},"value":1.5}`, value a
 * JSON number or "NaN" / "+Inf" / "-Inf", whitespace between tokens allowed. No object is built for a
 * sample, and a label set is built once per distinct byte text (`sets`): a 10,000-instance recording's
 * 1.3 million samples have about 280,000 distinct sets.
 *
 * Returns null for anything else (keys in another order, an escape or a control byte in a string, a
 * duplicate or `__proto__` label, a number JSON would not write, or one that does not fit a double, any
 * other JSON): the caller then reads the samples with JSON.parse and the sample schema, whose result or
 * error stands. What it returns is what JSON.parse and the schema give (json-samples.test.ts).
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

type Labels = Readonly<Record<string, string>>;

/** Label sets already built, by the latin1 text of their bytes (one char per byte: equal bytes, equal keys). */
export type LabelSetsByBytes = Map<string, Labels>;

const LABELS = Buffer.from('"labels"');
const VALUE = Buffer.from('"value"');
/** JSON's number grammar (RFC 8259 §6). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function skipSpace(b: Buffer, i: number, end: number): number {
  while (i < end && isSpace(b[i]!)) i++;
  return i;
}

/** End (exclusive) of the string whose opening quote is at `i`; -1 for an escape or a control byte. */
function plainStringEnd(b: Buffer, i: number, end: number): number {
  if (b[i] !== QUOTE) return -1;
  for (let j = i + 1; j < end; j++) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** `i` past `w` (after space), or -1. */
function word(b: Buffer, i: number, end: number, w: Uint8Array): number {
  i = skipSpace(b, i, end);
  if (i + w.length > end) return -1;
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return -1;
  return i + w.length;
}

/** `i` past the byte `c` (after space), or -1. */
function byte(b: Buffer, i: number, end: number, c: number): number {
  i = skipSpace(b, i, end);
  return b[i] === c ? i + 1 : -1;
}

/**
 * End (exclusive) of the labels object opening at `i`: plain strings, ':' and ',' only; -1 otherwise.
 * With `out`, its members are put there (null returned as -2 for a duplicate or `__proto__` name).
 */
function labelsEnd(b: Buffer, i: number, end: number, out: Record<string, string> | null): number {
  i = skipSpace(b, i + 1, end);
  if (b[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    const ke = plainStringEnd(b, i, end);
    if (ke < 0) return -1;
    const vs = byte(b, ke, end, COLON);
    if (vs < 0) return -1;
    const vStart = skipSpace(b, vs, end);
    const ve = plainStringEnd(b, vStart, end);
    if (ve < 0) return -1;
    if (out) {
      const key = b.toString("utf8", i + 1, ke - 1);
      if (key === "__proto__" || Object.hasOwn(out, key)) return -2;
      out[key] = b.toString("utf8", vStart + 1, ve - 1);
    }
    i = skipSpace(b, ve, end);
    if (b[i] === COMMA) i = skipSpace(b, i + 1, end);
    else if (b[i] === CLOSE_OBJECT) return i + 1;
    else return -1;
  }
}

/** The samples of the JSON array at `[start, end)` of `b` as columns, or null (see the module comment). */
export function readSamples(
  b: Buffer,
  start: number,
  end: number,
  sets: LabelSetsByBytes,
): { labels: Labels[]; values: Float64Array } | null {
  const read = readSamplesAt(b, skipSpace(b, start, end), end, sets);
  if (!read || skipSpace(b, read.end, end) !== end) return null;
  return { labels: read.labels, values: read.values };
}

/**
 * readSamples of the JSON array opening at `start` (no leading space) within `[start, limit)`, with the
 * end (exclusive) of that array as it reads it: the caller need not find the end first. Where it does
 * not return null, `end` is valueEnd's (json-spans.ts) and the columns are readSamples' of `[start, end)`.
 */
export function readSamplesAt(
  b: Buffer,
  start: number,
  limit: number,
  sets: LabelSetsByBytes,
): { labels: Labels[]; values: Float64Array; end: number } | null {
  const end = limit;
  const labels: Labels[] = [];
  const values: number[] = [];
  if (b[start] !== OPEN_ARRAY) return null;
  let i = skipSpace(b, start + 1, end);
  if (b[i] === CLOSE_ARRAY) return i < end ? { labels, values: new Float64Array(0), end: i + 1 } : null;
  for (;;) {
    i = byte(b, i, end, OPEN_OBJECT);
    if (i >= 0) i = word(b, i, end, LABELS);
    if (i >= 0) i = byte(b, i, end, COLON);
    if (i < 0) return null;
    const ls = skipSpace(b, i, end);
    if (b[ls] !== OPEN_OBJECT) return null;
    const le = labelsEnd(b, ls, end, null);
    if (le < 0) return null;
    const key = b.toString("latin1", ls, le);
    let set = sets.get(key);
    if (!set) {
      const built: Record<string, string> = {};
      if (labelsEnd(b, ls, end, built) !== le) return null;
      set = built;
      sets.set(key, set);
    }
    i = byte(b, le, end, COMMA);
    if (i >= 0) i = word(b, i, end, VALUE);
    if (i >= 0) i = byte(b, i, end, COLON);
    if (i < 0) return null;
    i = skipSpace(b, i, end);
    let value: number;
    if (b[i] === QUOTE) {
      const ve = plainStringEnd(b, i, end);
      if (ve < 0) return null;
      const text = b.toString("latin1", i + 1, ve - 1);
      if (text === "NaN") value = Number.NaN;
      else if (text === "+Inf") value = Number.POSITIVE_INFINITY;
      else if (text === "-Inf") value = Number.NEGATIVE_INFINITY;
      else return null;
      i = ve;
    } else {
      const vs = i;
      while (i < end) {
        const c = b[i]!;
        if (c === COMMA || c === CLOSE_OBJECT || isSpace(c)) break;
        i++;
      }
      const text = b.toString("latin1", vs, i);
      if (!JSON_NUMBER.test(text)) return null;
      value = Number(text);
      if (!Number.isFinite(value)) return null;
    }
    i = byte(b, i, end, CLOSE_OBJECT);
    if (i < 0) return null;
    labels.push(set);
    values.push(value);
    i = skipSpace(b, i, end);
    if (b[i] === COMMA) {
      i++;
      continue;
    }
    if (b[i] !== CLOSE_ARRAY || i >= end) return null;
    return { labels, values: Float64Array.from(values), end: i + 1 };
  }
}
