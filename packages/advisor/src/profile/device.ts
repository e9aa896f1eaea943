/** The datadir's block device: what it wrote, how busy and slow it was, and doublewrite's part of it. */
import { avgOf, clamp01, defineIndicatorGroup, div, indicatorsOf, p95Of, S, V } from "./indicator.js";

const meta = {
  id: "device",
  title: "Device",
  indicators: [
    {
      id: "deviceWriteIops",
      label: "Device write IOPS",
      unit: "ops/s",
      formula: "writes completed/s on the datadir's device",
    },
    {
      id: "deviceWriteBytesRate",
      label: "Device write bandwidth",
      unit: "bytes/s",
      formula: "bytes written/s on the datadir's device",
    },
    {
      id: "deviceUtilisation",
      label: "Device utilisation",
      unit: "ratio",
      formula: "share of time with I/O in flight",
    },
    {
      id: "deviceWriteLatency",
      label: "Device write latency",
      unit: "seconds",
      formula: "write seconds / writes completed",
    },
    {
      id: "deviceFlushLatency",
      label: "Device flush latency",
      unit: "seconds",
      formula: "flush seconds / flushes completed",
    },
    {
      id: "dblwrShareOfDeviceWriteBytes",
      label: "Doublewrite share of device write bytes",
      unit: "ratio",
      formula: "doublewrite bytes / device bytes written",
    },
    {
      id: "dblwrShareOfDeviceWriteIops",
      label: "Doublewrite share of device write IOPS",
      unit: "ratio",
      formula:
        "Innodb_dblwr_writes / device writes completed (each doublewrite write counted as one request)",
    },
  ],
  needs: [
    "workload.device.writeIops",
    "workload.device.writeBytesPerSecond",
    "workload.device.utilisationRatio",
    "workload.device.writeSecondsPerSecond",
    "workload.device.flushSecondsPerSecond",
    "workload.device.flushesPerSecond",
    "workload.rates.dblwrPagesWritten",
    "workload.rates.dblwrWrites",
    "config.pageSizeBytes",
  ],
  uses: ["dblwrBytesRate"],
  source: "https://docs.kernel.org/admin-guide/iostats.html",
} as const;

export const device = defineIndicatorGroup({
  meta,
  build({ facts, built }) {
    const put = indicatorsOf(meta);
    const d = facts.workload?.device;
    const r = facts.workload?.rates;
    const writesIn = S("workload.device.writeIops", d?.writeIops);
    const bytesIn = S("workload.device.writeBytesPerSecond", d?.writeBytesPerSecond);
    const utilIn = S("workload.device.utilisationRatio", d?.utilisationRatio);
    const writeSecondsIn = S("workload.device.writeSecondsPerSecond", d?.writeSecondsPerSecond);
    const flushSecondsIn = S("workload.device.flushSecondsPerSecond", d?.flushSecondsPerSecond);
    const flushesIn = S("workload.device.flushesPerSecond", d?.flushesPerSecond);
    const pagesIn = S("workload.rates.dblwrPagesWritten", r?.dblwrPagesWritten);
    const dblwrWritesIn = S("workload.rates.dblwrWrites", r?.dblwrWrites);
    const pageIn = V("config.pageSizeBytes", facts.config.pageSizeBytes ?? null);
    const writes = avgOf(writesIn.stat);
    const bytes = avgOf(bytesIn.stat);
    return {
      indicators: [
        put("deviceWriteIops", { inputs: [writesIn], value: writes, peak: p95Of(writesIn.stat) }),
        put("deviceWriteBytesRate", { inputs: [bytesIn], value: bytes, peak: p95Of(bytesIn.stat) }),
        put("deviceUtilisation", {
          inputs: [utilIn],
          value: clamp01(avgOf(utilIn.stat)),
          peak: clamp01(p95Of(utilIn.stat)),
        }),
        put("deviceWriteLatency", {
          inputs: [writeSecondsIn, writesIn],
          value: div(avgOf(writeSecondsIn.stat), writes),
        }),
        put("deviceFlushLatency", {
          inputs: [flushSecondsIn, flushesIn],
          value: div(avgOf(flushSecondsIn.stat), avgOf(flushesIn.stat)),
        }),
        put("dblwrShareOfDeviceWriteBytes", {
          inputs: [pagesIn, pageIn, bytesIn],
          value: clamp01(div(built("dblwrBytesRate").value, bytes)),
        }),
        put("dblwrShareOfDeviceWriteIops", {
          inputs: [dblwrWritesIn, writesIn],
          value: clamp01(div(avgOf(dblwrWritesIn.stat), writes)),
        }),
      ],
    };
  },
});
