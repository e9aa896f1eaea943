/**
 * The shape of a profile indicator group, like an advisor rule: a declared `meta` (the indicators it
 * builds with their labels, units and formulas, the facts it reads, the earlier indicators it uses, its
 * source) and a pure `build`. src/profile-groups.ts lists the groups in the order the profile builds
 * them; docs/advisor.md's indicator table is generated from the metas.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { FactPath, FactPathNote, InstanceFacts, WindowStat } from "../facts.js";

export type Unit =
  | "ratio"
  | "pages"
  | "pages/s"
  | "ops/s"
  | "bytes/s"
  | "bytes"
  | "bytes/txn"
  | "ops/txn"
  | "fsyncs/txn"
  | "txn/s"
  | "waits/s"
  | "seconds"
  | "seconds/s"
  | "count";

export const INDICATOR_IDS = [
  "transactionRate",
  "pagesFlushedRate",
  "dblwrPagesRate",
  "amplification",
  "avgBatchPages",
  "batchCapacityPages",
  "batchFill",
  "dblwrBytesRate",
  "innodbWriteBytesRate",
  "dblwrShareOfInnodbWriteBytes",
  "dblwrShareOfWriteOps",
  "dblwrShareOfFileIoWait",
  "fsyncsPerTxn",
  "writeBytesPerTxn",
  "writeOpsPerTxn",
  "dblwrBytesPerTxn",
  "deviceWriteIops",
  "deviceWriteBytesRate",
  "deviceUtilisation",
  "deviceWriteLatency",
  "deviceFlushLatency",
  "dblwrShareOfDeviceWriteBytes",
  "dblwrShareOfDeviceWriteIops",
  "iopsLimitShare",
  "bandwidthLimitShare",
  "freePageWaitsRate",
  "logWaitsRate",
  "checkpointAgeShare",
  "dblwrFlushWaitsRate",
  "dblwrMutexWaitRate",
  "pendingFsyncs",
  "writeShareOfRowOps",
] as const;
export type IndicatorId = (typeof INDICATOR_IDS)[number];

export interface Indicator {
  readonly id: IndicatorId;
  readonly label: string;
  readonly unit: Unit;
  /** From window averages; null when an input is missing or the denominator is 0. */
  readonly value: number | null;
  /** From p95 of the inputs where the indicator has a peak meaning (utilisation, limits, checkpoint age). */
  readonly peak: number | null;
  /** The formula, in fact names. */
  readonly basis: string;
  /** Fact paths that were missing (empty when the value is known or the denominator was 0). */
  readonly missing: readonly string[];
  readonly note?: string;
}

export interface IndicatorMeta {
  readonly id: IndicatorId;
  readonly label: string;
  readonly unit: Unit;
  /** The formula: the indicator's `basis` unless the build names the variant it used. */
  readonly formula: string;
  /**
   * What the formula's reader must know beside it (a correction applied on some releases, the versions
   * it needs); printed after the formula in docs/advisor.md, not part of `basis`.
   */
  readonly remark?: string;
}

export interface IndicatorGroupMeta {
  /** kebab-case, equals the file name under src/profile. */
  readonly id: string;
  readonly title: string;
  readonly indicators: readonly IndicatorMeta[];
  /** Fact paths the group reads. */
  readonly needs: readonly FactPath[];
  /** Indicators of earlier groups the group reads. */
  readonly uses: readonly IndicatorId[];
  /** docs/reference section(s) or upstream URL; empty when the formulas are plain counter arithmetic. */
  readonly source: string;
}

/** What a group sees: the facts, the version's capabilities and the indicators it declared in `uses`. */
export interface ProfileInput {
  readonly facts: InstanceFacts;
  readonly caps: Capabilities;
  /** An indicator built by an earlier group; throws unless declared in the meta's `uses`. */
  built(id: IndicatorId): Indicator;
}

export interface GroupOutput {
  readonly indicators: readonly Indicator[];
  /** Data-quality and interpretation notes. */
  readonly notes?: readonly string[];
}

export interface IndicatorGroup {
  readonly meta: IndicatorGroupMeta;
  build(input: ProfileInput): GroupOutput;
}

/** Identity helper that keeps a group's literal types. */
export function defineIndicatorGroup(group: IndicatorGroup): IndicatorGroup {
  return group;
}

/** A windowed input and the fact path it came from. */
export type Input = { readonly path: FactPath; readonly stat: WindowStat | null | undefined };
/** A scalar input and the fact path it came from (with a remark when no fact can be named). */
export type Scalar = { readonly path: FactPath | FactPathNote; readonly value: number | null | undefined };

export const S = (path: FactPath, stat: WindowStat | null | undefined): Input => ({ path, stat });
export const V = (path: FactPath | FactPathNote, value: number | null | undefined): Scalar => ({
  path,
  value,
});

export const avgOf = (s: WindowStat | null | undefined) => (s == null ? null : s.avg);
export const p95Of = (s: WindowStat | null | undefined) => (s == null ? null : (s.p95 ?? s.max ?? null));

/** Sums stats that are all present; null if any is missing. */
export function sumAvg(inputs: readonly Input[]): number | null {
  let total = 0;
  for (const i of inputs) {
    const a = avgOf(i.stat);
    if (a === null) return null;
    total += a;
  }
  return total;
}

export function sumOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** a / b, or null when an input is missing, b is 0, or the quotient overflows (subnormal b). */
export function div(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  const q = a / b;
  return Number.isFinite(q) ? q : null;
}

export const clamp01 = (x: number | null) => (x === null ? null : Math.min(1, Math.max(0, x)));

const missingOf = (inputs: readonly (Input | Scalar)[]) =>
  inputs.filter((i) => ("stat" in i ? i.stat == null : i.value == null)).map((i) => i.path);

export interface IndicatorValue {
  readonly inputs: readonly (Input | Scalar)[];
  readonly value: number | null;
  readonly peak?: number | null;
  /** Defaults to the meta's formula. */
  readonly basis?: string;
  readonly note?: string;
}

/**
 * Builds a group's indicators with the meta's label, unit and formula; a null value lists the missing
 * inputs, or notes a zero denominator when none is missing.
 */
export function indicatorsOf(meta: IndicatorGroupMeta) {
  return (id: IndicatorId, v: IndicatorValue): Indicator => {
    const m = meta.indicators.find((i) => i.id === id);
    if (!m) throw new Error(`indicator ${id} is not declared in group ${meta.id}`);
    const missing = v.value === null ? missingOf(v.inputs) : [];
    const zeroDenominator = v.value === null && missing.length === 0;
    const note =
      v.note !== undefined
        ? v.note
        : zeroDenominator
          ? "denominator was 0 in the window: undefined, not 0"
          : undefined;
    // Two literals rather than a conditional spread (V8's slow copy path, for every indicator of every
    // instance); the same keys in the same order.
    const peak = v.peak ?? null;
    const basis = v.basis ?? m.formula;
    return note === undefined
      ? { id, label: m.label, unit: m.unit, value: v.value, peak, basis, missing }
      : { id, label: m.label, unit: m.unit, value: v.value, peak, basis, missing, note };
  };
}
