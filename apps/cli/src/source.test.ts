import { describe, expect, it } from "vitest";
import { DEFAULT_WINDOW, ratesLine, type Source, sourceLine } from "./source.js";

const live = { replay: null } as unknown as Source;

describe("ratesLine", () => {
  it("says which tier of recorded series the window statistics came from, and how old tier 2 may be", () => {
    const note =
      "recorded 1h statistics read: as of the untorn.window rules' last evaluation, at most 1m (their evaluation interval) plus the evaluation's lag before the time read";
    expect(ratesLine(live, { used: true, fallbackReason: null, tier: "window", windowNote: note })).toBe(
      `; window statistics from the recording rules (${note})`,
    );
    expect(
      ratesLine(live, {
        used: true,
        fallbackReason: null,
        tier: "rates",
        windowNote: "per-instance rates read: a 30m window (untorn.window records 1h)",
      }),
    ).toMatch(/^; rates from the recording rules \(per-instance rates read: a 30m window/);
    expect(
      ratesLine(live, {
        used: false,
        fallbackReason: "recording rules not requested",
        tier: "raw",
        windowNote: null,
      }),
    ).toMatch(/^; rates recomputed from raw series \(recording rules not requested/);
  });

  it("defaults to the window untorn.window records", () => {
    expect(DEFAULT_WINDOW).toBe("1h");
  });
});

describe("sourceLine", () => {
  it("names a recording's loopback Prometheus for what it was, never its address on the recording machine", () => {
    const recorded = {
      replay: {
        file: "lab/recordings/x.json.gz",
        recordedFrom: "http://127.0.0.1:34111",
        recordedAt: "2026-11-01T00:00:00Z",
      },
      facts: { window: "1h" },
    } as unknown as Source;
    const line = sourceLine(recorded, 1_790_000_000);
    expect(line).toMatch(
      /^RECORDED DATA from lab\/recordings\/x\.json\.gz \(recorded from a Prometheus local to the recording machine at 2026-11-01T00:00:00Z\)/,
    );
    expect(line).not.toMatch(/127\.0\.0\.1/);
  });
});
