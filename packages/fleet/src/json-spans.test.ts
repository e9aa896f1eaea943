import { describe, expect, it } from "vitest";
import { type Span, topLevelSpans } from "./json-spans.js";

const bytes = (s: string) => Buffer.from(s, "utf8");
const text = (b: Buffer, [start, end]: Span) => b.toString("utf8", start, end);
const keyOf = (b: Buffer) => (s: Span) => JSON.parse(text(b, s)) as string;

describe("topLevelSpans", () => {
  it("finds each member's value and the split arrays' elements, strings with brackets and escapes included", () => {
    const doc = ` { "a" : 1 , "list":[ {"x":"]}\\"["} ,[1,[2]], "é\\\\" ,null],"b":{"c":[1,2]} , "list2": [] }\n`;
    const b = bytes(doc);
    const spans = topLevelSpans(b, new Set(["list", "list2", "b"]), keyOf(b))!;
    expect(spans.members.map((m) => [text(b, m.key), text(b, m.value)])).toEqual([
      ['"a"', "1"],
      ['"list"', '[ {"x":"]}\\"["} ,[1,[2]], "é\\\\" ,null]'],
      ['"b"', '{"c":[1,2]}'],
      ['"list2"', "[]"],
    ]);
    // Split only where the value is an array.
    expect([...spans.elements.values()].map((xs) => xs.map((s) => text(b, s)))).toEqual([
      ['{"x":"]}\\"["}', "[1,[2]]", '"é\\\\"', "null"],
      [],
    ]);
    for (const m of spans.members) expect(() => JSON.parse(text(b, m.value))).not.toThrow();
  });

  it("returns null where the structure between pieces is not JSON's", () => {
    for (const doc of [
      '{"a":1} x',
      '{"a" 1}',
      '{"a":1 "b":2}',
      "[1]",
      '{"a":[1 2]}',
      '{"a":"open',
      '{"a":1',
      "",
    ]) {
      const b = bytes(doc);
      expect(topLevelSpans(b, new Set(["a"]), keyOf(b)), doc).toBeNull();
    }
  });
});
