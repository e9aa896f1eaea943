import { describe, expect, it } from "vitest";
import { addSaved, MAX_SAVED, readSaved, removeSaved, savedParams } from "./saved-filters.js";

describe("saved filters", () => {
  it("reads what was saved, and nothing from text that does not fit", () => {
    expect(readSaved(null)).toEqual([]);
    expect(readSaved("not json")).toEqual([]);
    expect(readSaved('[{"name":"x"}]')).toEqual([]);
    expect(readSaved('{"name":"x","params":""}')).toEqual([]);
    expect(readSaved('[{"name":"At risk","params":"only=at-risk"}]')).toEqual([
      { name: "At risk", params: "only=at-risk" },
    ]);
  });

  it("keeps only the fleet's valid parameters, canonically, without the page", () => {
    expect(savedParams("?range=6h&page=3&verdict=likely&bogus=1&sort=nope")).toBe("verdict=likely&range=6h");
    expect(savedParams("")).toBe("");
  });

  it("adds newest first, replaces a name, bounds the list, removes by name", () => {
    let l = addSaved([], "a", "only=at-risk");
    l = addSaved(l, "b", "gate=unsafe");
    l = addSaved(l, " a ", "verdict=likely");
    expect(l).toEqual([
      { name: "a", params: "verdict=likely" },
      { name: "b", params: "gate=unsafe" },
    ]);
    expect(addSaved(l, "   ", "x")).toEqual(l);
    expect(removeSaved(l, "a")).toEqual([{ name: "b", params: "gate=unsafe" }]);
    let many = l;
    for (let i = 0; i < 30; i++) many = addSaved(many, `v${i}`, "");
    expect(many).toHaveLength(MAX_SAVED);
    expect(many[0]?.name).toBe("v29");
  });
});
