/**
 * I/O larger than queue/max_sectors_kb is split, so a page must fit (docs/reference/atomic-storage.md §8.7).
 * Not blocking when unknown: every Linux device accepts at least 128 KiB unless configured down.
 */
import { bytes } from "../format.js";
import { defineGateCheck, overwritesInPlace } from "./check.js";

export const noSplit = defineGateCheck({
  meta: {
    id: "no-split",
    path: "hardware-atomic-write",
    title: "Device does not split a page write",
    appliesWhen: "self-managed, a file system that overwrites in place",
    passesWhen: "`queue/max_sectors_kb` x 1024 >= page size (not blocking when unknown)",
    needs: ["storage.maxIoBytes", "config.pageSizeBytes"],
    source: "docs/reference/atomic-storage.md §8.7",
  },
  applies: overwritesInPlace,
  evaluate({ facts, page }) {
    const maxIo = facts.storage?.maxIoBytes ?? null;
    const splits = maxIo !== null && page !== null && maxIo < page;
    return {
      status: maxIo === null || page === null ? "unknown" : maxIo >= page ? "pass" : "fail",
      blocking: maxIo !== null,
      detail:
        maxIo === null
          ? "queue/max_sectors_kb unknown (not blocking: only a setting below the page size splits a page)."
          : page !== null && maxIo >= page
            ? `max I/O ${bytes(maxIo)} >= page size.`
            : `max I/O ${bytes(maxIo)} < page size: every page write is split.`,
      fix: "raise queue/max_sectors_kb to at least the page size",
      ...(splits ? { blocker: "the device splits page writes" } : {}),
    };
  },
});
