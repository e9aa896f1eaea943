// The f64 form's sample text: base64 of little-endian IEEE 754 float64s, NaN for a missing sample.
// Decoding is one native base64 write straight into the Float64Array's memory: no decimal text to
// scan or convert, no per-sample allocation.

/** Whether this platform stores a Float64Array little-endian (all that Node runs on but s390x). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** Reverses each 8-byte group in place (little-endian ↔ big-endian). */
function swap64(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i += 8) {
    for (let a = i, b = i + 7; a < b; a++, b--) {
      const x = bytes[a]!;
      bytes[a] = bytes[b]!;
      bytes[b] = x;
    }
  }
}

/**
 * The base64 of samples as little-endian float64s; null, undefined and NaN become NaN (a missing
 * sample). One allocation for the bytes, one for the text.
 */
export function encodeF64(values: ArrayLike<number | null | undefined> | Float64Array): string {
  const out = new Float64Array(values.length);
  for (let i = 0; i < out.length; i++) {
    const x = values[i];
    out[i] = x === null || x === undefined ? Number.NaN : x;
  }
  const bytes = new Uint8Array(out.buffer);
  if (!LITTLE_ENDIAN) swap64(bytes);
  return Buffer.from(out.buffer).toString("base64");
}

/** Characters of base64 that Node's decoder takes: the standard and the URL-safe alphabets. */
const BASE64_CHAR = /^[A-Za-z0-9+/\-_]$/;

/**
 * Decodes the f64 form's text into a Float64Array of its own (aligned, whole buffer), or returns what
 * is wrong with the text as a sentence. Padding (`=`) is optional; the URL-safe alphabet is accepted.
 * Values are not checked here (±Infinity are refused by the schema, NaN is a missing sample).
 */
export function decodeF64(text: string): Float64Array | string {
  let body = text.length;
  if (body > 0 && text.charCodeAt(body - 1) === 0x3d) body--;
  if (body > 0 && text.charCodeAt(body - 1) === 0x3d) body--;
  if (body % 4 === 1) return `${text.length} characters are not base64 (a length of 4k + 1 never is)`;
  const bytes = Math.floor((body * 3) / 4);
  if (bytes % 8 !== 0)
    return `the base64 decodes to ${bytes} bytes, not a whole number of float64 samples (8 bytes each)`;
  const out = new Float64Array(bytes / 8);
  // Node's decoder skips characters outside the alphabet (and stops at an inner '='): each one
  // shortens what is written, so the count tells a clean text from a faulty one.
  const written = Buffer.from(out.buffer).write(text, 0, bytes, "base64");
  if (written !== bytes) {
    let i = 0;
    while (i < body && BASE64_CHAR.test(text[i]!)) i++;
    return `not base64: ${JSON.stringify(text[i] ?? "")} at character ${i} (the alphabet is A-Z, a-z, 0-9, + and /, with = only as padding at the end)`;
  }
  if (!LITTLE_ENDIAN) swap64(new Uint8Array(out.buffer));
  return out;
}
