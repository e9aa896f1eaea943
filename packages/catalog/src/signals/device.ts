/** Block-device signals of the datadir's disks (untorn-exporter host storage, or node_exporter). */
import { binary, ratio } from "../promql.js";
import { HOST, type SignalSpec } from "./signal.js";

export const compositeSpecs = {
  device_write_iops: {
    title: "Device write IOPS",
    description:
      "Writes completed per second by the datadir's block device. Fallback: all whole disks of the host (node_exporter cannot tell which holds the datadir).",
    unit: "ops/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceWrites"),
  },
  device_write_bytes_per_second: {
    title: "Device write bytes/s",
    description: "Bytes written per second by the datadir's block device (fallback: all whole disks).",
    unit: "bytes/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceWrittenBytes"),
  },
  device_utilisation: {
    title: "Device utilisation",
    description:
      "Share of time the datadir's device had I/O in flight (0-1; fallback: the busiest whole disk). Near 1 on a single disk means saturated; devices that serve requests in parallel (NVMe, cloud volumes) can be busy 100% of the time and still have headroom.",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceBusy"),
  },
  device_doublewrite_bytes_share: {
    title: "Doublewrite share of device writes",
    description:
      "Doublewrite pages × page size ÷ bytes the device wrote. How much IOPS that is depends on how the storage meters I/O: a volume that counts each request barely notices a doublewrite batch, one that meters in 16 KiB units pays one I/O per page (docs/reference/iops-metering.md §11).",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => ratio(binary(c("dblwrPages"), "*", c("pageSize")), c("deviceWrittenBytes")),
  },
  device_doublewrite_write_ops_share: {
    title: "Doublewrite share of device write operations",
    description:
      "Doublewrite write requests ÷ write requests the datadir's device completed. A batch is one or two large requests, so this stays small even when the bytes share is near half; on storage that meters each request as one I/O, it plus the flushes doublewrite causes is the IOPS budget it takes (docs/reference/iops-metering.md §11). A request the block layer splits (max_sectors_kb) counts more than once on the device.",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => ratio(c("dblwrWrites"), c("deviceWrites")),
  },
  device_flushes_per_second: {
    title: "Device flushes/s",
    description:
      "Cache flush requests completed per second by the device (Linux 5.5+); fsyncs become flushes one for one (docs/reference/iops-metering.md §11).",
    unit: "ops/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceFlushes"),
  },
  device_flush_latency_seconds: {
    title: "Device flush latency",
    description: "Average time per cache flush request on the device (Linux 5.5+).",
    unit: "seconds",
    group: "device",
    needs: HOST,
    build: (c) => ratio(c("deviceFlushSeconds"), c("deviceFlushes")),
  },
} as const satisfies Record<string, SignalSpec>;
