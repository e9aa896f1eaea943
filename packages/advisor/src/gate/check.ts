/**
 * The shape of a safety-gate check, like an advisor rule: a declared `meta` (id, evidence path, what it
 * reads, its source) and pure `applies` / `evaluate` functions. src/gate-checks.ts lists them in the
 * order the gate runs them; docs/advisor.md's check table is generated from the metas.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { GatePath } from "@untorn/vocabulary/words";
import type { FactPath, InstanceFacts } from "../facts.js";

/**
 * unknown: a fact is missing (collect it); not-established: the facts are known but docs/reference does not
 * establish that this layout writes pages atomically (change the layout, not the monitoring).
 */
export type CheckStatus = "pass" | "fail" | "unknown" | "not-established" | "not-applicable";

export interface GateCheck {
  readonly id: string;
  readonly path: GatePath;
  readonly label: string;
  readonly status: CheckStatus;
  /** A failing or unknown blocking check keeps its path from verifying. */
  readonly blocking: boolean;
  readonly detail: string;
  /** What to do or collect to make the check pass. */
  readonly fix?: string;
  readonly source: string;
}

export interface GateCheckMeta {
  /** kebab-case, equals the file name under src/gate. */
  readonly id: string;
  /** The evidence path the check belongs to (page-size-known reports itself under the hardware path). */
  readonly path: GatePath;
  /** True for a check every self-managed path needs: it is not one of its path's own checks. */
  readonly shared?: boolean;
  /** The check's label, as the gate reports it. */
  readonly title: string;
  /** When the check runs, for the docs. */
  readonly appliesWhen: string;
  /** What passes, for the docs. */
  readonly passesWhen: string;
  /** Fact paths the check reads. */
  readonly needs: readonly FactPath[];
  /** docs/reference section(s) or upstream URL. */
  readonly source: string;
}

/** What a check sees: the facts, the version's capabilities and the checks run before it. */
export interface GateInput {
  readonly facts: InstanceFacts;
  readonly caps: Capabilities;
  /** innodb_page_size in bytes; null when unknown. */
  readonly page: number | null;
  /** File-system type of the datadir, lower case; null when unknown. */
  readonly fs: string | null;
  /** Checks already evaluated, in registry order. */
  readonly prior: readonly GateCheck[];
}

export interface CheckResult {
  readonly status: CheckStatus;
  /** Defaults to true. */
  readonly blocking?: boolean;
  readonly detail: string;
  readonly fix?: string;
  /** Positive evidence that a page write can tear (makes the gate unsafe when no path passes). */
  readonly blocker?: string;
}

export interface GateCheckModule {
  readonly meta: GateCheckMeta;
  applies(input: GateInput): boolean;
  evaluate(input: GateInput): CheckResult;
}

/** Identity helper that keeps a check's literal types. */
export function defineGateCheck(check: GateCheckModule): GateCheckModule {
  return check;
}

/** The reported check: the meta's identity and source with the result's status and text. */
export function toGateCheck(meta: GateCheckMeta, r: CheckResult): GateCheck {
  return {
    id: meta.id,
    path: meta.path,
    label: meta.title,
    status: r.status,
    blocking: r.blocking ?? true,
    detail: r.detail,
    ...(r.fix !== undefined ? { fix: r.fix } : {}),
    source: meta.source,
  };
}

/** Self-managed: no provider check applies. */
export const selfManaged = ({ facts }: GateInput) => {
  const m = facts.platform?.managed ?? null;
  return m !== "rds" && m !== "alibaba-rds" && m !== "aurora" && m !== "other";
};

/** The hardware path applies to file systems that overwrite in place (not ZFS, not btrfs). */
export const overwritesInPlace = (input: GateInput) =>
  selfManaged(input) && input.fs !== "zfs" && input.fs !== "btrfs";
