import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import { facts, mariadb114, virtio } from "./fixtures/build.js";

describe("capabilitiesFor", () => {
  it("takes a printed `fast` as proof of the dynamic ENUM on a MariaDB minor whose version does not tell", () => {
    const base = facts("fast-114", mariadb114, virtio);
    expect(capabilitiesFor(base).runtimeOff).toBe(false);
    expect(capabilitiesFor(base).runtimeOffUnknown).toBe(true);
    const fast = facts("fast-114b", mariadb114, virtio, {
      config: { doublewrite: "fast", doublewriteRaw: "fast" },
    });
    expect(capabilitiesFor(fast).runtimeOff).toBe(true);
    expect(capabilitiesFor(fast).runtimeOffUnknown).toBe(false);
  });
});
