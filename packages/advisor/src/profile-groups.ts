/**
 * The registration list of every profile indicator group, in the order the profile builds them (and
 * lists the indicators): a group may read the indicators of the groups before it, declared in its
 * meta's `uses`. Adding an indicator: its id in INDICATOR_IDS, its meta and formula in one group module
 * under src/profile/ with its table test.
 */
import { activity } from "./profile/activity.js";
import { device } from "./profile/device.js";
import { doublewriteBatches } from "./profile/doublewrite-batches.js";
import { doublewritePages } from "./profile/doublewrite-pages.js";
import { fileIoWait } from "./profile/file-io-wait.js";
import type { IndicatorGroup } from "./profile/indicator.js";
import { perTransaction } from "./profile/per-transaction.js";
import { rowOperations } from "./profile/row-operations.js";
import { volumeLimits } from "./profile/volume-limits.js";
import { waits } from "./profile/waits.js";
import { windowNotes } from "./profile/window-notes.js";
import { writeBytes } from "./profile/write-bytes.js";

export const indicatorGroups: readonly IndicatorGroup[] = [
  activity,
  doublewritePages,
  doublewriteBatches,
  writeBytes,
  fileIoWait,
  perTransaction,
  device,
  volumeLimits,
  waits,
  rowOperations,
  windowNotes,
];

export const indicatorGroupIds: readonly string[] = indicatorGroups.map((g) => g.meta.id);
