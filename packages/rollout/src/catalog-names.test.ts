import { signals } from "@untorn/catalog/signals";
import { describe, expect, it } from "vitest";
import { CHANGE_KINDS_FOR_TEST } from "../test/change-kinds.ts";
import { CATCH_UP_SIGNALS } from "./catch-up.ts";
import { changeSchema } from "./change.ts";
import { defaultMetrics } from "./gates.ts";
import { READ_BACK_SIGNALS } from "./observations.ts";

describe("catalog names", () => {
  it("every read-back field names an existing catalog signal", () => {
    for (const id of Object.values(READ_BACK_SIGNALS)) expect(Object.keys(signals)).toContain(id);
  });
  it("the catch-up judgement's lag and apply rate are catalog signals", () => {
    for (const id of Object.values(CATCH_UP_SIGNALS)) expect(Object.keys(signals)).toContain(id);
  });
  it.each(CHANGE_KINDS_FOR_TEST)("default judged metrics of %j are catalog signals", (change) => {
    for (const m of defaultMetrics(changeSchema.parse(change)))
      expect(Object.keys(signals)).toContain(m.metric);
  });
});
