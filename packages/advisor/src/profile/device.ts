/** The datadir's block device: what it wrote, how busy and slow it was, and doublewrite's part of it. */
import { bytes as formatBytes } from "../format.js";
import { avgOf, clamp01, defineIndicatorGroup, div, indicatorsOf, p95Of, S, V } from "./indicator.js";

/**
 * Below this part of the device's write bytes coming from the instance itself (InnoDB data files and
 * redo log), the device is shared: other instances, their exporters, Prometheus or any other process
 * wrote most of it, so doublewrite's share of the device would read as if doublewrite cost nothing.
 * The instance's own binlog and file-system journal add to its bytes, but far less than its InnoDB
 * data and redo bytes under a write load, so half leaves them room.
 */
export const OWN_DEVICE_SHARE_MIN = 0.5;

/** How the note of a device share withheld on a shared device begins (the fleet row's basis reads it). */
export const SHARED_DEVICE_NOTE_START = "the device is shared:";

/** The note of a device share withheld because the device is shared (null when it is not). */
export function sharedDeviceNote(own: number | null, device: number | null): string | null {
  if (own === null || device === null || device <= 0) return null;
  if (own / device >= OWN_DEVICE_SHARE_MIN) return null;
  return `${SHARED_DEVICE_NOTE_START} InnoDB's data and redo bytes (${formatBytes(own)}/s) are ${Math.round(
    (own / device) * 100,
  )}% of the ${formatBytes(device)}/s it wrote, the rest came from other instances or processes; doublewrite's share of InnoDB's own write bytes stands in`;
}

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
    "workload.rates.osLogWrittenBytes",
    "config.pageSizeBytes",
  ],
  uses: ["dblwrBytesRate", "innodbWriteBytesRate"],
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
    const innodbBytes = built("innodbWriteBytesRate").value;
    const own = innodbBytes === null ? null : innodbBytes + (avgOf(r?.osLogWrittenBytes) ?? 0);
    const shared = sharedDeviceNote(own, bytes);
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
          value: shared ? null : clamp01(div(built("dblwrBytesRate").value, bytes)),
          ...(shared ? { note: shared } : {}),
        }),
        put("dblwrShareOfDeviceWriteIops", {
          inputs: [dblwrWritesIn, writesIn],
          value: shared ? null : clamp01(div(avgOf(dblwrWritesIn.stat), writes)),
          ...(shared ? { note: shared } : {}),
        }),
      ],
    };
  },
});
