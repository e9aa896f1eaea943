/**
 * Expected-gain model (docs/advisor.md "Expected gain"), calibrated against docs/reference/published-results.md §9, docs/reference/iops-metering.md §11.
 *
 * Throughput: production throughput is demand-driven, so a change only raises it when the resource
 * doublewrite consumes is the binding one. If doublewrite takes a share s of that resource, removing it
 * raises the ceiling by at most s / (1 - s) (the saturated-resource bound). The range is
 *   write-bound:     [0.25 B, B]   likely: [0, 0.5 B]   unknown: [0, B]   not write-bound: [0, 0]
 * with B capped at +100% (RDS "up to 2x", docs/reference/atomic-storage.md §8.1). The low end 0.25 B matches Google's "up to 25%"
 * and MariaDB 2013's ~+30% against a ~2x bound; the high end matches the emulated 16 KiB-metered volume
 * (+57% to +84% at 16-64 threads, docs/reference/iops-metering.md §11).
 *
 * The share s depends on how the binding resource is metered (docs/reference/iops-metering.md §11):
 * - per request (AWS EBS SSD counts up to 256 KiB as one): a ~124-page doublewrite batch is one or two
 *   requests plus its flushes, so s is small; that is the low end, and the measured +12% to +38%
 *   (docs/reference/iops-metering.md §11) the high end (PER_REQUEST_CEILING);
 * - in 16 KiB units or by bandwidth: every doublewrite page costs as much as a data page, s ~ 0.5;
 * - a local device without a provider limit: between the two (requests at the low end, bytes at the high).
 *
 * Efficiency (bytes, operations per transaction) improves whether or not throughput does.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { GainKind } from "@untorn/vocabulary/words";
import { ioModeOf } from "./config-state.js";
import type { InstanceFacts } from "./facts.js";
import { pct, pctRange } from "./format.js";
import type { Profile } from "./profile.js";
import type { Verdict } from "./verdict.js";

export interface GainRange {
  readonly low: number;
  readonly high: number;
}

export type Binding = "iops-per-request" | "iops-16k" | "bandwidth" | "device" | "unknown";

export interface GainEstimate {
  /** Relative change of the achievable write-transaction rate (0.3 = +30%). */
  readonly throughput: GainRange;
  /** Relative reduction of write bytes per transaction (0.45 = 45% fewer bytes). */
  readonly writeBytesPerTxn: GainRange | null;
  /** Relative reduction of write operations (requests) per transaction. */
  readonly writeOpsPerTxn: GainRange | null;
  /** Relative reduction of Innodb_data_fsyncs per transaction (the flushes doublewrite adds). */
  readonly fsyncsPerTxn: GainRange | null;
  /** "throughput" when throughput may change; "efficiency" when only per-transaction costs do. */
  readonly kind: GainKind;
  readonly binding: Binding;
  /** Doublewrite's share of the binding resource, the s of the model. */
  readonly share: number | null;
  readonly basis: string;
  readonly citations: readonly string[];
}

/** Throughput ceiling for freeing share s of a saturated resource, capped at +100% (docs/reference/atomic-storage.md §8.1). */
export function saturatedBound(s: number): number {
  if (s <= 0) return 0;
  if (s >= 0.5) return 1;
  return s / (1 - s);
}

/**
 * Highest throughput gain measured on volumes that meter each request as one I/O: +38% at 4 threads and
 * 1500 IOPS (docs/reference/iops-metering.md §11), rounded up to +40%.
 */
export const PER_REQUEST_CEILING = 0.4;

export const NO_GAIN: GainEstimate = {
  throughput: { low: 0, high: 0 },
  writeBytesPerTxn: null,
  writeOpsPerTxn: null,
  fsyncsPerTxn: null,
  kind: "none",
  binding: "unknown",
  share: null,
  basis: "no change to the write path",
  citations: [],
};

/** Scales the bound B into a range by verdict (see the module comment). */
export function rangeFor(verdict: Verdict["verdict"], b: GainRange): GainRange {
  const r = (x: number) => Math.round(x * 1000) / 1000;
  switch (verdict) {
    case "write-bound":
      return { low: r(0.25 * b.low), high: r(b.high) };
    case "likely":
      return { low: 0, high: r(0.5 * b.high) };
    case "unknown":
      return { low: 0, high: r(b.high) };
    default:
      return { low: 0, high: 0 };
  }
}

/** Which resource binds: the limit closest to saturation, then how the provider meters I/O. */
export function bindingOf(facts: InstanceFacts, profile: Profile): Binding {
  const limits = facts.storage?.limits;
  if (limits?.metered === false) return "device";
  // Classification only, not a safety decision: 16 KiB is the default page size.
  const page = facts.config.pageSizeBytes ?? 16384;
  const iops = profile.indicators.iopsLimitShare;
  const bw = profile.indicators.bandwidthLimitShare;
  const iopsShare = iops.peak ?? iops.value;
  const bwShare = bw.peak ?? bw.value;
  if (bwShare !== null && bwShare > (iopsShare ?? 0)) return "bandwidth";
  const unit = limits?.ioUnitBytes ?? null;
  if (unit !== null && unit > 0) return unit <= page ? "iops-16k" : "iops-per-request";
  return "unknown";
}

/**
 * Extra flush requests doublewrite causes per second. MariaDB 10.11 issued about 10 fsyncs per batch
 * and about half of all data fsyncs at flush_log_at_trx_commit=2 were doublewrite's (docs/reference/iops-metering.md §11);
 * MySQL/Percona 8.0.20+ skip the doublewrite-file fsync with O_DIRECT or O_DIRECT_NO_FSYNC (docs/reference/mysql.md §1.5);
 * before 8.0.20 (system tablespace, Percona's parallel file) only O_DIRECT_NO_FSYNC skips it: Percona
 * documents an fsync of the parallel doublewrite file under O_DIRECT (docs/reference/percona.md §3). Else one per batch.
 */
export function doublewriteFlushes(facts: InstanceFacts, caps: Capabilities, dblwrWrites: number): number {
  if (caps.flavor === "mariadb") {
    const fsyncs = facts.workload?.rates?.dataFsyncs?.avg;
    const byBatch = 10 * dblwrWrites;
    return fsyncs == null ? byBatch : Math.min(byBatch, 0.5 * fsyncs);
  }
  const method = facts.config.flushMethod?.trim().toLowerCase() ?? null;
  if (method === "o_direct_no_fsync") return 0;
  if (caps.doublewriteLocation === "dblwr-files" && ioModeOf(facts) === "direct") return 0;
  return dblwrWrites;
}

interface Shares {
  /** Share of requests as the provider meters them (for the throughput bound). */
  readonly requests: number | null;
  /** Share of plain requests, writes plus flushes, unmetered (for operations per transaction). */
  readonly rawRequests: number | null;
  readonly bytes: number | null;
  readonly requestsBasis: string;
  readonly bytesBasis: string;
}

function sharesOf(facts: InstanceFacts, caps: Capabilities, profile: Profile): Shares {
  const ind = profile.indicators;
  const r = facts.workload?.rates;
  const dblwrWrites = r?.dblwrWrites?.avg ?? null;
  const dblwrBytes = ind.dblwrBytesRate.value;
  const dev = facts.workload?.device;
  // Metered operations: a provider that counts I/Os up to `unit` bytes as one charges a 2 MiB
  // doublewrite batch several operations (EBS SSD: 256 KiB, docs/reference/iops-metering.md §11); max(requests, bytes/unit).
  const unit = facts.storage?.limits?.ioUnitBytes || null;
  const metered = (ops: number, b: number | null) => (unit && b !== null ? Math.max(ops, b / unit) : ops);
  let requests: number | null = null;
  let rawRequests: number | null = null;
  let requestsBasis = "";
  if (dblwrWrites !== null) {
    const extra = doublewriteFlushes(facts, caps, dblwrWrites);
    const mine = metered(dblwrWrites, dblwrBytes) + extra;
    const raw = dblwrWrites + extra;
    const unitNote = unit ? ` in ${unit}-byte metering units` : "";
    if (dev?.writeIops != null) {
      const total =
        metered(dev.writeIops.avg, dev.writeBytesPerSecond?.avg ?? null) + (dev.flushesPerSecond?.avg ?? 0);
      const rawTotal = dev.writeIops.avg + (dev.flushesPerSecond?.avg ?? 0);
      if (total > 0) {
        requests = Math.min(1, mine / total);
        requestsBasis = `(doublewrite writes + the flushes they cause) / (device writes + flushes)${unitNote}`;
      }
      if (rawTotal > 0) rawRequests = Math.min(1, raw / rawTotal);
    } else if (r?.dataWrites != null) {
      const total =
        metered(r.dataWrites.avg, ind.innodbWriteBytesRate.value) +
        (r.logWrites?.avg ?? 0) +
        (r.dataFsyncs?.avg ?? 0);
      const rawTotal = r.dataWrites.avg + (r.logWrites?.avg ?? 0) + (r.dataFsyncs?.avg ?? 0);
      if (total > 0) {
        requests = Math.min(1, mine / total);
        requestsBasis = `(doublewrite writes + the flushes they cause) / (InnoDB data writes + log writes + fsyncs)${unitNote}`;
      }
      if (rawTotal > 0) rawRequests = Math.min(1, raw / rawTotal);
    }
  }
  let bytes = ind.dblwrShareOfDeviceWriteBytes.value;
  let bytesBasis = "doublewrite bytes / device bytes written";
  if (bytes === null) {
    bytes = ind.dblwrShareOfInnodbWriteBytes.value;
    bytesBasis = "doublewrite bytes / Innodb_data_written";
  }
  if (bytes === null && ind.amplification.value !== null) {
    const a = ind.amplification.value;
    bytes = a / (1 + a);
    bytesBasis = "a / (1 + a) from the amplification a";
  }
  return { requests, rawRequests, bytes, requestsBasis, bytesBasis };
}

/**
 * Gain of removing full page copies: to OFF, or to DETECT_ONLY (which still writes one small batch
 * of (space, page, LSN) entries in 8 KiB slots and keeps the per-batch requests, docs/reference/mysql.md §1.3).
 */
export function doublewriteRemovalGain(
  facts: InstanceFacts,
  caps: Capabilities,
  profile: Profile,
  verdict: Verdict,
  to: "off" | "detect_only" = "off",
): GainEstimate {
  const sh = sharesOf(facts, caps, profile);
  const binding = bindingOf(facts, profile);
  const avgBatch = profile.indicators.avgBatchPages.value;
  const page = facts.config.pageSizeBytes ?? null;
  // DETECT_ONLY keeps about one 8 KiB slot per batch instead of the page images.
  const bytesKept = to === "detect_only" && avgBatch && page ? Math.min(1, 8192 / (avgBatch * page)) : 0;
  const bytesShare = sh.bytes === null ? null : sh.bytes * (1 - bytesKept);
  // DETECT_ONLY keeps one write per batch: the request share it frees is 0.
  const reqShare = to === "detect_only" ? 0 : sh.requests;

  let share: number | null;
  let bound: GainRange;
  let how: string;
  switch (binding) {
    case "iops-16k":
    case "bandwidth":
      share = bytesShare;
      bound = { low: saturatedBound(share ?? 0), high: saturatedBound(share ?? 0) };
      how =
        binding === "bandwidth"
          ? `bandwidth-bound: doublewrite is ${share === null ? "an unknown share" : pct(share)} of the bytes (${sh.bytesBasis})`
          : `IOPS metered in page-sized units: every doublewrite page costs one I/O, ${share === null ? "an unknown share" : pct(share)} of the metered I/O (${sh.bytesBasis})`;
      break;
    case "iops-per-request": {
      share = to === "detect_only" ? 0 : reqShare;
      const budget = saturatedBound(share ?? 0);
      // The budget share understates it: each batch and its flushes sit on the page-flush path, and the
      // measured gains on per-request metering ran above it (+12% to +38% at 1500 IOPS, docs/reference/iops-metering.md §11;
      // +21% at 64 threads and 500 IOPS in bench/results/doublewrite-lab.md). The high end is the bytes
      // bound, at most PER_REQUEST_CEILING; DETECT_ONLY keeps every batch, so it keeps the budget bound.
      const flushPath =
        to === "detect_only" || bytesShare === null
          ? budget
          : Math.min(saturatedBound(bytesShare), PER_REQUEST_CEILING);
      bound = { low: budget, high: Math.max(budget, flushPath) };
      how = `IOPS metered per request: a doublewrite batch is one or two large requests plus flushes, ${share === null ? "an unknown share" : pct(share)} of the requests (${sh.requestsBasis || "unknown"}), the low end; the high end is what per-request-metered volumes measured (up to +${Math.round(PER_REQUEST_CEILING * 100)}%, docs/reference/iops-metering.md §11)`;
      break;
    }
    default: {
      // Local device or unknown metering: requests at the low end, bytes at the high end.
      share = bytesShare ?? (to === "detect_only" ? null : reqShare);
      const lo = reqShare ?? bytesShare ?? 0;
      const hi = bytesShare ?? reqShare ?? 0;
      bound = { low: saturatedBound(Math.min(lo, hi)), high: saturatedBound(Math.max(lo, hi)) };
      how = `${binding === "device" ? "local device" : "metering unknown"}: between doublewrite's share of requests (${reqShare === null ? "unknown" : pct(reqShare)}) and of bytes (${bytesShare === null ? "unknown" : pct(bytesShare)})`;
    }
  }
  if (share === null) {
    // Unknown share is not zero: fall back to the prior that a full doublewrite is up to half of the
    // page bytes (amplification ~1, docs/reference/iops-metering.md §11), i.e. anywhere from nothing to the +100% bound.
    bound = { low: 0, high: saturatedBound(0.5) };
    how +=
      "; share unknown, so the range uses the prior s <= 0.5 (amplification ~1, docs/reference/iops-metering.md §11)";
  }
  const throughput = rangeFor(verdict.verdict, bound);

  const devBytes = profile.indicators.dblwrShareOfDeviceWriteBytes.value;
  const innoBytes = profile.indicators.dblwrShareOfInnodbWriteBytes.value;
  // Device bytes include redo and binlog, so the device share is the low end, InnoDB's the high end.
  const writeBytesPerTxn =
    bytesShare === null
      ? null
      : {
          low: round(
            devBytes !== null ? Math.min(bytesShare, devBytes * (1 - bytesKept)) : 0.85 * bytesShare,
          ),
          high: round(Math.max(bytesShare, (innoBytes ?? 0) * (1 - bytesKept))),
        };
  // Operations per transaction count plain requests (what Innodb_data_writes and the device count).
  const opsShare = profile.indicators.dblwrShareOfWriteOps.value;
  const raw = sh.rawRequests;
  const writeOpsPerTxn =
    to === "detect_only" || (raw === null && opsShare === null)
      ? null
      : {
          low: round(Math.min(raw ?? opsShare ?? 0, opsShare ?? raw ?? 0)),
          high: round(Math.max(raw ?? 0, opsShare ?? 0)),
        };

  // Flushes doublewrite adds, as a share of Innodb_data_fsyncs: up to half on MariaDB 10.11 at
  // flush_log_at_trx_commit=2 (88 vs 44/s, docs/reference/iops-metering.md §11); none with O_DIRECT on MySQL (docs/reference/mysql.md §1.5).
  const fsyncs = facts.workload?.rates?.dataFsyncs?.avg ?? null;
  const batches = facts.workload?.rates?.dblwrWrites?.avg ?? null;
  const fsyncShare =
    to === "detect_only" || fsyncs === null || fsyncs <= 0 || batches === null
      ? null
      : Math.min(1, doublewriteFlushes(facts, caps, batches) / fsyncs);
  const fsyncsPerTxn = fsyncShare === null ? null : { low: round(0.5 * fsyncShare), high: round(fsyncShare) };

  const verdictText =
    verdict.verdict === "not-write-bound"
      ? "not write-bound: throughput is demand-driven and will not change; per-transaction costs fall"
      : verdict.verdict === "unknown"
        ? "write-bound status unknown: the range spans no change to the full bound"
        : `${verdict.verdict}: ${pctRange(throughput.low, throughput.high)} throughput`;
  return {
    throughput,
    writeBytesPerTxn,
    writeOpsPerTxn,
    fsyncsPerTxn,
    kind: throughput.high > 0 ? "throughput" : writeBytesPerTxn || writeOpsPerTxn ? "efficiency" : "none",
    binding,
    share: share === null ? null : round(share),
    basis: `${verdictText}; ${how}; bound s/(1-s) capped at +100%`,
    citations: [
      "docs/reference/atomic-storage.md §8.1",
      "docs/reference/published-results.md §9",
      "docs/reference/iops-metering.md §11",
    ],
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The per-transaction savings of a gain, e.g. "40%-50% fewer write bytes and 0%-10% fewer fsyncs per transaction". */
export function efficiencyText(g: GainEstimate): string | null {
  const range = (r: GainRange) => `${pct(r.low)}-${pct(r.high)}`;
  const parts = [
    g.writeBytesPerTxn
      ? `${range(g.writeBytesPerTxn)} fewer write bytes`
      : g.writeOpsPerTxn
        ? `${range(g.writeOpsPerTxn)} fewer write operations`
        : null,
    g.fsyncsPerTxn ? `${range(g.fsyncsPerTxn)} fewer fsyncs` : null,
  ].filter((x): x is string => x !== null);
  return parts.length ? `${parts.join(" and ")} per transaction` : null;
}

/** One sentence for a finding summary, worded by verdict so "no change" never reads as a promise. */
export function gainSentence(g: GainEstimate, verdict: Verdict["verdict"]): string {
  const eff = g.writeBytesPerTxn
    ? `${pct(g.writeBytesPerTxn.low)}-${pct(g.writeBytesPerTxn.high)} fewer write bytes per transaction`
    : g.writeOpsPerTxn
      ? `${pct(g.writeOpsPerTxn.low)}-${pct(g.writeOpsPerTxn.high)} fewer write operations per transaction`
      : null;
  switch (verdict) {
    case "not-write-bound": {
      const all = efficiencyText(g);
      return `no throughput gain (not write-bound: throughput follows demand)${all ? `; efficiency only: ${all}; low priority` : ""}`;
    }
    case "unknown":
      return `up to ${pctRange(0, g.throughput.high).replace(/^0% to /, "")} write throughput if the instance turns out write-bound${eff ? `; ${eff}` : ""}`;
    default:
      return `${pctRange(g.throughput.low, g.throughput.high)} write throughput${eff ? ` and ${eff}` : ""}`;
  }
}

/** Mid-point benefit used for ranking: throughput first, efficiency as a tie-breaker weight 0.1. */
export function benefitOf(g: GainEstimate | null): number {
  if (!g) return 0;
  const mid = (r: GainRange | null) => (r ? (r.low + r.high) / 2 : 0);
  return mid(g.throughput) + 0.1 * Math.max(mid(g.writeBytesPerTxn), mid(g.writeOpsPerTxn));
}
