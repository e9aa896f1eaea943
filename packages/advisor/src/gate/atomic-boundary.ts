/**
 * A write that crosses the device's atomic boundary is split (NVMe NABSPF), so no boundary may fall
 * inside an aligned page (docs/reference/atomic-storage.md §8.5).
 */
import { bytes } from "../format.js";
import { defineGateCheck, overwritesInPlace } from "./check.js";

export const atomicBoundary = defineGateCheck({
  meta: {
    id: "atomic-boundary",
    path: "hardware-atomic-write",
    title: "No atomic boundary inside a page",
    appliesWhen:
      "the atomic unit passed on the device's own limits (`storage.atomicWrite`, not a platform guarantee)",
    passesWhen: "`queue/atomic_write_boundary_bytes` is 0 (none) or a multiple of the page size",
    needs: ["storage.atomicWrite.boundaryBytes", "config.pageSizeBytes"],
    source: "docs/reference/atomic-storage.md §8.5",
  },
  applies: (input) =>
    overwritesInPlace(input) &&
    !input.facts.storage?.tornWriteProtection &&
    input.facts.storage?.atomicWrite?.attributesPresent === true &&
    input.page !== null &&
    input.prior.find((c) => c.id === "atomic-unit")?.status === "pass",
  evaluate({ facts, page }) {
    const b = facts.storage?.atomicWrite?.boundaryBytes;
    const ok = b === 0 || (b != null && page !== null && b >= page && b % page === 0);
    return {
      status: b == null ? "unknown" : ok ? "pass" : "fail",
      detail:
        b == null
          ? "queue/atomic_write_boundary_bytes unknown."
          : ok
            ? `boundary ${b === 0 ? "none" : bytes(b)}: aligned pages never cross it.`
            : `boundary ${bytes(b)} is not a multiple of the page size: some pages cross it.`,
      fix: "read queue/atomic_write_boundary_bytes",
      ...(b != null && !ok ? { blocker: "pages can cross the device's atomic boundary" } : {}),
    };
  },
});
