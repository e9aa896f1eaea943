import { describe, expect, it } from "vitest";
import {
  DOUBLEWRITE_MODE_LABELS,
  DOUBLEWRITE_MODES,
  parseDoublewriteMode,
  protectsTornPages,
} from "./words.js";

describe("parseDoublewriteMode", () => {
  it.each([
    ["ON", "on"],
    ["OFF", "off"],
    ["1", "on"],
    ["0", "off"],
    ["TRUE", "on"],
    ["FALSE", "off"],
    [" on ", "on"],
    ["DETECT_ONLY", "detect_only"],
    ["DETECT_AND_RECOVER", "detect_and_recover"],
    ["fast", "fast"],
    ["", undefined],
    ["sometimes", undefined],
    [undefined, undefined],
  ])("%s → %s", (raw, mode) => {
    expect(parseDoublewriteMode(raw)).toBe(mode);
  });
});

describe("protectsTornPages", () => {
  it("is false only for the modes that cannot repair a torn page", () => {
    expect(DOUBLEWRITE_MODES.filter((m) => !protectsTornPages(m))).toEqual(["off", "detect_only"]);
  });

  it("labels every mode as the manuals spell it, and each label parses back to its mode", () => {
    for (const m of DOUBLEWRITE_MODES) expect(parseDoublewriteMode(DOUBLEWRITE_MODE_LABELS[m])).toBe(m);
  });
});
