/**
 * ON vs OFF per thread count: medians and ranges over the repeats, and the change with its noise range.
 * A verdict from one run is not a verdict (docs/reference/iops-metering.md §11: pages flushed per transaction varied 3-10
 * across restarts), so the range is the widest the repeats allow: min OFF ÷ max ON to max OFF ÷ min ON.
 * A change is called up or down only when that range excludes no change and the change is larger than
 * the run-to-run spread of either setting ((max − min) ÷ median): with two repeats a range can exclude
 * no change by chance one time in three.
 */
import {
  type BenchRun,
  type Change,
  type Group,
  type Range,
  SUMMARY_METRICS,
  type SummaryMetric,
  type SummaryRow,
} from "./result.js";

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function range(xs: readonly number[]): Range | null {
  if (xs.length === 0) return null;
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

function group(runs: readonly BenchRun[]): Group | null {
  if (runs.length === 0) return null;
  const metrics = {} as Record<SummaryMetric, Range | null>;
  for (const m of SUMMARY_METRICS) {
    const xs = runs.map((r) => r.metrics[m]).filter((x): x is number => x !== null && Number.isFinite(x));
    // A metric missing from some runs (device counters unreadable) is not summarised from the rest.
    metrics[m] = xs.length === runs.length ? range(xs) : null;
  }
  return { runs: runs.length, metrics };
}

export function change(on: Range | null, off: Range | null, runs: number): Change | null {
  if (!on || !off || on.median <= 0 || on.min <= 0) return null;
  const estimate = off.median / on.median - 1;
  const low = off.min / on.max - 1;
  const high = off.max / on.min - 1;
  const spread = Math.max(
    (on.max - on.min) / on.median,
    off.median > 0 ? (off.max - off.min) / off.median : 0,
  );
  const beyondSpread = Math.abs(Math.log(off.median / on.median)) > Math.log(1 + spread);
  const call =
    runs < 2
      ? "single run"
      : low > 0 && beyondSpread
        ? "up"
        : high < 0 && beyondSpread
          ? "down"
          : "within noise";
  return { estimate, low, high, call };
}

export function summarise(runs: readonly BenchRun[]): SummaryRow[] {
  const threads = [...new Set(runs.map((r) => r.threads))].sort((a, b) => a - b);
  return threads.map((t) => {
    const on = group(runs.filter((r) => r.threads === t && r.doublewrite === "on"));
    const off = group(runs.filter((r) => r.threads === t && r.doublewrite === "off"));
    const changes = {} as Record<SummaryMetric, Change | null>;
    for (const m of SUMMARY_METRICS) {
      changes[m] = change(
        on?.metrics[m] ?? null,
        off?.metrics[m] ?? null,
        Math.min(on?.runs ?? 0, off?.runs ?? 0),
      );
    }
    return { threads: t, on, off, changes };
  });
}
