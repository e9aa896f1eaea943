import { consoleMetrics } from "@untorn/catalog/console-metrics";
import { describe, expect, it } from "vitest";
import { exposition, formatValue, histogramSamples } from "./exposition.js";

describe("exposition", () => {
  it("writes HELP, TYPE and samples, escaping HELP and label values", () => {
    const text = exposition([
      {
        def: { name: "x_things", type: "gauge", help: 'a \\ b\nc "q"', labels: ["t"] },
        samples: [{ labels: { t: 'say "hi"\\\n' }, value: 2 }, { value: 0.5 }],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP x_things a \\\\ b\\nc "q"',
        "# TYPE x_things gauge",
        'x_things{t="say \\"hi\\"\\\\\\n"} 2',
        "x_things 0.5",
        "",
      ].join("\n"),
    );
  });

  it("formats special values as Prometheus does", () => {
    expect(
      [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, -3].map(formatValue),
    ).toEqual(["NaN", "+Inf", "-Inf", "1e+21", "-3"]);
  });

  it("writes a histogram's cumulative buckets, +Inf, sum and count", () => {
    const text = exposition([
      { def: consoleMetrics.timeToVerdict, samples: histogramSamples([100, 300, 5000], [300, 3600]) },
    ]);
    const name = consoleMetrics.timeToVerdict.name;
    expect(text.split("\n").slice(2)).toEqual([
      `${name}_bucket{le="300"} 2`,
      `${name}_bucket{le="3600"} 2`,
      `${name}_bucket{le="+Inf"} 3`,
      `${name}_sum 5400`,
      `${name}_count 3`,
      "",
    ]);
  });
});
