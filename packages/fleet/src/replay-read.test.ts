import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeReplay,
  decodeReplayApi,
  encodeReplay,
  ReplayApi,
  type ReplayBytes,
  ReplayFormatError,
  type ReplayReadProgress,
  readReplayApi,
} from "./replay.js";
import { fakeReplay } from "./testing/fake-api.js";
import { FIXTURE_FLEET } from "./testing/fixtures.js";

const AT = 1_790_000_000;
/** `bytes` as a file read stream gives them, `size` bytes a chunk, and whole. */
const fileOf = (bytes: Uint8Array, size = 4096): ReplayBytes => ({
  chunks: async function* () {
    for (let i = 0; i < bytes.length; i += size) {
      await Promise.resolve();
      yield bytes.subarray(i, i + size);
    }
  },
  whole: async () => bytes,
});
const replay = () =>
  fakeReplay(FIXTURE_FLEET, {
    window: "30m",
    times: [AT - 300, AT],
    chart: { start: AT - 600, end: AT, step: 3 },
  });

/** What a decode throws (message and issues), or "accepted". */
const outcome = async (read: () => Promise<unknown> | unknown) => {
  try {
    await read();
    return "accepted";
  } catch (err) {
    expect(err).toBeInstanceOf(ReplayFormatError);
    return { message: (err as Error).message, issues: (err as ReplayFormatError).issues };
  }
};

/** Every answer of `f` from both decoders, for equality. */
async function answers(api: ReplayApi, f: ReturnType<typeof replay>) {
  const out: unknown[] = [];
  for (const e of f.instant)
    for (const a of e.answers) out.push(await api.queryVector(e.query, { time: a.time }));
  for (const e of f.range) out.push(await api.queryRange(e.query, e));
  return out;
}

describe("readReplayApi (the file streamed entry by entry)", () => {
  // 64 bytes a chunk splits keys, strings, escapes and every entry across chunks.
  for (const chunkBytes of [64, 1000, undefined])
    it(`answers as decodeReplayApi does, without reading the file whole (chunks of ${chunkBytes ?? "default"} bytes)`, async () => {
      const f = replay();
      const bytes = encodeReplay(f);
      const seen: ReplayReadProgress[] = [];
      const api = await readReplayApi(fileOf(bytes, chunkBytes ?? 256 * 1024), {
        chunkBytes,
        onProgress: (p) => seen.push(p),
      });
      expect(api.meta).toEqual(f.meta);
      expect(api.decoding).toEqual({ columnarEntries: f.instant.length, wholeEntries: 0 });
      expect(await answers(api, f)).toEqual(await answers(decodeReplayApi(bytes), f));
      // Streamed: every entry was taken as its bytes arrived, and the progress reached the file's end.
      const last = seen.at(-1)!;
      expect(last).toEqual({
        bytesRead: bytes.length,
        entries: f.instant.length + f.range.length,
      });
      if (chunkBytes === 64) expect(seen.length).toBeGreaterThan(bytes.length / 64);
    });

  it("reads plain and indented JSON, and an entry it cannot take chunk by chunk whole", async () => {
    const f = replay();
    const plain = await readReplayApi(fileOf(Buffer.from(JSON.stringify(f, null, 2))), { chunkBytes: 4096 });
    expect(await answers(plain, f)).toEqual(await answers(decodeReplayApi(encodeReplay(f)), f));
    const json = JSON.stringify(f);
    const at = json.indexOf('{"query":') + 1;
    const shadowed = gzipSync(`${json.slice(0, at)}"query":"shadowed",${json.slice(at)}`);
    const api = await readReplayApi(fileOf(shadowed, 64), { chunkBytes: 64 });
    expect(api.decoding).toEqual({ columnarEntries: f.instant.length - 1, wholeEntries: 1 });
    expect(await answers(api, f)).toEqual(await answers(decodeReplayApi(shadowed), f));
  });

  it("reads duplicate entry keys as JSON.parse does (the later member wins)", async () => {
    const f = replay();
    const dup = Buffer.from(`{"range":[1],${JSON.stringify(f).slice(1)}`);
    const api = await readReplayApi(fileOf(dup, 64), { chunkBytes: 64 });
    expect(await answers(api, f)).toEqual(await answers(decodeReplayApi(dup), f));
  });

  it("throws decodeReplayApi's error, message and issues, for every kind of bad file", async () => {
    const f = replay();
    const json = JSON.stringify(f);
    const badSample = structuredClone(f);
    (badSample.instant[5]!.answers[0]!.data[0] as { value: unknown }).value = "lots";
    const badRange = structuredClone(f);
    badRange.range[0]!.end = badRange.range[0]!.start - 1;
    const badHeader = { ...f, extra: true, meta: { ...f.meta, everySeconds: -5 } };
    const gz = gzipSync(json);
    const valueAt = json.lastIndexOf('"value":');
    const cases: Record<string, Uint8Array> = {
      "a bad sample deep in an entry": gzipSync(JSON.stringify(badSample)),
      "an invalid range entry": gzipSync(JSON.stringify(badRange)),
      "an invalid header": gzipSync(JSON.stringify(badHeader)),
      "entries that are not an array": gzipSync(JSON.stringify({ ...f, range: {} })),
      "an entry that is not an object": gzipSync(JSON.stringify({ ...f, instant: [1, ...f.instant] })),
      "a syntax error deep in an entry": gzipSync(
        `${json.slice(0, valueAt)}"value":01${json.slice(valueAt + 8)}`,
      ),
      "a truncated gzip stream": gz.subarray(0, Math.floor(gz.length * 0.6)),
      "a gzip stream of JSON that ends mid-entry": gzipSync(json.slice(0, Math.floor(json.length * 0.6))),
      "plain JSON that ends mid-entry": Buffer.from(json.slice(0, Math.floor(json.length * 0.6))),
      "JSON that ends inside a string": Buffer.from(json.slice(0, json.indexOf('"query":"') + 12)),
      "text after the document": Buffer.from(`${json} {}`),
      "not gzip, not JSON": Buffer.from([0x1f, 0x8b, 1, 2, 3]),
      "not an object": Buffer.from("[]"),
      "another format": Buffer.from('{"format":"other"}'),
      "an empty file": Buffer.alloc(0),
      "a __proto__ member": Buffer.from(json.replace('"answers":[{', '"answers":[{"__proto__":{"time":1},')),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const expected = await outcome(() => decodeReplayApi(bytes));
      expect(expected, name).not.toBe("accepted");
      expect(await outcome(() => readReplayApi(fileOf(bytes, 64), { chunkBytes: 64 })), name).toEqual(
        expected,
      );
      // decodeReplayApi's errors are decodeReplay's (replay.test.ts); the messages name the cause.
      expect(await outcome(() => decodeReplay(bytes)), name).toEqual(expected);
    }
    expect(await outcome(() => decodeReplayApi(cases["a truncated gzip stream"]!))).toMatchObject({
      message: expect.stringMatching(/^not a gzip file that decompresses: /),
    });
    expect(await outcome(() => decodeReplayApi(cases["plain JSON that ends mid-entry"]!))).toMatchObject({
      message: expect.stringMatching(/^not JSON: /),
    });
  });

  it("stops reading the file at the first thing it cannot stream, and reads it whole instead", async () => {
    const f = replay();
    const bytes = Buffer.from(JSON.stringify({ ...f, instant: [1, ...f.instant] }));
    let taken = 0;
    let wholeReads = 0;
    const source: ReplayBytes = {
      chunks: async function* () {
        for (let i = 0; i < bytes.length; i += 64) {
          taken++;
          yield bytes.subarray(i, i + 64);
        }
      },
      whole: async () => {
        wholeReads++;
        return bytes;
      },
    };
    await expect(readReplayApi(source)).rejects.toThrow(ReplayFormatError);
    expect(wholeReads).toBe(1);
    expect(taken).toBeLessThan(bytes.length / 64 / 2);
  });
});

describe("readReplayApi on generated and damaged entries (fast-check)", () => {
  /** Every answer a decode gives for `f`'s queries (a miss or a bad query as its message), or its error. */
  async function result(decode: () => Promise<ReplayApi> | ReplayApi, f: ReturnType<typeof replay>) {
    let api: ReplayApi;
    try {
      api = await decode();
    } catch (err) {
      expect(err).toBeInstanceOf(ReplayFormatError);
      return { message: (err as Error).message, issues: (err as ReplayFormatError).issues };
    }
    const out: unknown[] = [api.meta];
    const ask = async (q: () => Promise<unknown>) => {
      try {
        out.push(await q());
      } catch (err) {
        out.push(`threw ${(err as Error).message}`);
      }
    };
    for (const e of f.instant.slice(0, 3))
      for (const a of e.answers) await ask(() => api.queryVector(e.query, { time: a.time }));
    return out;
  }

  // Edits an entry's bytes as a writer other than the recorder might: structure bytes, escapes, spaces,
  // duplicate or escaped `answers` / `data` keys, keys in another order.
  const edit = fc.oneof(
    fc.tuple(fc.nat(), fc.constantFrom(...'{}[]",: \\0-9eE.+aN')).map(([at, c]) => (t: string) => {
      const i = at % t.length;
      return `${t.slice(0, i)}${c}${t.slice(i + 1)}`;
    }),
    fc
      .tuple(
        fc.nat(),
        fc.constantFrom(
          ['"data":', '"d\\u0061ta":'],
          ['"answers":', '"\\u0061nswers":'],
          ['"data":[', '"data":[],"data":['],
          ['"answers":[', '"answers":[],"answers":['],
          ['"labels":', ' "labels" : '],
          [",", " ,\n "],
          ['{"labels":{', '{"value":1,"labels":{'],
        ),
      )
      .map(([nth, [from, to]]) => (t: string) => {
        const parts = t.split(from);
        if (parts.length < 2) return t;
        const k = 1 + (nth % (parts.length - 1));
        return `${parts.slice(0, k).join(from)}${to}${parts.slice(k).join(from)}`;
      }),
  );

  it("answers or throws as JSON.parse and the schema (decodeReplay) do, whatever the chunks", async () => {
    const f = replay();
    f.instant = f.instant.slice(0, 3);
    f.range = f.range.slice(0, 1);
    const json = JSON.stringify(f);
    // The edits fall in the entries (the first instant entry's start to the range entries' end).
    const from = json.indexOf('"instant":[') + 11;
    await fc.assert(
      fc.asyncProperty(
        fc.array(edit, { maxLength: 3 }),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        async (edits, chunk, gz) => {
          const body = edits.reduce((t, e) => e(t), json.slice(from));
          const text = `${json.slice(0, from)}${body}`;
          const bytes = gz ? gzipSync(text) : Buffer.from(text);
          const want = await result(() => new ReplayApi(decodeReplay(bytes)), f);
          const got = await result(() => readReplayApi(fileOf(bytes, chunk), { chunkBytes: chunk }), f);
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 300 },
    );
  });
});
