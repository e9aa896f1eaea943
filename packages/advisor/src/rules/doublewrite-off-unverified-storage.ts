/**
 * Doublewrite is OFF (or DETECT_ONLY) but the storage is not verified to write a page atomically:
 * a crash can leave a torn page that recovery cannot repair (docs/reference/mysql.md §1.7). pt-variable-advisor and
 * MySQLTuner warn on OFF regardless of storage (https://github.com/major/MySQLTuner-perl, https://docs.percona.com/percona-toolkit/pt-variable-advisor.html); this rule warns only when the gate
 * is not verified, and says what would verify it.
 */
import { z } from "zod";
import { doublewriteActions } from "../actions.js";
import { protection } from "../config-state.js";
import { type Action, defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";

const id = "doublewrite-off-unverified-storage";

const meta = defineMeta({
  id,
  severity: "critical",
  title: "Doublewrite is off on storage not verified to write pages atomically",
  description:
    "innodb_doublewrite is OFF or DETECT_ONLY while the safety gate is unverified or unsafe: a torn page after a crash is unrecoverable.",
  docs: docsPath(id),
  needs: { facts: ["config.doublewrite", "platform.managed", "storage"], indicators: ["dblwrPagesRate"] },
  options: z.object({}).strict(),
});

export const doublewriteOffUnverifiedStorage = defineRule({
  meta,
  evaluate(facts, _profile, { caps, gate }) {
    const prot = protection(facts);
    if (prot !== "off" && prot !== "detect-only") return [];
    if (gate.status === "verified") return [];
    if (facts.platform?.managed === "aurora") return [];
    const mode = facts.config.doublewriteRaw ?? facts.config.doublewrite ?? "";
    const detectOnly = prot === "detect-only";

    let actions: Action[];
    if (facts.platform?.managed === "rds") {
      actions = [
        {
          platform: "aws-rds",
          title: "Restore innodb_doublewrite to the engine default in the DB parameter group",
          steps: [
            "Reset innodb_doublewrite in the instance's DB parameter group to the engine default and reboot in a window.",
            "To run without doublewrite on RDS, use Optimized Writes (managed-service-doublewrite), never a hand-set parameter.",
          ],
          snippets: [
            {
              language: "shell",
              text: "aws rds reset-db-parameter-group --db-parameter-group-name <group> \\\n  --parameters ParameterName=innodb_doublewrite,ApplyMethod=pending-reboot",
            },
          ],
          restart: true,
          changes: [
            {
              variable: "innodb_doublewrite",
              from: mode || null,
              to: "ON",
              via: "parameter-group",
              restart: true,
              removesTornPageProtection: false,
            },
          ],
        },
      ];
    } else if (gate.providerManaged) {
      actions = [
        {
          platform: facts.platform?.managed === "alibaba-rds" ? "alibaba-rds" : "host",
          title: "Ask the provider to restore doublewrite or enable its torn-write feature",
          steps: ["The managed service controls innodb_doublewrite; use its console or support."],
          snippets: [],
          restart: false,
          changes: [],
        },
      ];
    } else {
      actions = doublewriteActions(facts, caps, "ON");
    }

    const gateWhy =
      gate.status === "unsafe" ? gate.blockers.join("; ") : "no complete evidence of atomic page writes";
    return [
      makeFinding(meta, {
        severity: detectOnly ? "error" : "critical",
        title: meta.title,
        summary:
          `innodb_doublewrite=${mode} and the safety gate is ${gate.status} (${gateWhy}). ` +
          (detectOnly
            ? "DETECT_ONLY detects a torn page after a crash but cannot repair it: the server stops and the instance must be restored from backup."
            : "A page torn by a crash or power loss cannot be repaired at recovery: the instance must be restored from backup or rebuilt.") +
          " Turn full doublewrite back on, or verify the storage.",
        evidence: [
          { label: "innodb_doublewrite", value: mode, unit: "text" },
          { label: "Safety gate", value: gate.status, unit: "text" },
          ...gate.checks
            .filter((c) => c.blocking && c.status !== "pass")
            .map((c) => ({ label: c.label, value: `${c.status}: ${c.detail}`, unit: "text" as const })),
        ],
        actions,
        expectedGain: null,
        risk: {
          level: "low",
          text: "Re-enabling restores torn-page repair; write cost returns to the doublewrite level (the profile shows how much).",
        },
        prerequisites: gate.toVerify.map((t) => `To keep it off instead, verify: ${t}`),
        // The setting is read from the server; the uncertainty is the storage, which is the point.
        confidence: facts.config.doublewrite ? 1 : 0.5,
      }),
    ];
  },
});
