/**
 * The registration list of every safety-gate check, in the order the gate runs them: the provider's
 * check, then the checks every self-managed path shares, then each path's own. Order matters (a check
 * may read the ones before it, the report lists them in this order), so it is by path, not by id.
 * Adding a check: one module under src/gate/ with its table test, one line here.
 */
import { alibaba16kAtomicWrite } from "./gate/alibaba-16k-atomic-write.js";
import { alignment } from "./gate/alignment.js";
import { atomicBoundary } from "./gate/atomic-boundary.js";
import { atomicUnit } from "./gate/atomic-unit.js";
import { aurora } from "./gate/aurora.js";
import { btrfs } from "./gate/btrfs.js";
import type { GateCheckModule } from "./gate/check.js";
import { directIo } from "./gate/direct-io.js";
import { fsAllocation } from "./gate/fs-allocation.js";
import { managedOther } from "./gate/managed-other.js";
import { noSplit } from "./gate/no-split.js";
import { pageSizeKnown } from "./gate/page-size-known.js";
import { rdsOptimizedWrites } from "./gate/rds-optimized-writes.js";
import { zfsRecordsize } from "./gate/zfs-recordsize.js";

export const gateChecks: readonly GateCheckModule[] = [
  rdsOptimizedWrites,
  alibaba16kAtomicWrite,
  aurora,
  managedOther,
  pageSizeKnown,
  zfsRecordsize,
  btrfs,
  atomicUnit,
  atomicBoundary,
  directIo,
  fsAllocation,
  alignment,
  noSplit,
];

export const gateCheckIds: readonly string[] = gateChecks.map((c) => c.meta.id);
