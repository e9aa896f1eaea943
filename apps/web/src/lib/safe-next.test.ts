import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next.js";

/** Each of these, as Location, sends a browser to another site (or is no path of ours). */
const ATTACKS = [
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r/evil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%0D/evil.example",
  "/%2F/evil.example",
  "/%2f%2fevil.example",
  "%2F%2Fevil.example",
  "/%5Cevil.example",
  "/%5cevil.example",
  "/%252F%252Fevil.example",
  "/%25252F/evil.example",
  "/\u3002evil.example",
  "/\uff0f/evil.example",
  "/\uff3cevil.example",
  "/\u2028/evil.example",
  "/\u00a0/evil.example",
  "/ /evil.example",
  "/\x00/evil.example",
  "/%00/evil.example",
  "/%E0%A4%A",
  "https://evil.example/",
  "http:evil.example",
  "javascript:alert(1)",
  "evil.example",
  "",
  "/".padEnd(2001, "a"),
];

describe("safeNext", () => {
  it.each(ATTACKS.map((a) => [JSON.stringify(a), a]))("refuses %s", (_shown, attack) => {
    expect(safeNext(attack)).toBe("/");
  });

  it("keeps this console's paths with their query", () => {
    for (const p of [
      "/",
      "/rollouts",
      "/instances/db-1%3A3306?tab=findings",
      "/audit?before=120&actor=alice",
    ])
      expect(safeNext(p)).toBe(p);
  });

  it("refuses what is not a string", () => {
    for (const v of [undefined, null, 1, ["/x"], { toString: () => "/x" }]) expect(safeNext(v)).toBe("/");
  });

  it("whatever it returns, a browser resolves on this origin (fast-check)", () => {
    const base = "https://console.example";
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "grapheme", maxLength: 40 }),
          fc.string({ unit: "binary", maxLength: 40 }),
          fc
            .array(
              fc.constantFrom("/", "\\", "\t", "\n", "%", "2", "F", "5", "C", "0", "9", "e", ".", ":", "@"),
              {
                maxLength: 20,
              },
            )
            .map((cs) => cs.join("")),
        ),
        (s) => {
          const out = safeNext(s);
          expect(new URL(out, base).origin).toBe(base);
          expect(out.startsWith("/") && !out.startsWith("//")).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
