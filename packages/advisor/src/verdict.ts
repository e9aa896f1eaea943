/**
 * Write-bound verdict: is the instance limited by its write path, with the evidence that says so.
 *
 * Each signal is scored 0 (below its "partial" threshold), 0.5 at "partial" rising linearly to 1 at
 * "strong". The score is the weighted mean over the signals that are present; absent signals are not
 * scored as 0, they lower the confidence instead. See docs/advisor.md for the thresholds and why.
 */
import { type Capabilities, compareVersions } from "@untorn/vocabulary/capabilities";
import type { VerdictKind } from "@untorn/vocabulary/words";
import type { InstanceFacts } from "./facts.js";
import { num, pct, seconds } from "./format.js";
import type { IndicatorId, Profile, Unit } from "./profile.js";

export type { VerdictKind };
export type SignalState = "strong" | "partial" | "clear" | "missing" | "not-applicable";

export interface Evidence {
  readonly signal: string;
  readonly label: string;
  readonly indicator: IndicatorId;
  readonly value: number | null;
  /** Which statistic was judged: the window average or the p95 of per-step values. */
  readonly statistic: "avg" | "p95";
  readonly unit: Unit;
  readonly threshold: { readonly partial: number; readonly strong: number };
  readonly state: SignalState;
  /** 0..1 contribution before weighting. */
  readonly score: number;
  readonly weight: number;
  readonly why: string;
  /** What to collect when the signal is missing. */
  readonly howToGet?: string;
}

export interface Verdict {
  readonly verdict: VerdictKind;
  /** 0..1 weighted mean of the present signals. */
  readonly score: number;
  /** 0..1: share of applicable signal weight that was present, discounted for window quality. */
  readonly confidence: number;
  readonly evidence: readonly Evidence[];
  readonly context: readonly string[];
  /**
   * When the verdict is unknown or rests on weak evidence: the missing signals that would settle it,
   * each with how to collect it. Empty when the verdict is settled.
   */
  readonly toSettle: readonly string[];
  readonly summary: string;
}

interface SignalDef {
  readonly signal: string;
  readonly label: string;
  readonly indicator: IndicatorId;
  readonly statistic: "avg" | "p95";
  readonly partial: number;
  readonly strong: number;
  readonly weight: number;
  /** Saturation signals may carry a write-bound verdict on their own. */
  readonly saturation: boolean;
  readonly why: string;
  readonly howToGet: string;
  readonly applicable: (f: InstanceFacts, c: Capabilities) => boolean;
  readonly fmt: (x: number) => string;
}

/** A SignalDef with its thresholds written out once ("partial 70% / strong 90%"), for every `why`. */
interface PreparedSignalDef extends SignalDef {
  readonly thresholdsText: string;
}

const always = () => true;

/**
 * Thresholds and weights; docs/advisor.md explains each. Two lists (spinning disk or not), built once
 * and shared by every instance advised.
 */
export function signalDefs(facts: InstanceFacts): readonly PreparedSignalDef[] {
  return rotational(facts) ? ROTATIONAL_SIGNALS : NON_ROTATIONAL_SIGNALS;
}

/** Signals of a saturated write path: each may carry a write-bound verdict on its own. */
const SATURATION_SIGNAL_DEFS: readonly SignalDef[] = [
  {
    signal: "iops-limit",
    label: "IOPS near the volume limit",
    indicator: "iopsLimitShare",
    statistic: "p95",
    partial: 0.7,
    strong: 0.9,
    weight: 3,
    saturation: true,
    why: "A metered volume queues I/O at its limit; gains from dropping doublewrite appear only when IOPS or bandwidth sit at the limit (docs/reference/published-results.md §9, docs/reference/iops-metering.md §11).",
    howToGet:
      "set storage.limits.iops (provisioned IOPS) and ioUnitBytes, or limits.metered=false for local disks",
    applicable: (f) => f.storage?.limits?.metered !== false,
    fmt: pct,
  },
  {
    signal: "bandwidth-limit",
    label: "Bandwidth near the volume limit",
    indicator: "bandwidthLimitShare",
    statistic: "p95",
    partial: 0.7,
    strong: 0.9,
    weight: 3,
    saturation: true,
    why: "Doublewrite roughly doubles data bytes per transaction, so a MB/s cap costs up to 2x (docs/reference/iops-metering.md §11).",
    howToGet: "set storage.limits.bandwidthBytesPerSecond, or limits.metered=false for local disks",
    applicable: (f) => f.storage?.limits?.metered !== false,
    fmt: pct,
  },
  {
    signal: "free-page-waits",
    label: "Free-page waits",
    indicator: "freePageWaitsRate",
    statistic: "avg",
    partial: 0.01,
    strong: 1,
    weight: 2,
    saturation: true,
    why: "Innodb_buffer_pool_wait_free rises when page cleaners cannot write pages out fast enough: a classic write-bound symptom (docs/reference/status-counters.md §4, docs/reference/published-results.md §9).",
    howToGet: "collect Innodb_buffer_pool_wait_free (untorn_innodb_buffer_pool_wait_free_total)",
    applicable: always,
    fmt: (x) => `${num(x)}/s`,
  },
  {
    signal: "redo-log-waits",
    label: "Redo log waits",
    indicator: "logWaitsRate",
    statistic: "avg",
    partial: 0.01,
    strong: 1,
    weight: 2,
    saturation: true,
    why: "Innodb_log_waits counts transactions that waited for the redo log buffer to be written: the write path is saturated, but at the redo log, not at doublewrite (MySQL manual, Innodb_log_waits).",
    howToGet: "collect Innodb_log_waits (untorn_innodb_log_waits_total)",
    applicable: always,
    fmt: (x) => `${num(x)}/s`,
  },
  {
    signal: "checkpoint-age",
    label: "Checkpoint age near capacity",
    indicator: "checkpointAgeShare",
    statistic: "p95",
    partial: 0.5,
    strong: 0.75,
    weight: 2,
    saturation: true,
    why: "Checkpoint age near the redo capacity forces aggressive flushing; PMM's redo check alarms at 80% of the sync-flush point (docs/reference/published-results.md §9; PMM advisors: https://docs.percona.com/percona-monitoring-and-management/advisors/advisor-details.html).",
    howToGet:
      "collect checkpoint age and max age (MariaDB 10.5+ status, MySQL 8.0.30+ redo LSNs: untorn_innodb_checkpoint_age_bytes)",
    applicable: (_f, c) => c.checkpointAgeStatus,
    fmt: pct,
  },
  {
    signal: "dblwr-flush-waits",
    label: "Threads waiting for a doublewrite batch",
    indicator: "dblwrFlushWaitsRate",
    statistic: "avg",
    partial: 0.1,
    strong: 10,
    weight: 2,
    saturation: true,
    why: "dblwr_flush_wait_events counts threads that waited for a running doublewrite batch: a direct sign doublewrite is the bottleneck (docs/reference/status-counters.md §4).",
    howToGet: "SET GLOBAL innodb_monitor_enable='module_dblwr' (MySQL 8.0.20+; off by default)",
    applicable: (_f, c) => c.innodbMetricsDblwr,
    fmt: (x) => `${num(x)}/s`,
  },
];

/**
 * Signals of queueing at the device or in InnoDB, which add to the score but cannot prove saturation
 * alone; thresholds and weights differ for a spinning disk.
 */
function queueingSignalDefs(rotational: boolean): SignalDef[] {
  return [
    {
      signal: "device-utilisation",
      label: "Device utilisation",
      indicator: "deviceUtilisation",
      statistic: "p95",
      partial: 0.7,
      strong: 0.9,
      weight: rotational ? 1.5 : 1,
      saturation: false,
      why: rotational
        ? "A spinning disk busy >90% of the time is saturated."
        : "Share of time with I/O in flight; flash devices serve requests in parallel, so this signal alone cannot prove saturation (weight 1).",
      howToGet: "run untorn-exporter beside the server (host.storage collector) or node_exporter",
      applicable: always,
      fmt: pct,
    },
    {
      signal: "device-write-latency",
      label: "Device write latency",
      indicator: "deviceWriteLatency",
      statistic: "avg",
      partial: rotational ? 0.015 : 0.002,
      strong: rotational ? 0.04 : 0.01,
      weight: 1.5,
      saturation: false,
      why: rotational
        ? "Heuristic: spinning disks complete writes in a few ms plus seek; averages above 15-40 ms mean queueing."
        : "Heuristic: flash and cloud SSD volumes complete writes in about a millisecond unloaded; averages of several ms mean queueing at the device or the volume's limit.",
      howToGet: "run untorn-exporter beside the server (host.storage collector)",
      applicable: always,
      fmt: seconds,
    },
    {
      signal: "device-flush-latency",
      label: "Device flush (fsync) latency",
      indicator: "deviceFlushLatency",
      statistic: "avg",
      partial: 0.005,
      strong: 0.02,
      weight: 1,
      saturation: false,
      why: "Heuristic: every doublewrite batch ends in flushes (about 10 per batch on MariaDB 10.11, docs/reference/iops-metering.md §11); slow flushes stall page cleaners.",
      howToGet: "Linux 5.5+ device flush counters (untorn_host_storage_flush_seconds_total)",
      applicable: always,
      fmt: seconds,
    },
    {
      signal: "pending-fsyncs",
      label: "Pending fsyncs",
      indicator: "pendingFsyncs",
      statistic: "avg",
      partial: 0.5,
      strong: 2,
      weight: 1,
      saturation: false,
      why: "fsyncs queueing inside InnoDB (Innodb_data_pending_fsyncs, docs/reference/status-counters.md §4, docs/reference/iops-metering.md §11: AWS asks users to watch it).",
      howToGet: "collect Innodb_data_pending_fsyncs",
      applicable: always,
      fmt: num,
    },
  ];
}

/** The list for a spinning disk or not, frozen, each signal with its thresholds written out. */
function signalDefsFor(rotational: boolean): readonly PreparedSignalDef[] {
  const defs: SignalDef[] = [...SATURATION_SIGNAL_DEFS, ...queueingSignalDefs(rotational)];
  return Object.freeze(
    defs.map((d) =>
      Object.freeze({ ...d, thresholdsText: `partial ${d.fmt(d.partial)} / strong ${d.fmt(d.strong)}` }),
    ),
  );
}

const ROTATIONAL_SIGNALS = signalDefsFor(true);
const NON_ROTATIONAL_SIGNALS = signalDefsFor(false);

const rotational = (facts: InstanceFacts) => facts.storage?.rotational === true;

function scoreOf(value: number, partial: number, strong: number): { score: number; state: SignalState } {
  if (value >= strong) return { score: 1, state: "strong" };
  if (value >= partial)
    return { score: 0.5 + (0.5 * (value - partial)) / (strong - partial), state: "partial" };
  return { score: 0, state: "clear" };
}

/** Confidence discount for the window itself (exclude restarts, flag gaps, one short run is no verdict: docs/reference/iops-metering.md §11). */
function windowQuality(facts: InstanceFacts): { factor: number; notes: string[] } {
  const w = facts.workload;
  const notes: string[] = [];
  if (!w) return { factor: 0, notes: ["no workload window"] };
  let factor = 1;
  if (w.windowSeconds < 900) {
    factor *= 0.6;
    notes.push(`window is only ${num(w.windowSeconds / 60)} min: use hours to days, same hours as peak load`);
  } else if (w.windowSeconds < 3600) {
    factor *= 0.85;
    notes.push("window shorter than 1 h");
  }
  if ((w.restarts ?? 0) > 0) {
    factor *= 0.8;
    notes.push(`${w.restarts} restart(s) in the window: warm-up and counter resets distort rates`);
  }
  // A server started inside the window: the same discount as for any gap (its share of steps without
  // samples), said as what it is; its averages are over the observed time (workload.observedSeconds).
  if (w.gapRatio != null && w.gapRatio > 0.05) {
    factor *= 1 - Math.min(0.8, w.gapRatio);
    notes.push(
      w.observedSeconds != null
        ? `the server started inside the window: its averages cover only the last ${num(w.observedSeconds / 60)} of ${num(w.windowSeconds / 60)} min`
        : `${pct(w.gapRatio)} of the window has no samples`,
    );
  }
  return { factor, notes };
}

/**
 * One signal's evidence, built as one literal in the key order `{ ...base, ...overrides }` gave: a
 * spread that overrides keys takes V8's slow path, and this runs for a dozen signals of every instance.
 */
function evidenceItem(
  def: SignalDef,
  unit: Unit,
  statistic: Evidence["statistic"],
  weight: number,
  value: number | null,
  state: SignalState,
  score: number,
  why: string,
): Evidence {
  return {
    signal: def.signal,
    label: def.label,
    indicator: def.indicator,
    statistic,
    unit,
    threshold: { partial: def.partial, strong: def.strong },
    weight,
    howToGet: def.howToGet,
    value,
    state,
    score,
    why,
  };
}

/** The signals that may carry a write-bound verdict on their own (the same in both lists). */
const SATURATION_SIGNALS: ReadonlySet<string> = new Set(
  NON_ROTATIONAL_SIGNALS.filter((d) => d.saturation).map((d) => d.signal),
);

export function judgeWriteBound(facts: InstanceFacts, caps: Capabilities, profile: Profile): Verdict {
  const defs = signalDefs(facts);
  const ind = profile.indicators;
  const evidence: Evidence[] = [];
  const context: string[] = [];

  const devW = ind.deviceWriteIops.value;
  const devR = facts.workload?.device?.readIops?.avg ?? null;
  const readDominated = devW !== null && devR !== null && devW + devR > 0 && devW / (devW + devR) < 0.2;

  for (const def of defs) {
    const unit = ind[def.indicator].unit;
    const i = ind[def.indicator];
    // A signal the version cannot produce is not missing; but data the builder did supply is used.
    if (!def.applicable(facts, caps) && i.value === null) {
      evidence.push(evidenceItem(def, unit, def.statistic, 0, null, "not-applicable", 0, def.why));
      continue;
    }
    const value = def.statistic === "p95" ? (i.peak ?? i.value) : i.value;
    const statistic = def.statistic === "p95" && i.peak === null ? "avg" : def.statistic;
    if (value === null) {
      evidence.push(evidenceItem(def, unit, statistic, def.weight, null, "missing", 0, def.why));
      continue;
    }
    let { score, state } = scoreOf(value, def.partial, def.strong);
    let why = `${def.label} ${def.fmt(value)} (${statistic}) vs ${def.thresholdsText}: ${def.why}`;
    // Device-level signals on a read-dominated device say little about the write path.
    if (
      readDominated &&
      (def.signal === "device-utilisation" || def.signal === "iops-limit") &&
      score > 0.5
    ) {
      score = 0.5;
      state = "partial";
      why += " Capped at partial: reads are over 80% of the device's operations.";
    }
    // Zero redo waits say nothing about the data-page write path (a large log buffer hides redo
    // pressure): the signal counts for write-bound when it fires and is shown, unweighted, when clear.
    const weight = def.signal === "redo-log-waits" && state === "clear" ? 0 : def.weight;
    evidence.push(evidenceItem(def, unit, statistic, weight, value, state, score, why));
  }

  const applicable = evidence.filter((e) => e.state !== "not-applicable");
  const present = applicable.filter((e) => e.state !== "missing");
  const totalWeight = applicable.reduce((s, e) => s + e.weight, 0);
  const presentWeight = present.reduce((s, e) => s + e.weight, 0);
  const score = presentWeight === 0 ? 0 : present.reduce((s, e) => s + e.weight * e.score, 0) / presentWeight;
  const coverage = totalWeight === 0 ? 0 : presentWeight / totalWeight;
  const quality = windowQuality(facts);
  context.push(...quality.notes);

  const strong = present.filter((e) => e.state === "strong");
  const strongSat = strong.filter((e) => SATURATION_SIGNALS.has(e.signal));
  const partialCount = present.filter((e) => e.state === "partial").length;

  // Write activity: an instance that hardly flushes pages is not write-bound, whatever else is busy.
  const flushed = ind.pagesFlushedRate.value;
  const idle = flushed !== null && flushed < 1 && (devW === null || devW < 5);
  if (idle) context.push(`only ${num(flushed ?? 0)} pages/s flushed: no sustained write load`);
  const writeShare = ind.writeShareOfRowOps.value;
  if (writeShare !== null && writeShare < 0.05)
    context.push(`read-mostly: ${pct(writeShare)} of row operations write`);

  let verdict: VerdictKind;
  if (present.length === 0) verdict = idle ? "not-write-bound" : "unknown";
  else if (idle && strongSat.length === 0) verdict = "not-write-bound";
  else if ((score >= 0.5 && strongSat.length >= 1) || strongSat.length >= 2) verdict = "write-bound";
  else if (score >= 0.25 || strong.length >= 1 || partialCount >= 2) verdict = "likely";
  else if (coverage < 0.25) verdict = "unknown";
  else verdict = "not-write-bound";

  verdict = latencyWithoutSaturation(verdict, evidence, context);

  let confidence = coverage * quality.factor;
  // A clear "idle" observation is itself good evidence of not being write-bound.
  if (idle && verdict === "not-write-bound") confidence = Math.max(confidence, 0.6 * quality.factor);
  confidence = Math.round(Math.min(1, Math.max(0, confidence)) * 100) / 100;

  // Redo-bound: the redo log is a bottleneck of its own, and removing doublewrite does not relieve it.
  const redo = present.find((e) => e.signal === "redo-log-waits" && e.state !== "clear");
  if (redo)
    context.push(
      `redo log waits at ${num(redo.value ?? 0)}/s: transactions wait for the redo log buffer, so the redo log is a bottleneck, not doublewrite; removing doublewrite does not relieve it. Raise innodb_log_buffer_size${caps.mysqlLineage && compareVersions(caps.version, { major: 8, minor: 0, patch: 30 }) >= 0 ? " and innodb_redo_log_capacity" : " and the redo log size"} and check redo write latency first.`,
    );

  // Device utilisation alone: on flash it is not saturation (requests are served in parallel).
  const util = present.find((e) => e.signal === "device-utilisation");
  const otherLoad = present.filter((e) => e.signal !== "device-utilisation");
  if (util && util.state !== "clear" && otherLoad.every((e) => e.state === "clear") && !rotational(facts))
    context.push(
      `device utilisation ${pct(util.value ?? 0)} is the only load evidence; on SSD/NVMe utilisation is not saturation (the device serves requests in parallel), so it cannot settle the verdict alone. What would: ${otherLoad.length === 0 ? "any of the signals in toSettle" : "the missing signals in toSettle"}.`,
    );

  const missing = applicable.filter((e) => e.state === "missing").map((e) => e.signal);
  const lead = [...present].sort(
    (a, b) => b.score * b.weight - a.score * a.weight || (a.signal < b.signal ? -1 : 1),
  );
  const top = lead
    .filter((e) => e.score > 0)
    .slice(0, 3)
    .map((e) => `${e.label.toLowerCase()} ${e.state}`);
  const summary =
    `${verdict} (score ${num(score)}, confidence ${pct(confidence)})` +
    (top.length ? `: ${top.join(", ")}` : "") +
    (missing.length ? `; missing: ${missing.join(", ")}` : "");

  const settled = verdict === "write-bound" || (verdict === "not-write-bound" && confidence >= 0.5);
  const toSettle = settled
    ? []
    : applicable
        .filter((e) => e.state === "missing")
        .sort((a, b) => b.weight - a.weight || (a.signal < b.signal ? -1 : 1))
        .map((e) => `${e.label}: ${e.howToGet}`);

  return {
    verdict,
    score: Math.round(score * 1000) / 1000,
    confidence,
    evidence,
    context,
    toSettle,
    summary,
  };
}

/**
 * "Likely" from latency alone is not write-bound: with every saturation signal clear and the device
 * busy under the utilisation's partial threshold (70%), slow writes and flushes come from flush
 * bursts, a device shared with other writers or a rate-limited (demand-driven) load, not from a write
 * path at its limit, and dropping doublewrite would not raise the throughput. A volume cap (IOPS,
 * bandwidth) is a saturation signal of its own: where it is unknown (missing), the verdict is
 * unknown rather than not write-bound, and the note says what would settle it.
 */
function latencyWithoutSaturation(
  verdict: VerdictKind,
  evidence: readonly Evidence[],
  context: string[],
): VerdictKind {
  if (verdict !== "likely") return verdict;
  const present = evidence.filter((e) => e.state !== "missing" && e.state !== "not-applicable");
  const util = present.find((e) => e.signal === "device-utilisation");
  if (util?.state !== "clear") return verdict;
  if (present.some((e) => SATURATION_SIGNALS.has(e.signal) && e.state !== "clear")) return verdict;
  const firing = present.filter((e) => e.state !== "clear").map((e) => e.label.toLowerCase());
  // Read (clear) or not applicable (an unmetered local disk): known either way.
  const capsKnown = ["iops-limit", "bandwidth-limit"].every((id) =>
    evidence.some((e) => e.signal === id && e.state !== "missing"),
  );
  context.push(
    `device utilisation ${pct(util.value ?? 0)} with every saturation signal clear: ${firing.join(", ")} alone ${firing.length === 1 ? "comes" : "come"} from flush bursts, a shared device or a rate-limited load, not a saturated write path${capsKnown ? "" : "; the volume's IOPS and bandwidth limits are unknown, and would settle it"}`,
  );
  return capsKnown ? "not-write-bound" : "unknown";
}
