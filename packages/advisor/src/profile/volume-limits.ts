/**
 * How close the device runs to the volume's provisioned limits. Metered operations are
 * max(requests, bytes / ioUnit) when the provider meters in units (docs/reference/iops-metering.md §11).
 */
import {
  avgOf,
  defineIndicatorGroup,
  div,
  indicatorsOf,
  p95Of,
  S,
  sumAvg,
  sumOrNull,
  V,
} from "./indicator.js";

const meta = {
  id: "volume-limits",
  title: "Volume limits",
  indicators: [
    {
      id: "iopsLimitShare",
      label: "Share of the volume's IOPS limit",
      unit: "ratio",
      formula:
        "device write IOPS (read + write against a combined limit), metered in the provider's unit as max(requests, bytes / unit), / the IOPS limit",
    },
    {
      id: "bandwidthLimitShare",
      label: "Share of the volume's bandwidth limit",
      unit: "ratio",
      formula: "(device read + write bytes/s) / bandwidth limit",
    },
  ],
  needs: [
    "workload.device.writeIops",
    "workload.device.readIops",
    "workload.device.writeBytesPerSecond",
    "workload.device.readBytesPerSecond",
    "storage.limits",
  ],
  uses: [],
  source: "docs/reference/iops-metering.md §11",
} as const;

export const volumeLimits = defineIndicatorGroup({
  meta,
  build({ facts }) {
    const put = indicatorsOf(meta);
    const d = facts.workload?.device;
    const limits = facts.storage?.limits;
    const devWIn = S("workload.device.writeIops", d?.writeIops);
    const devRIn = S("workload.device.readIops", d?.readIops);
    const devWBIn = S("workload.device.writeBytesPerSecond", d?.writeBytesPerSecond);
    const devRBIn = S("workload.device.readBytesPerSecond", d?.readBytesPerSecond);
    const unit = limits?.ioUnitBytes ?? null;
    const metered = (ops: number | null, b: number | null) => {
      if (ops === null) return null;
      if (unit === null || unit === 0 || b === null) return ops;
      return Math.max(ops, b / unit);
    };
    const usesWriteLimit = limits?.writeIops != null;
    const limit = usesWriteLimit ? (limits?.writeIops ?? null) : (limits?.iops ?? null);
    const limIn = V(usesWriteLimit ? "storage.limits.writeIops" : "storage.limits.iops", limit);
    const opsAvg = usesWriteLimit
      ? metered(avgOf(devWIn.stat), avgOf(devWBIn.stat))
      : sumOrNull(
          metered(avgOf(devWIn.stat), avgOf(devWBIn.stat)),
          metered(avgOf(devRIn.stat), avgOf(devRBIn.stat)),
        );
    const opsPeak = usesWriteLimit
      ? metered(p95Of(devWIn.stat), p95Of(devWBIn.stat))
      : sumOrNull(
          metered(p95Of(devWIn.stat), p95Of(devWBIn.stat)),
          metered(p95Of(devRIn.stat), p95Of(devRBIn.stat)),
        );
    const notMetered = limits?.metered === false;
    const bw = limits?.bandwidthBytesPerSecond ?? null;
    return {
      indicators: [
        put("iopsLimitShare", {
          basis: `${usesWriteLimit ? "write" : "read + write"} IOPS${unit ? ` metered in ${unit}-byte units` : ""} / limit`,
          inputs: usesWriteLimit ? [devWIn, limIn] : [devWIn, devRIn, limIn],
          value: notMetered ? null : div(opsAvg, limit),
          peak: notMetered ? null : div(opsPeak, limit),
          note: notMetered ? "local device without a provider IOPS limit" : undefined,
        }),
        put("bandwidthLimitShare", {
          inputs: [devWBIn, devRBIn, V("storage.limits.bandwidthBytesPerSecond", bw)],
          value: notMetered ? null : div(sumAvg([devWBIn, devRBIn]), bw),
          peak: notMetered ? null : div(sumOrNull(p95Of(devWBIn.stat), p95Of(devRBIn.stat)), bw),
          note: notMetered ? "local device without a provider bandwidth limit" : undefined,
        }),
      ],
    };
  },
});
