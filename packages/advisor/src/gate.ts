/**
 * Safety gate for turning doublewrite off (or to DETECT_ONLY, which cannot repair a torn page either,
 * docs/reference/mysql.md §1.7): is every write of innodb_page_size verified to land atomically?
 *
 * verified   - one complete evidence path passes (provider-managed, ZFS copy-on-write, or hardware
 *              atomic unit + O_DIRECT + file-system allocation + alignment);
 * unsafe     - positive evidence that a page write can tear (atomic unit below the page size, buffered
 *              I/O, misaligned allocation) and no other path passes;
 * unverified - anything else: not enough evidence either way.
 *
 * The checks are modules under src/gate/, run in the order of src/gate-checks.ts.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { GatePath, GateStatus } from "@untorn/vocabulary/words";
import type { InstanceFacts } from "./facts.js";
import { PROVIDER_NAMES } from "./gate/atomic-unit.js";
import { type CheckStatus, type GateCheck, type GateInput, toGateCheck } from "./gate/check.js";
import { gateChecks } from "./gate-checks.js";

export { rdsClassFamily } from "./gate/rds-optimized-writes.js";
export type { CheckStatus, GateCheck, GatePath, GateStatus };

export interface SafetyGate {
  readonly status: GateStatus;
  /** The path that verified, or null. */
  readonly path: GatePath | null;
  readonly summary: string;
  readonly checks: readonly GateCheck[];
  /** What would make the gate verified, in order. Empty when verified. */
  readonly toVerify: readonly string[];
  /** Why it is unsafe. Empty unless unsafe. */
  readonly blockers: readonly string[];
  /** The platform manages doublewrite itself (RDS, Alibaba): never change innodb_doublewrite by hand. */
  readonly providerManaged: boolean;
  /**
   * The verification rests on torn-write protection declared for a demo or a lab only
   * (`storage.tornWriteProtection.demoOnly`), not on real storage: every page and report says so.
   */
  readonly demoOnly: boolean;
}

/** What every summary of a gate verified on a demo-only declaration ends with. */
export const DEMO_ONLY_NOTE =
  "Demo only: the torn-write protection is declared for a demo, not verified on real storage.";

export function evaluateGate(facts: InstanceFacts, caps: Capabilities): SafetyGate {
  const checks: GateCheck[] = [];
  const blockers: string[] = [];
  const input: GateInput = {
    facts,
    caps,
    page: facts.config.pageSizeBytes ?? null,
    fs: facts.storage?.fsType?.toLowerCase() ?? null,
    prior: checks,
  };
  for (const check of gateChecks) {
    if (!check.applies(input)) continue;
    const result = check.evaluate(input);
    checks.push(toGateCheck(check.meta, result));
    if (result.blocker) blockers.push(result.blocker);
  }
  return checks[0]?.path === "provider-managed"
    ? providerGate(checks)
    : selfManagedGate(facts, checks, blockers);
}

/** A provider-managed server is judged by its provider's check alone. */
function providerGate(checks: readonly GateCheck[]): SafetyGate {
  const pass = checks.every((c) => c.status === "pass");
  const failing = checks.filter((c) => c.status !== "pass");
  return {
    status: pass ? "verified" : "unverified",
    path: pass ? "provider-managed" : null,
    summary: pass
      ? `verified: ${checks[0]?.label ?? "provider"} (the provider manages doublewrite).`
      : `unverified: ${failing.map((c) => c.detail).join(" ")}`,
    checks,
    toVerify: pass ? [] : failing.flatMap((c) => (c.fix ? [c.fix] : [])),
    blockers: [],
    providerManaged: true,
    demoOnly: false,
  };
}

function selfManagedGate(
  facts: InstanceFacts,
  checks: readonly GateCheck[],
  blockers: readonly string[],
): SafetyGate {
  const shared = new Set(gateChecks.filter((c) => c.meta.shared).map((c) => c.meta.id));
  const sharedPass = checks.filter((c) => shared.has(c.id)).every((c) => c.status === "pass");
  /** A path verifies when it has checks of its own and each passes or does not block. */
  const passes = (path: GatePath) => {
    const own = checks.filter((c) => c.path === path && !shared.has(c.id));
    return sharedPass && own.length > 0 && own.every((c) => c.status === "pass" || !c.blocking);
  };
  const path: GatePath | null = passes("zfs-copy-on-write")
    ? "zfs-copy-on-write"
    : passes("hardware-atomic-write")
      ? "hardware-atomic-write"
      : null;
  const status: GateStatus = path !== null ? "verified" : blockers.length > 0 ? "unsafe" : "unverified";
  const twp = facts.storage?.tornWriteProtection ?? null;
  const demoOnly = status === "verified" && path === "hardware-atomic-write" && twp?.demoOnly === true;
  const toVerify =
    status === "verified"
      ? []
      : checks.filter((c) => c.blocking && c.status !== "pass" && c.fix).map((c) => `${c.label}: ${c.fix}`);
  const summary =
    status === "verified"
      ? `verified by ${path === "zfs-copy-on-write" ? "ZFS copy-on-write with recordsize = page size" : `${twp ? PROVIDER_NAMES[twp.provider] : "the device's atomic write unit"} + O_DIRECT + aligned allocation`}.${demoOnly ? ` ${DEMO_ONLY_NOTE}` : ""}`
      : status === "unsafe"
        ? `unsafe: ${blockers.join("; ")}.`
        : `unverified: ${unverifiedWhy(checks)}.`;
  return {
    status,
    path,
    summary,
    checks,
    toVerify,
    blockers: status === "unsafe" ? blockers : [],
    providerManaged: false,
    demoOnly,
  };
}

function unverifiedWhy(checks: readonly GateCheck[]): string {
  const open = checks.filter((c) => c.blocking && c.status !== "pass");
  const list = (status: CheckStatus) =>
    open
      .filter((c) => c.status === status)
      .map((c) => c.label.toLowerCase())
      .join(", ");
  const parts = [
    list("unknown") && `not known: ${list("unknown")}`,
    list("not-established") && `not established for this layout: ${list("not-established")}`,
  ].filter(Boolean);
  return parts.length ? parts.join("; ") : "no evidence path applies";
}
