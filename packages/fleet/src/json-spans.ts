/**
 * Where the values of a JSON document's top-level object lie in its UTF-8 bytes, and where the elements
 * of chosen array members lie, without building any of them: a caller can then JSON.parse one piece at
 * a time and let each go before the next (decodeReplayApi reads a 100 MB replay so).
 *
 * Only the structure between the pieces is checked here (brackets matched outside strings, ':' and ','
 * where JSON puts them, nothing after the object); each piece must still be JSON.parse'd, which checks
 * the rest. Returns null where the bytes do not have that shape; a caller then parses the whole text
 * to get JSON.parse's own error or value.
 */

/** [start, end) byte offsets of a JSON value. */
export type Span = readonly [start: number, end: number];

export interface TopLevelSpans {
  /** Each member's key (JSON text of the string, as in the document) and value span, in order. */
  readonly members: readonly { readonly key: Span; readonly value: Span }[];
  /** For each member named in `split` whose value is an array: its elements' spans. */
  readonly elements: ReadonlyMap<Span, readonly Span[]>;
}

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

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i]!)) i++;
  return i;
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
 * The elements of the array whose span is `[start, end)` as flat offsets (element k at
 * `[out[2k], out[2k + 1])`: one array, not one per element, for arrays of thousands), or null.
 */
export function arrayElementOffsets(b: Uint8Array, start: number, end: number): number[] | null {
  const r = arrayAt(b, start, end);
  return r && r.end === end ? r.offsets : null;
}

/** Where a value starting at `i` ends (exclusive), or -1: valueEnd unless the caller reads it itself. */
export type EndOf = (i: number) => number;

/**
 * The array opening at `start` (no leading space), found within `[start, limit)` in one pass: its
 * elements as flat offsets (as arrayElementOffsets) and its end; each element's end is `elementEnd`'s
 * (which must agree with valueEnd where it does not return -1). Null where it is not an array there.
 */
export function arrayAt(
  b: Uint8Array,
  start: number,
  limit: number,
  elementEnd: EndOf = (i) => valueEnd(b, i),
): { offsets: number[]; end: number } | null {
  if (b[start] !== OPEN_ARRAY) return null;
  const out: number[] = [];
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_ARRAY) return i < limit ? { offsets: out, end: i + 1 } : null;
  for (;;) {
    const e = elementEnd(i);
    if (e < 0 || e > limit - 1) return null;
    out.push(i, e);
    i = skipSpace(b, e);
    if (b[i] === CLOSE_ARRAY) return i < limit ? { offsets: out, end: i + 1 } : null;
    if (b[i] !== COMMA) return null;
    i = skipSpace(b, i + 1);
  }
}

/** The elements of the array whose span is `[start, end)`, or null. */
export function arrayElements(b: Uint8Array, start: number, end: number): Span[] | null {
  const flat = arrayElementOffsets(b, start, end);
  if (!flat) return null;
  const out: Span[] = new Array(flat.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = [flat[2 * k]!, flat[2 * k + 1]!];
  return out;
}

/**
 * The members of the top-level object in `b`, with the elements of the array-valued members whose keys
 * (decoded) are in `split`; null if `b` is not one object with only space after it.
 */
export function topLevelSpans(
  b: Uint8Array,
  split: ReadonlySet<string>,
  key: (s: Span) => string,
): TopLevelSpans | null {
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_OBJECT) return null;
  const members: { key: Span; value: Span }[] = [];
  const elements = new Map<Span, readonly Span[]>();
  i = skipSpace(b, i + 1);
  if (b[i] !== CLOSE_OBJECT)
    for (;;) {
      if (b[i] !== QUOTE) return null;
      const k = stringEnd(b, i);
      if (k < 0) return null;
      const keySpan: Span = [i, k];
      i = skipSpace(b, k);
      if (b[i] !== COLON) return null;
      i = skipSpace(b, i + 1);
      const e = valueEnd(b, i);
      if (e < 0) return null;
      const value: Span = [i, e];
      members.push({ key: keySpan, value });
      if (b[i] === OPEN_ARRAY && split.has(key(keySpan))) {
        const xs = arrayElements(b, i, e);
        if (!xs) return null;
        elements.set(value, xs);
      }
      i = skipSpace(b, e);
      if (b[i] === CLOSE_OBJECT) break;
      if (b[i] !== COMMA) return null;
      i = skipSpace(b, i + 1);
    }
  return skipSpace(b, i + 1) === b.length ? { members, elements } : null;
}

/** The members (key and value spans) of the object whose span is `[start, end)`, or null. */
export function objectMembers(
  b: Uint8Array,
  start: number,
  end: number,
): { key: Span; value: Span }[] | null {
  const r = objectAt(b, start, end);
  return r && r.end === end ? r.members : null;
}

/**
 * The object opening at `start`, found within `[start, limit)` in one pass: its members (key and value
 * spans) and its end; each value's end is `valueEndOf(key, i)`'s (which must agree with valueEnd where
 * it does not return -1). Null where it is not an object there.
 */
export function objectAt(
  b: Uint8Array,
  start: number,
  limit: number,
  valueEndOf: (key: Span, i: number) => number = (_, i) => valueEnd(b, i),
): { members: { key: Span; value: Span }[]; end: number } | null {
  if (b[start] !== OPEN_OBJECT) return null;
  const members: { key: Span; value: Span }[] = [];
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_OBJECT) return i < limit ? { members, end: i + 1 } : null;
  for (;;) {
    if (b[i] !== QUOTE) return null;
    const k = stringEnd(b, i);
    if (k < 0) return null;
    const key: Span = [i, k];
    i = skipSpace(b, k);
    if (b[i] !== COLON) return null;
    i = skipSpace(b, i + 1);
    const e = valueEndOf(key, i);
    if (e < 0 || e > limit - 1) return null;
    members.push({ key, value: [i, e] });
    i = skipSpace(b, e);
    if (b[i] === CLOSE_OBJECT) return i < limit ? { members, end: i + 1 } : null;
    if (b[i] !== COMMA) return null;
    i = skipSpace(b, i + 1);
  }
}

/** Whether the key at `key` is, byte for byte, the JSON text `text` (a quoted name without escapes). */
export function keyIs(b: Uint8Array, [start, end]: Span, text: Uint8Array): boolean {
  if (end - start !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (b[start + k] !== text[k]) return false;
  return true;
}

/** Whether the value at `span` is an array. */
export const isArray = (b: Uint8Array, span: Span) => b[span[0]] === OPEN_ARRAY;
