import { describe, expect, it } from "vitest";
import { rateWindowSeconds, SCRAPE_INTERVAL_SECONDS } from "./rate-window.js";

describe("rateWindowSeconds", () => {
  it.each([
    // [step, options, window]
    [15, {}, 60],
    [2, {}, 60],
    [45, {}, 90],
    [120, {}, 240],
    [15, { scrapeIntervalSeconds: 60 }, 240],
    [15, { spanSeconds: 30 }, 30],
    [300, { spanSeconds: 3600 }, 600],
    [10, { spanSeconds: 3600, scrapeIntervalSeconds: 1 }, 20],
  ] as const)("step %s s, %o → %s s", (step, opts, want) => {
    expect(rateWindowSeconds(step, opts)).toBe(want);
  });

  it("covers at least 4 scrapes and 2 steps, and never more than the span", () => {
    for (const step of [1, 7, 15, 60, 301]) {
      for (const span of [10, 90, 3600]) {
        const w = rateWindowSeconds(step, { spanSeconds: span });
        expect(w).toBeLessThanOrEqual(span);
        if (w < span) expect(w).toBeGreaterThanOrEqual(Math.max(2 * step, 4 * SCRAPE_INTERVAL_SECONDS));
      }
    }
  });

  it("refuses a step or scrape interval of 0", () => {
    expect(() => rateWindowSeconds(0)).toThrow(/step must be longer than 0/);
    expect(() => rateWindowSeconds(15, { scrapeIntervalSeconds: 0 })).toThrow(/scrape interval/);
  });
});
