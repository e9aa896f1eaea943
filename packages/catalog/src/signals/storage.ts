/** Storage signals: the datadir's file system and device facts, and atomic-write capability. */
import { metrics as M } from "../metrics.js";
import { compareBool, onlyWhere, where } from "../promql.js";
import { type DirectSpec, gaugeSignal, HOST, infoSignal, type Needs, type SignalSpec } from "./signal.js";

const ATOMIC: Needs = { hostStorage: true, atomicWriteAttributes: true };

export const directSpecs = {
  storage_info: infoSignal(
    "storageInfo",
    "Datadir storage",
    "storage",
    "The datadir's device, whole disks, file system, mount point and options, model.",
    M.storageInfo.labels,
    HOST,
  ),
  fs_block_size_bytes: gaugeSignal(
    "storageFsBlockSize",
    "FS block size",
    "bytes",
    "storage",
    "File system block size.",
    undefined,
    HOST,
  ),
  fs_cluster_size_bytes: gaugeSignal(
    "storageFsClusterSize",
    "FS cluster size",
    "bytes",
    "storage",
    "ext4 bigalloc cluster size (16 KiB for atomic 16 KiB pages, docs/reference/atomic-storage.md §8.2).",
    undefined,
    HOST,
  ),
  logical_block_size_bytes: gaugeSignal(
    "storageLogicalBlockSize",
    "Logical block size",
    "bytes",
    "storage",
    "Device logical block size.",
    undefined,
    HOST,
  ),
  physical_block_size_bytes: gaugeSignal(
    "storagePhysicalBlockSize",
    "Physical block size",
    "bytes",
    "storage",
    "Device physical block size.",
    undefined,
    HOST,
  ),
  atomic_write_unit_min_bytes: gaugeSignal(
    "storageAtomicWriteUnitMin",
    "Atomic write unit min",
    "bytes",
    "storage",
    "Smallest atomic write the device offers (Linux 6.11+ sysfs); 0 means it offers none.",
    undefined,
    ATOMIC,
  ),
  atomic_write_unit_max_bytes: gaugeSignal(
    "storageAtomicWriteUnitMax",
    "Atomic write unit max",
    "bytes",
    "storage",
    "Largest single atomic write the device offers (Linux 6.11+ sysfs); must be ≥ innodb_page_size (docs/reference/atomic-storage.md §8.5).",
    undefined,
    ATOMIC,
  ),
  atomic_write_max_bytes: gaugeSignal(
    "storageAtomicWriteMax",
    "Atomic write max",
    "bytes",
    "storage",
    "Largest atomic write the device accepts, several units merged (Linux 6.11+ sysfs).",
    undefined,
    ATOMIC,
  ),
  atomic_write_boundary_bytes: gaugeSignal(
    "storageAtomicWriteBoundary",
    "Atomic write boundary",
    "bytes",
    "storage",
    "Boundary an atomic write must not cross (Linux 6.11+ sysfs); 0 means none.",
    undefined,
    ATOMIC,
  ),
  atomic_write_attributes_present: gaugeSignal(
    "storageAtomicWriteSupported",
    "Atomic write attributes",
    "bool",
    "storage",
    "1 when the kernel exposes atomic write limits; 0: unknown, not 'no' (docs/reference/atomic-storage.md §8.5).",
    undefined,
    HOST,
  ),
  write_cache_volatile: gaugeSignal(
    "storageWriteCache",
    "Volatile write cache",
    "bool",
    "storage",
    "1 for a write-back (volatile) device cache that needs flushes.",
    undefined,
    HOST,
  ),
  rotational: gaugeSignal(
    "storageRotational",
    "Rotational",
    "bool",
    "storage",
    "1 for spinning disks.",
    undefined,
    HOST,
  ),
  datadir_visible: gaugeSignal(
    "storageDatadirVisible",
    "Datadir visible",
    "bool",
    "storage",
    "1 when the exporter runs beside the server and sees its datadir (host storage facts available).",
  ),
} as const satisfies Record<string, DirectSpec>;

/** Atomic-write capability needs two components and a storage gauge; built by hand. */
const atomicWriteCapable: SignalSpec = {
  title: "Device atomic unit ≥ page size",
  description:
    "1 when the datadir device's atomic write unit is at least innodb_page_size, 0 when it is smaller, absent when the kernel does not say (pre-6.11). Necessary, not sufficient: O_DIRECT, file system allocation and alignment also decide (docs/reference/atomic-storage.md §8.5, §8.7).",
  unit: "bool",
  group: "storage",
  needs: ATOMIC,
  build: (c) =>
    onlyWhere(
      compareBool(c("atomicUnitMax"), ">=", c("pageSize")),
      where(c("atomicAttributesPresent"), "==", 1),
    ),
};

export const compositeSpecs = { atomic_write_capable: atomicWriteCapable } as const satisfies Record<
  string,
  SignalSpec
>;
