/**
 * MariaDB innodb_use_atomic_writes=ON (the default) only acts on Fusion-io, Shannon and ScaleFlux
 * devices; on ordinary NVMe, EBS or other atomic-capable storage it does nothing and doublewrite stays
 * in use (docs/reference/mariadb.md §2.3, docs/reference/atomic-storage.md §8.6, docs/reference/traps.md §10.6). Reported where someone could believe otherwise.
 */
import { z } from "zod";
import { protection } from "../config-state.js";
import { defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";

const id = "mariadb-atomic-writes-ineffective";

/** Device families MariaDB's my_atomic_writes.c detects (docs/reference/mariadb.md §2.3). */
const SUPPORTED = /fusion|iodrive|\bfcta|shannon|\bscta|scaleflux|\bsfdv/i;

const meta = defineMeta({
  id,
  severity: "warning",
  title: "MariaDB innodb_use_atomic_writes does nothing on this device",
  description:
    "innodb_use_atomic_writes=ON only detects Fusion-io, Shannon and ScaleFlux cards; on generic NVMe/EBS/cloud volumes doublewrite is still used and must be turned off explicitly when the gate is verified.",
  docs: docsPath(id),
  needs: {
    facts: ["server.flavor", "config.useAtomicWrites", "storage.model", "storage.device"],
    indicators: [],
  },
  options: z.object({}).strict(),
});

export const mariadbAtomicWritesIneffective = defineRule({
  meta,
  evaluate(facts, _profile, { caps, gate }) {
    if (caps.flavor !== "mariadb" || facts.config.useAtomicWrites !== true) return [];
    const s = facts.storage;
    const ident = [...new Set([s?.model, s?.device, ...(s?.disks ?? [])].filter(Boolean))].join(" ");
    if (!ident || SUPPORTED.test(ident)) return [];
    const prot = protection(facts);
    const atomicCapable =
      gate.status === "verified" || s?.tornWriteProtection != null || (s?.atomicWrite?.unitMaxBytes ?? 0) > 0;
    const offOrRelaxed = prot === "off" || prot === "detect-only";
    if (!atomicCapable && !offOrRelaxed) return [];
    return [
      makeFinding(meta, {
        severity: offOrRelaxed ? "warning" : "notice",
        title: meta.title,
        summary:
          `innodb_use_atomic_writes=ON, but the datadir's device (${ident}) is not a Fusion-io, Shannon or ScaleFlux card, the only devices MariaDB detects. ` +
          (offOrRelaxed
            ? "It does not make innodb_doublewrite=OFF safe: only the safety gate decides that."
            : "MariaDB keeps using the doublewrite buffer here; " +
              (gate.status === "verified"
                ? "the gate is verified, so set innodb_doublewrite=OFF explicitly (atomic-storage-doublewrite-on)."
                : "turning it off needs a verified safety gate and an explicit innodb_doublewrite=OFF.")),
        evidence: [
          { label: "innodb_use_atomic_writes", value: "ON", unit: "text" },
          { label: "Device", value: ident, unit: "text" },
        ],
        actions: [],
        risk: { level: "none", text: "Informational: the variable is read-only and harmless to leave ON." },
        confidence: s?.model ? 0.9 : 0.6,
      }),
    ];
  },
});
