// A JSON reader for comparison inputs that never materialises the sample arrays as boxed numbers.
//
// JSON.parse of a 20-instance, 8-metric, 7-day input (13 M samples) holds every sample as a JS number
// in a JS array: several hundred MB before validation starts. This reader scans the bytes in chunks
// and parses the arrays at `instances[i].series[m].before|after.v|t` straight into Float64Arrays
// (null → NaN), and the f64 form's base64 text (`...before|after.f64`) is found with indexOf and
// decoded natively into a Float64Array; everything else (metadata, options, ids) becomes ordinary JSON values that the zod
// schema validates as before. What it returns is what JSON.parse returns, but for those arrays.
// No I/O here: the caller hands over the bytes chunk by chunk (the CLI reads a file or stdin in 1 MiB
// chunks, so neither the file nor a string of it is ever held whole). Measured against JSON.parse + zod
// side by side: peak RSS 0.45–0.60×, read + validation CPU 0.45× (BENCHMARKS.md, issue 28).
import { decodeF64 } from "./f64-samples.js";
import { parseComparisonInput } from "./input.js";

/** Malformed JSON, or a sample array holding something other than numbers (and null in `v`). */
export class InputSyntaxError extends Error {
  constructor(
    /** Where, as instances[0].series.tps.before.v[12] ("" at the top level). */
    readonly path: string,
    /** Byte offset of the offending token in the input. */
    readonly offset: number,
    detail: string,
  ) {
    super(`${path === "" ? "" : `${path}: `}${detail} (at byte ${offset})`);
    this.name = "InputSyntaxError";
  }
}

/** The next chunk of the input's bytes; null once the input is exhausted. */
export type ChunkSource = () => Uint8Array | null;

/** Deeper nesting than this is refused (recursion depth; a comparison input nests 6 levels). */
const MAX_DEPTH = 256;
/** Bytes kept ahead of the cursor while scanning numbers, so a number is never cut by a chunk end. */
const LOOKAHEAD = 64;

const latin1 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

function grow(a: Float64Array): Float64Array {
  const grown = new Float64Array(a.length * 2);
  grown.set(a);
  return grown;
}

/**
 * End (exclusive) of the well-formed JSON number at s[i], or −1: the grammar only (Number() of the token
 * converts it, as JSON.parse rounds). Past the text's end charCodeAt is NaN, so a number cut by a chunk's
 * end stops there and the caller reads it on the careful path.
 */
function numberEnd(s: string, i: number): number {
  let c = s.charCodeAt(i);
  if (c === 0x2d) c = s.charCodeAt(++i);
  if (c === 0x30) c = s.charCodeAt(++i);
  else if (c >= 0x31 && c <= 0x39) {
    do c = s.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (c === 0x2e) {
    c = s.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = s.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  }
  if (c === 0x65 || c === 0x45) {
    c = s.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = s.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  }
  return i;
}

/** The samples read, in an array of their own (the growth buffer would hold up to twice as much). */
function trim(a: Float64Array, n: number): Float64Array {
  return n === a.length ? a : a.slice(0, n);
}

class Reader {
  /** Unread input, one byte per char (latin1): charCodeAt is the byte. */
  private s = "";
  private p = 0;
  private consumed = 0;
  private done = false;
  /** Where the unread bytes and the next chunk are joined (reused). */
  private joined: Buffer = Buffer.alloc(0);
  private readonly path: (string | number)[] = [];

  constructor(private readonly next: ChunkSource) {}

  read(): unknown {
    const value = this.value(0);
    this.space();
    if (this.peek() !== -1) this.fail("unexpected data after the JSON value");
    return value;
  }

  /** Makes at least `n` bytes available from the cursor, unless the input ends first. */
  private ensure(n: number): boolean {
    while (this.s.length - this.p < n && !this.done) {
      const chunk = this.next();
      if (chunk === null) {
        this.done = true;
        break;
      }
      if (chunk.length === 0) continue;
      this.consumed += this.p;
      // One flat string of the unread bytes and the chunk: concatenating strings would make a cons
      // string, and every charCodeAt of the scan would go through it (about 15 % of the reading).
      // Joined in one buffer kept across chunks (a fresh one per chunk raised peak RSS by 30 MB).
      const rest = this.s.length - this.p;
      if (rest === 0) this.s = latin1(chunk);
      else {
        const size = rest + chunk.length;
        if (this.joined.length < size)
          this.joined = Buffer.allocUnsafe(Math.max(size, 2 * this.joined.length));
        this.joined.write(this.s.slice(this.p), 0, "latin1");
        this.joined.set(chunk, rest);
        this.s = this.joined.toString("latin1", 0, size);
      }
      this.p = 0;
    }
    return this.s.length - this.p >= n;
  }

  private peek(): number {
    if (this.p >= this.s.length && !this.ensure(1)) return -1;
    return this.s.charCodeAt(this.p);
  }

  private space(): void {
    for (;;) {
      const c = this.peek();
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.p++;
    }
  }

  private where(): string {
    let out = "";
    for (const k of this.path) {
      if (typeof k === "number") out += `[${k}]`;
      else if (/^[A-Za-z_$][\w$]*$/.test(k)) out += out === "" ? k : `.${k}`;
      else out += `[${JSON.stringify(k)}]`;
    }
    return out;
  }

  private fail(detail: string, index?: number): never {
    const path = this.where() + (index === undefined ? "" : `[${index}]`);
    throw new InputSyntaxError(path, this.consumed + this.p, detail);
  }

  private found(): string {
    const c = this.peek();
    if (c === -1) return "the end of the input";
    if (c === 0x22) return "a string";
    if (c === 0x7b) return "an object";
    if (c === 0x5b) return "an array";
    if (c === 0x74 || c === 0x66) return "a boolean";
    return `${JSON.stringify(String.fromCharCode(c))}`;
  }

  private value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`);
    this.space();
    const c = this.peek();
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (c === 0x74) return this.literal("true", true);
    if (c === 0x66) return this.literal("false", false);
    if (c === 0x6e) return this.literal("null", null);
    return this.fail(c === -1 ? "unexpected end of the input" : `unexpected ${this.found()}`);
  }

  private literal<T>(word: string, value: T): T {
    this.ensure(word.length);
    if (this.s.startsWith(word, this.p)) {
      this.p += word.length;
      return value;
    }
    return this.fail(`unexpected ${this.found()}`);
  }

  /** Whether the value about to be read is a window's sample array (v, or t of the explicit form). */
  private atSamples(): "v" | "t" | "f64" | undefined {
    const k = this.path;
    const n = k.length;
    if (n !== 6 || k[0] !== "instances" || k[2] !== "series") return undefined;
    if (k[4] !== "before" && k[4] !== "after") return undefined;
    return k[5] === "v" ? "v" : k[5] === "t" ? "t" : k[5] === "f64" ? "f64" : undefined;
  }

  private object(depth: number): Record<string, unknown> {
    this.p++; // {
    const out: Record<string, unknown> = {};
    this.space();
    if (this.peek() === 0x7d) {
      this.p++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.peek() !== 0x22) this.fail(`expected a property name in double quotes, found ${this.found()}`);
      const key = this.string();
      this.space();
      if (this.peek() !== 0x3a) this.fail(`expected ':' after property name ${JSON.stringify(key)}`);
      this.p++;
      this.path.push(key);
      const samples = this.atSamples();
      this.space();
      const c0 = samples === undefined ? -1 : this.peek();
      const value =
        samples === "f64" && c0 === 0x22
          ? this.f64()
          : samples !== undefined && samples !== "f64" && c0 === 0x5b
            ? this.samples(samples)
            : this.value(depth + 1);
      this.path.pop();
      // As JSON.parse: an own property even for "__proto__"; a repeated key keeps its last value.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      this.space();
      const c = this.peek();
      this.p++;
      if (c === 0x2c) continue;
      if (c === 0x7d) return out;
      this.p--;
      this.fail(`expected ',' or '}' after a property value, found ${this.found()}`);
    }
  }

  private array(depth: number): unknown[] {
    this.p++; // [
    const out: unknown[] = [];
    this.space();
    if (this.peek() === 0x5d) {
      this.p++;
      return out;
    }
    for (;;) {
      this.path.push(out.length);
      out.push(this.value(depth + 1));
      this.path.pop();
      this.space();
      const c = this.peek();
      this.p++;
      if (c === 0x2c) continue;
      if (c === 0x5d) return out;
      this.p--;
      this.fail(`expected ',' or ']' after an array element, found ${this.found()}`);
    }
  }

  /**
   * A sample array straight into a Float64Array: numbers, and null (→ NaN) where `v` has a gap. The
   * array grows by doubling and is trimmed once at the end (a view when it is more than half full).
   */
  private samples(which: "v" | "t"): Float64Array {
    this.p++; // [
    let out: Float64Array = new Float64Array(1024);
    let n = 0;
    this.space();
    if (this.peek() === 0x5d) {
      this.p++;
      return out.subarray(0, 0);
    }
    const nullable = which === "v";
    for (;;) {
      // The fast loop: well-formed samples well inside the buffered text, no method calls. Anything
      // else (a chunk's end near, a malformed or unusual token) goes to the careful path below, one
      // sample at a time, from the start of that sample.
      const s = this.s;
      const limit = s.length - LOOKAHEAD;
      let p = this.p;
      while (p < limit) {
        let c = s.charCodeAt(p);
        while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++p);
        let x: number;
        if (c === 0x6e) {
          if (
            !nullable ||
            s.charCodeAt(p + 1) !== 0x75 ||
            s.charCodeAt(p + 2) !== 0x6c ||
            s.charCodeAt(p + 3) !== 0x6c
          )
            break;
          x = Number.NaN;
          p += 4;
        } else {
          // At the text's end the number may go on in the next chunk: the careful path reads it.
          const end = numberEnd(s, p);
          if (end < 0 || end >= s.length) break;
          x = Number(s.slice(p, end));
          p = end;
        }
        if (n === out.length) out = grow(out);
        out[n++] = x;
        c = s.charCodeAt(p);
        while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++p);
        if (c === 0x2c) {
          p++;
          continue;
        }
        if (c === 0x5d) {
          this.p = p + 1;
          return trim(out, n);
        }
        // Not a separator: the careful path reports it (after the sample just read).
        this.p = p;
        this.fail(`expected ',' or ']' after a sample, found ${this.found()}`, n - 1);
      }
      this.p = p;
      this.space();
      if (this.s.length - this.p < LOOKAHEAD) this.ensure(LOOKAHEAD);
      const c = this.s.charCodeAt(this.p);
      let x: number;
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) x = this.number();
      else if (c === 0x6e && nullable && this.s.startsWith("null", this.p)) {
        this.p += 4;
        x = Number.NaN;
      } else {
        const expected = nullable ? "a number or null" : "a number (Unix seconds)";
        this.fail(
          `expected ${expected}, found ${this.p >= this.s.length ? "the end of the input" : this.token()}`,
          n,
        );
      }
      if (n === out.length) out = grow(out);
      out[n++] = x;
      this.space();
      const d = this.peek();
      this.p++;
      if (d === 0x2c) continue;
      if (d === 0x5d) return trim(out, n);
      this.p--;
      this.fail(`expected ',' or ']' after a sample, found ${this.found()}`, n - 1);
    }
  }

  /**
   * The f64 form's base64 text, its end found with indexOf (across chunks when it spans them), decoded
   * straight into a Float64Array. Text that does not decode is returned as the string it is: the
   * schema then reports what is wrong with it, as it does for input read by JSON.parse.
   */
  private f64(): Float64Array | string {
    this.p++; // "
    const parts: string[] = [];
    for (;;) {
      let q = this.s.indexOf('"', this.p);
      // A quote after an odd run of backslashes is escaped (base64 has no backslash, but JSON may
      // write "/" as "\/"): look further.
      while (q >= 0) {
        let b = q - 1;
        while (b >= this.p && this.s.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = this.s.indexOf('"', q + 1);
      }
      if (q >= 0) {
        parts.push(this.s.slice(this.p, q));
        this.p = q + 1;
        break;
      }
      // The text goes on in the next chunk; a backslash at this chunk's end stays for the next.
      let keep = this.s.length;
      while (keep > this.p && this.s.charCodeAt(keep - 1) === 0x5c) keep--;
      parts.push(this.s.slice(this.p, keep));
      this.p = keep;
      if (!this.ensure(this.s.length - this.p + 1)) this.fail("unterminated string");
    }
    let text = parts.length === 1 ? parts[0]! : parts.join("");
    if (text.includes("\\")) {
      try {
        text = JSON.parse(`"${text}"`) as string;
      } catch {
        this.fail("malformed escape in the f64 text");
      }
    }
    const decoded = decodeF64(text);
    return typeof decoded === "string" ? text : decoded;
  }

  /** The token at the cursor, for an error message (at most 20 characters). */
  private token(): string {
    const c = this.peek();
    if (c === 0x22 || c === 0x7b || c === 0x5b) return this.found();
    let e = this.p;
    while (e < this.s.length && e - this.p < 20 && !/[\s,\]}]/.test(this.s[e]!)) e++;
    return JSON.stringify(this.s.slice(this.p, e));
  }

  /**
   * A JSON number, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, checked here for its error message
   * and converted by Number() of the token, which rounds as JSON.parse does.
   */
  private number(): number {
    if (this.s.length - this.p < LOOKAHEAD) this.ensure(LOOKAHEAD);
    const s = this.s;
    const start = this.p;
    const end = s.length;
    let i = start;
    const digits = (): void => {
      while (i < end && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
    };
    const isDigit = () => i < end && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;
    if (s.charCodeAt(i) === 0x2d) i++;
    if (!isDigit()) this.failNumber(i, "expected a digit");
    if (s.charCodeAt(i) === 0x30) i++;
    else digits();
    if (i < end && s.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit()) this.failNumber(i, "expected a digit after the decimal point");
      digits();
    }
    if (i < end && (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45)) {
      i++;
      if (i < end && (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d)) i++;
      if (!isDigit()) this.failNumber(i, "expected a digit in the exponent");
      digits();
    }
    if (i === end && !this.done) {
      // The number reaches the end of what is buffered (longer than LOOKAHEAD): read more, then parse
      // again from its start (the cursor is still there).
      const seen = this.consumed + this.s.length;
      this.ensure(i - start + LOOKAHEAD);
      if (this.consumed + this.s.length > seen) return this.number();
    }
    this.p = i;
    return Number(s.slice(start, i));
  }

  private failNumber(i: number, detail: string): never {
    this.p = i;
    return this.fail(`malformed number: ${detail}`);
  }

  /**
   * A JSON string. Its raw runs (between escapes) are UTF-8 bytes, decoded run by run when they hold a
   * byte of 0x80 or more (invalid sequences become U+FFFD, as in a utf8 read before JSON.parse).
   */
  private string(): string {
    this.p++; // "
    let out = "";
    let from = this.p;
    let high = false;
    const run = () => {
      const raw = this.s.slice(from, this.p);
      return high ? Buffer.from(raw, "latin1").toString("utf8") : raw;
    };
    for (;;) {
      if (this.p >= this.s.length) {
        // Keep the run in the buffer across the chunk boundary (a UTF-8 sequence may straddle it).
        const back = this.p - from;
        this.p = from;
        if (!this.ensure(back + 1)) {
          this.p += back;
          this.fail("unterminated string");
        }
        from = this.p;
        this.p += back;
      }
      const c = this.s.charCodeAt(this.p);
      if (c === 0x22) {
        out += run();
        this.p++;
        return out;
      }
      if (c < 0x20) this.fail("control character in a string (escape it)");
      if (c >= 0x80) high = true;
      if (c === 0x5c) {
        out += run();
        high = false;
        this.p++;
        this.ensure(5);
        const e = this.s.charCodeAt(this.p);
        const simple = ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          this.p++;
        } else if (e === 0x75) {
          const hex = this.s.slice(this.p + 1, this.p + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("malformed \\u escape in a string");
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.p += 5;
        } else {
          this.fail("invalid escape in a string");
        }
        from = this.p;
        continue;
      }
      this.p++;
    }
  }
}

const ESCAPES: Record<number, string> = {
  34: '"',
  92: "\\",
  47: "/",
  98: "\b",
  102: "\f",
  110: "\n",
  114: "\r",
  116: "\t",
};

/**
 * Reads a comparison input's JSON from chunks of bytes, with its sample arrays as Float64Arrays.
 * Throws InputSyntaxError for malformed JSON or a non-numeric sample.
 */
export function readInputJson(next: ChunkSource): unknown {
  return new Reader(next).read();
}

/** readInputJson over bytes already in memory. */
export function readInputBytes(bytes: Uint8Array): unknown {
  let given = false;
  return readInputJson(() => {
    if (given) return null;
    given = true;
    return bytes;
  });
}

/**
 * Reads and validates a comparison input: the fast reader, then the zod schema (which takes the
 * Float64Arrays as they are). Throws InputSyntaxError for malformed JSON; returns zod's result.
 */
export function readComparisonInput(next: ChunkSource) {
  return parseComparisonInput(readInputJson(next));
}
