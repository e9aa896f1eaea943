import { describe, expect, it } from "vitest";
import { parseDoublewriteMode } from "./words.js";

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
