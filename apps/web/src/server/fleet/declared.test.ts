import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDeclaredFile } from "./declared.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-declared-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

describe("readDeclaredFile", () => {
  it("reads declarations by instance label", () => {
    const p = file("ok.json", JSON.stringify({ instances: { db1: { cluster: "c", role: "replica" } } }));
    const d = readDeclaredFile(p);
    expect(d.problem).toBeNull();
    expect(d.instances?.get("db1")).toEqual({ cluster: "c", role: "replica" });
  });

  it.each([
    ["missing", null, /missing\.json: file not found/],
    ["not JSON", "{ instances:", /not JSON/],
    [
      "a field out of its domain",
      JSON.stringify({ instances: { db1: { role: "boss" } } }),
      /instances\.db1\.role/,
    ],
    ["an unknown key", JSON.stringify({ instances: {}, extra: 1 }), /extra|unrecognized/i],
  ])("names the file and the problem: %s", (_name, text, message) => {
    const p = text === null ? path.join(dir, "missing.json") : file("bad.json", text);
    const d = readDeclaredFile(p);
    expect(d.instances).toBeNull();
    expect(d.problem).toMatch(message);
    expect(d.problem).toContain(p);
  });
});
