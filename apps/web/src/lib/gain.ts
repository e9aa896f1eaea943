/** Expected-gain wording shared by the table, the instance page and the recommendations page. */
import { pct, pctRange } from "./format.js";

export interface GainLike {
  readonly kind: "throughput" | "efficiency" | "none";
  readonly throughput: { readonly low: number; readonly high: number };
  readonly writeBytesPerTxn: { readonly low: number; readonly high: number } | null;
}

/**
 * Throughput when it may change ("+10% to +40% write TPS"); otherwise the per-transaction saving
 * ("45% fewer write bytes/txn"): production throughput is demand-driven (docs/reference/published-results.md §9).
 */
export function gainText(g: GainLike | null): string {
  if (!g || g.kind === "none") return "none expected";
  if (g.kind === "throughput" && g.throughput.high > 0)
    return `${pctRange(g.throughput.low, g.throughput.high)} write TPS`;
  const b = g.writeBytesPerTxn;
  if (b && b.high > 0) {
    const r = Math.abs(b.high - b.low) < 0.005 ? pct(b.high) : `${pct(b.low)}–${pct(b.high)}`;
    return `${r} fewer write bytes/txn`;
  }
  return "efficiency only";
}
