import { describe, expect, it } from "vitest";
import { metricList } from "./metrics.js";

describe("exporter metric definitions", () => {
  it("has unique names", () => {
    const names = metricList.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(metricList.map((m) => [m.name, m] as const))("%s follows the naming conventions", (name, m) => {
    expect(name).toMatch(/^untorn_[a-z][a-z0-9_]*[a-z0-9]$/);
    if (m.type === "counter") expect(name).toMatch(/_total$/);
    else expect(name).not.toMatch(/_total$/);
    expect(name).not.toMatch(/_(milliseconds|ms|kb|mb|pages_total_total)$/);
    expect(m.help.length).toBeGreaterThan(10);
    for (const label of m.labels) expect(label).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(m.labels).not.toContain("instance");
    expect(m.labels).not.toContain("job");
  });
});
