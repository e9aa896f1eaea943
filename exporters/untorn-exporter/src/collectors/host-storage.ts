// Source: /proc/self/mountinfo, /sys/{dev,class}/block, /sys/block/<disk>/queue, statfs(2), ext4 superblock.
import { metrics } from "@untorn/catalog/metrics";
import type { Collector } from "../collector.js";
import { probeDatadir } from "../host/datadir-storage.js";
import { type HostFs, nodeHostFs } from "../host/host-fs.js";
import { mountOptions } from "../host/mountinfo.js";

/**
 * The storage under the server's datadir: device, whole disks, file system, block and cluster sizes,
 * atomic-write limits (docs/reference/atomic-storage.md §8.5, §8.7) and the device's I/O counters. A datadir this host cannot
 * see yields only datadir_visible 0; a missing sysfs file drops only its own metric.
 */
export function createHostStorage(fs: HostFs): Collector {
  return {
    name: "host.storage",
    description:
      "The datadir's block device, file system, atomic-write limits and I/O counters from /proc and /sys.",
    defaultEnabled: true,
    async collect({ server, host, emit, signal }) {
      const s = await probeDatadir(fs, host, server.datadir, signal);
      emit.set(metrics.storageDatadirVisible, s.visible ? 1 : 0);
      if (!s.visible) return;

      emit.set(metrics.storageInfo, 1, {
        device: s.device?.name ?? "",
        disks: s.disks.join(","),
        fstype: s.mount.fsType,
        mountpoint: s.mountPoint,
        mount_options: mountOptions(s.mount),
        model: s.models.join(","),
      });
      emit.set(metrics.storageFsBlockSize, s.fsBlockSize);
      emit.set(metrics.storageFsClusterSize, s.ext4?.clusterSize);

      const q = s.queue;
      if (q) {
        emit.set(metrics.storageLogicalBlockSize, q.logicalBlockSize);
        emit.set(metrics.storagePhysicalBlockSize, q.physicalBlockSize);
        // Absent attributes (kernel < 6.11) mean "unknown", so no limit series at all, not zeros.
        emit.set(metrics.storageAtomicWriteSupported, q.atomic ? 1 : 0);
        if (q.atomic) {
          emit.set(metrics.storageAtomicWriteUnitMin, q.atomic.unitMin);
          emit.set(metrics.storageAtomicWriteUnitMax, q.atomic.unitMax);
          emit.set(metrics.storageAtomicWriteMax, q.atomic.max);
          emit.set(metrics.storageAtomicWriteBoundary, q.atomic.boundary);
        }
        emit.set(metrics.storageMaxIoBytes, q.maxIoBytes);
        emit.set(metrics.storageWriteCache, q.writeCacheVolatile);
        emit.set(metrics.storageRotational, q.rotational);
      }

      emit.set(metrics.storagePartitionStart, s.partitionStartBytes);

      const st = s.stat;
      if (st) {
        emit.set(metrics.storageReads, st.readsCompleted);
        emit.set(metrics.storageWrites, st.writesCompleted);
        emit.set(metrics.storageReadBytes, st.readBytes);
        emit.set(metrics.storageWrittenBytes, st.writtenBytes);
        emit.set(metrics.storageReadSeconds, st.readSeconds);
        emit.set(metrics.storageWriteSeconds, st.writeSeconds);
        emit.set(metrics.storageIoSeconds, st.ioSeconds);
        emit.set(metrics.storageIoInProgress, st.inFlight);
        emit.set(metrics.storageFlushes, st.flushesCompleted);
        emit.set(metrics.storageFlushSeconds, st.flushSeconds);
      }
    },
  };
}

export const hostStorage: Collector = createHostStorage(nodeHostFs);
