/**
 * The change a rollout carries, and what it means on one instance: restart or not, the exact steps for
 * its flavor / version / platform, the read-back that proves it took effect, and how to revert it.
 * Version and platform knowledge comes from @untorn/advisor (capabilities, action builders); nothing
 * here compares version strings itself.
 */

import {
  alibabaAtomicWriteAction,
  currentDoublewrite,
  doublewriteActions,
  doublewritePagesAction,
  rdsOptimizedWritesAction,
} from "@untorn/advisor/actions";
import { capabilitiesFor } from "@untorn/advisor/capabilities";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { Action } from "@untorn/advisor/rule";
import { type Capabilities, serverName } from "@untorn/vocabulary/capabilities";
import { DOUBLEWRITE_MODES, parseDoublewriteMode, protectsTornPages } from "@untorn/vocabulary/words";
import { z } from "zod";

/** Labels of `untorn_innodb_config_info` (packages/catalog/src/metrics.ts), keyed by server variable. */
export const CONFIG_INFO_LABELS = {
  innodb_doublewrite: "doublewrite",
  innodb_doublewrite_dir: "doublewrite_dir",
  innodb_flush_method: "flush_method",
  innodb_use_atomic_writes: "use_atomic_writes",
  innodb_data_file_buffering: "data_file_buffering",
  innodb_data_file_write_through: "data_file_write_through",
  innodb_use_fdatasync: "use_fdatasync",
  innodb_page_size: "page_size",
} as const;
export type ObservableVariable = keyof typeof CONFIG_INFO_LABELS | "innodb_doublewrite_pages";
export const OBSERVABLE_VARIABLES = [
  ...(Object.keys(CONFIG_INFO_LABELS) as (keyof typeof CONFIG_INFO_LABELS)[]),
  "innodb_doublewrite_pages",
] as const;

export const ATOMIC_STORAGE_PLATFORMS = ["rds-blue-green", "alibaba-16k", "self-managed-migration"] as const;
export type AtomicStoragePlatform = (typeof ATOMIC_STORAGE_PLATFORMS)[number];

const variableValue = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_./:-]+$/, "letters, digits and _ . / : - only (it is written into SQL and my.cnf)");

export const changeSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("doublewrite-off") }).describe("innodb_doublewrite = OFF."),
    z
      .strictObject({ kind: z.literal("doublewrite-on") })
      .describe(
        "innodb_doublewrite = ON: torn-page protection back (a restart before MySQL 8.0.30 and MariaDB 11.0.6, and from OFF on MySQL).",
      ),
    z
      .strictObject({ kind: z.literal("doublewrite-detect-only") })
      .describe("innodb_doublewrite = DETECT_ONLY (MySQL / Percona 8.0.30+)."),
    z
      .strictObject({ kind: z.literal("doublewrite-pages"), pages: z.number().int().min(1).max(512) })
      .describe("innodb_doublewrite_pages (MySQL / Percona 8.0.20+, read-only, range 0..512)."),
    z
      .strictObject({
        kind: z.literal("flush-method"),
        method: z.enum(["fsync", "O_DSYNC", "littlesync", "nosync", "O_DIRECT", "O_DIRECT_NO_FSYNC"]),
      })
      .describe("innodb_flush_method (read-only: a restart)."),
    z
      .strictObject({
        kind: z.literal("atomic-storage"),
        platform: z.enum(ATOMIC_STORAGE_PLATFORMS),
        note: z.string().max(1000).optional(),
      })
      .describe(
        "Move to atomic-write storage: RDS Blue/Green with Optimized Writes, Alibaba 16K atomic write, or a self-managed migration to a volume with torn-write protection.",
      ),
    z
      .strictObject({
        kind: z.literal("custom-variable"),
        variable: z.enum(OBSERVABLE_VARIABLES),
        value: variableValue,
        dynamic: z.boolean().describe("true: SET GLOBAL works at runtime on every target; false: a restart."),
      })
      .describe(
        "Another variable; only variables the exporter reads back (config info labels, doublewrite pages) so the step can be verified.",
      ),
  ])
  .meta({ id: "RolloutChange", description: "What the rollout changes." });
export type Change = z.infer<typeof changeSchema>;
export type ChangeKind = Change["kind"];

/** How one instance's step is carried out. */
export const STEP_METHODS = [
  "set-global",
  "set-persist-only-restart",
  "option-file-restart",
  "parameter-group-reboot",
  "blue-green-switchover",
  "console-toggle",
  "storage-migration",
] as const;
export type StepMethod = (typeof STEP_METHODS)[number];

export const snippetSchema = z.strictObject({
  language: z.enum(["ini", "sql", "shell"]),
  text: z.string(),
});
export type Snippet = z.infer<typeof snippetSchema>;

/**
 * What the exporter must read back once the step is done. Each field present is checked; absent fields
 * are not. `doublewriteFlat`: the doublewrite page rate (signal doublewrite_pages_per_second) reads 0.
 */
export const expectationSchema = z.strictObject({
  doublewriteMode: z.enum(DOUBLEWRITE_MODES).optional(),
  configInfo: z.record(z.string(), z.string()).optional(),
  doublewritePages: z.number().int().optional(),
  doublewriteFlat: z.boolean().optional(),
  /** The safety gate must read verified after the step (self-managed migration to atomic storage). */
  gateVerified: z.boolean().optional(),
  /** The server restarts (uptime drops): warm-up is excluded from the bake. */
  restart: z.boolean(),
});
export type Expectation = z.infer<typeof expectationSchema>;

export const revertSchema = z.strictObject({
  /** The value stored before the change, as the server printed it; null when it was not known. */
  previousValue: z.string().nullable(),
  method: z.enum(STEP_METHODS),
  restart: z.boolean(),
  steps: z.array(z.string()),
  snippets: z.array(snippetSchema),
  expect: expectationSchema,
});
export type Revert = z.infer<typeof revertSchema>;

export const instanceStepSchema = z.strictObject({
  instance: z.string(),
  server: z.string().describe('e.g. "MySQL 8.0.35".'),
  variable: z.string(),
  current: z.string().nullable(),
  target: z.string(),
  method: z.enum(STEP_METHODS),
  restart: z.boolean(),
  /** A primary is switched over to an already-changed replica first, then changed as a replica. */
  switchover: z.boolean(),
  removesTornPageProtection: z.boolean(),
  title: z.string(),
  steps: z.array(z.string()),
  snippets: z.array(snippetSchema),
  expect: expectationSchema,
  revert: revertSchema,
  sources: z.array(z.string()),
});
export type InstanceStep = z.infer<typeof instanceStepSchema>;

/** Why an instance cannot take the change at all (independent of topology and other rollouts). */
export const INELIGIBLE_REASONS = [
  "gate-not-verified",
  "provider-managed",
  "version-without-setting",
  "platform-mismatch",
  "already-at-target",
  "read-only-server",
  "inherits-setting",
] as const;
export type IneligibleReason = (typeof INELIGIBLE_REASONS)[number];

export interface Ineligible {
  readonly reason: IneligibleReason;
  readonly detail: string;
}

export type StepResult =
  | { readonly ok: true; readonly step: InstanceStep }
  | { readonly ok: false; readonly ineligible: Ineligible };

/** Whether the change takes torn-page protection away (needs a verified safety gate). */
export function removesProtection(change: Change): boolean {
  return (
    change.kind === "doublewrite-off" ||
    change.kind === "doublewrite-detect-only" ||
    (change.kind === "custom-variable" &&
      change.variable === "innodb_doublewrite" &&
      !protectsTornPages(parseDoublewriteMode(change.value) ?? "on"))
  );
}

export function describeChange(change: Change): string {
  switch (change.kind) {
    case "doublewrite-off":
      return "innodb_doublewrite = OFF";
    case "doublewrite-on":
      return "innodb_doublewrite = ON";
    case "doublewrite-detect-only":
      return "innodb_doublewrite = DETECT_ONLY";
    case "doublewrite-pages":
      return `innodb_doublewrite_pages = ${change.pages}`;
    case "flush-method":
      return `innodb_flush_method = ${change.method}`;
    case "atomic-storage":
      return change.platform === "rds-blue-green"
        ? "RDS Optimized Writes through a Blue/Green deployment"
        : change.platform === "alibaba-16k"
          ? "Alibaba ApsaraDB RDS 16K atomic write"
          : "migration to a volume with torn-write protection";
    case "custom-variable":
      return `${change.variable} = ${change.value}`;
  }
}

const RESTART =
  "Restart mysqld (systemctl restart mysql, mysqld or mariadb, per your packaging) and wait until it accepts connections.";
const SWITCHOVER =
  "This is a primary: switch over to a replica that already carries the change (your failover tool: orchestrator, MaxScale, Patroni-like tooling or CHANGE MASTER/CHANGE REPLICATION SOURCE by hand), then apply the step to this server as a replica.";
const SRC_MYSQL_DBLWR = "https://dev.mysql.com/doc/refman/8.0/en/innodb-doublewrite-buffer.html";
const SRC_MYSQL_PERSIST = "https://dev.mysql.com/doc/refman/8.0/en/persisted-system-variables.html";
const SRC_MARIADB_DBLWR = "https://mariadb.com/kb/en/innodb-system-variables/#innodb_doublewrite";
const SRC_RDS_OW = "https://docs.aws.amazon.com/AmazonRDS/latest/UserGuide/rds-optimized-writes.html";
const SRC_RDS_PG =
  "https://docs.aws.amazon.com/AmazonRDS/latest/UserGuide/USER_WorkingWithParamGroups.Modifying.html";
const SRC_ALIBABA = "https://www.alibabacloud.com/help/en/rds/apsaradb-rds-for-mysql/optimized-write";
const SRC_EBS_TWP = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configure-twp.html";
const SRC_MARIADB_FLUSH = "https://mariadb.com/kb/en/innodb-flush-method/";

function fromAction(
  facts: InstanceFacts,
  caps: Capabilities,
  action: Action,
  base: { variable: string; target: string; current: string | null; method: StepMethod },
  expect: Expectation,
  revert: Revert,
  sources: string[],
): InstanceStep {
  const primary = facts.identity.role === "primary";
  const removes = action.changes.some((c) => c.removesTornPageProtection);
  return {
    instance: facts.identity.instance,
    server: serverName(caps),
    variable: base.variable,
    current: base.current,
    target: base.target,
    method: base.method,
    restart: action.restart,
    switchover: primary && (action.restart || base.method === "blue-green-switchover"),
    removesTornPageProtection: removes,
    title: action.title,
    steps: [
      ...(primary && action.restart ? [SWITCHOVER] : []),
      // The advisor's last step points at the rollout guide; inside a rollout it is this plan.
      ...action.steps.filter((s) => !s.startsWith("Roll out replica by replica")),
    ],
    snippets: action.snippets.map((s) => ({ language: s.language, text: s.text })),
    expect,
    revert,
    sources,
  };
}

/** Steps to set a variable on a self-managed server, when the advisor has no builder for it. */
function variableAction(
  caps: Capabilities,
  variable: string,
  value: string,
  current: string | null,
  dynamic: boolean,
): { action: Action; method: StepMethod } {
  const ini: Snippet = { language: "ini", text: `[mysqld]\n${variable} = ${value}` };
  const change = (via: "option-file" | "runtime", restart: boolean) => ({
    variable,
    from: current,
    to: value,
    via,
    restart,
    removesTornPageProtection: false,
  });
  if (dynamic) {
    return {
      method: "set-global",
      action: {
        platform: caps.flavor === "mariadb" ? "mariadb-runtime" : "mysql-runtime",
        title: `SET GLOBAL ${variable} = ${value} (dynamic, no restart)`,
        steps: [
          `Run SET GLOBAL ${variable} = '${value}'; then read it back with SELECT @@GLOBAL.${variable}.`,
          `Add ${variable} = ${value} to the option file so a restart keeps it.`,
        ],
        snippets: [
          { language: "sql", text: `SET GLOBAL ${variable} = '${value}';\nSELECT @@GLOBAL.${variable};` },
          ini,
        ],
        restart: false,
        changes: [change("runtime", false)],
      },
    };
  }
  // MySQL 8.0+: SET PERSIST_ONLY writes mysqld-auto.cnf for read-only variables (MySQL manual,
  // "Persisted System Variables"); MariaDB has no SET PERSIST.
  if (caps.mysqlLineage && caps.version.major >= 8) {
    return {
      method: "set-persist-only-restart",
      action: {
        platform: "mysql-option-file",
        title: `SET PERSIST_ONLY ${variable} = ${value} and restart (read-only variable)`,
        steps: [
          `Run SET PERSIST_ONLY ${variable} = '${value}'; (needs SYSTEM_VARIABLES_ADMIN and PERSIST_RO_VARIABLES_ADMIN); it is written to mysqld-auto.cnf and applied at the next start.`,
          `Or set ${variable} = ${value} under [mysqld] in my.cnf instead: mysqld-auto.cnf is read last and wins over my.cnf.`,
          RESTART,
        ],
        snippets: [
          {
            language: "sql",
            text: `SET PERSIST_ONLY ${variable} = '${value}';\nSELECT * FROM performance_schema.persisted_variables WHERE VARIABLE_NAME = '${variable}';`,
          },
          ini,
        ],
        restart: true,
        changes: [change("option-file", true)],
      },
    };
  }
  return {
    method: "option-file-restart",
    action: {
      platform: caps.flavor === "mariadb" ? "mariadb-option-file" : "mysql-option-file",
      title: `${variable} = ${value} in the option file and restart (read-only variable)`,
      steps: [
        `Set ${variable} = ${value} under [mysqld]${caps.flavor === "mariadb" ? " or [mariadb]" : ""}.`,
        RESTART,
      ],
      snippets: [ini],
      restart: true,
      changes: [change("option-file", true)],
    },
  };
}

/**
 * RDS: a DB parameter group change. Dynamic parameters apply `immediate`; static ones `pending-reboot`,
 * then a reboot, until ParameterApplyStatus reads in-sync (RDS User Guide, "Modifying parameters in a
 * DB parameter group").
 */
function rdsParameterAction(
  variable: string,
  value: string,
  current: string | null,
  dynamic: boolean,
): Action {
  const apply = dynamic ? "immediate" : "pending-reboot";
  return {
    platform: "aws-rds",
    title: `${variable} = ${value} in the DB parameter group${dynamic ? "" : " and reboot"}`,
    steps: [
      `Check the parameter is modifiable in the instance's custom DB parameter group (aws rds describe-db-parameters, IsModifiable = true); default groups cannot be changed.`,
      `Set ${variable} = ${value} with ApplyMethod=${apply}.`,
      ...(dynamic
        ? []
        : [
            "Reboot the instance (a Multi-AZ instance can fail over on reboot; on a primary, schedule a window).",
          ]),
      "Wait until the instance's ParameterApplyStatus reads in-sync (aws rds describe-db-instances).",
    ],
    snippets: [
      {
        language: "shell",
        text: [
          "aws rds modify-db-parameter-group --db-parameter-group-name <group> \\",
          `  --parameters "ParameterName=${variable},ParameterValue=${value},ApplyMethod=${apply}"`,
          ...(dynamic ? [] : ["aws rds reboot-db-instance --db-instance-identifier <instance>"]),
          "aws rds describe-db-instances --db-instance-identifier <instance> \\",
          "  --query 'DBInstances[0].DBParameterGroups[].ParameterApplyStatus'",
        ].join("\n"),
      },
    ],
    restart: !dynamic,
    changes: [
      {
        variable,
        from: current,
        to: value,
        via: "parameter-group",
        restart: !dynamic,
        removesTornPageProtection: false,
      },
    ],
  };
}

function methodOf(action: Action): StepMethod {
  switch (action.platform) {
    case "mysql-runtime":
    case "mariadb-runtime":
      return "set-global";
    case "aws-rds":
      return action.changes.some((c) => c.via === "parameter-group")
        ? "parameter-group-reboot"
        : "blue-green-switchover";
    case "alibaba-rds":
      return "console-toggle";
    default:
      return "option-file-restart";
  }
}

function configInfoExpect(variable: string, value: string): Record<string, string> | undefined {
  const label = (CONFIG_INFO_LABELS as Record<string, string>)[variable];
  return label ? { [label]: value } : undefined;
}

/** The revert of a variable step: the same method back to the stored previous value. */
function variableRevert(
  facts: InstanceFacts,
  caps: Capabilities,
  variable: string,
  previous: string | null,
  dynamic: boolean,
): Revert {
  if (previous === null) {
    return {
      previousValue: null,
      method: dynamic ? "set-global" : "option-file-restart",
      restart: !dynamic,
      steps: [
        `The previous value of ${variable} was not known when the rollout was planned: remove the line the rollout added to the option file (the compiled default applies) and ${dynamic ? "SET GLOBAL it back" : "restart"}.`,
      ],
      snippets: [],
      expect: { restart: !dynamic },
    };
  }
  const rds = facts.platform?.managed === "rds" && variable !== "innodb_doublewrite";
  const { action, method } = rds
    ? {
        action: rdsParameterAction(variable, previous, null, dynamic),
        method: "parameter-group-reboot" as StepMethod,
      }
    : variable === "innodb_doublewrite"
      ? {
          action: doublewriteActions(
            facts,
            caps,
            parseDoublewriteMode(previous) === "detect_only"
              ? "DETECT_ONLY"
              : parseDoublewriteMode(previous) === "off"
                ? "OFF"
                : "ON",
          )[0]!,
          method: "option-file-restart" as StepMethod,
        }
      : variableAction(caps, variable, previous, null, dynamic);
  const m = variable === "innodb_doublewrite" || rds ? methodOf(action) : method;
  const mode = variable === "innodb_doublewrite" ? parseDoublewriteMode(previous) : undefined;
  return {
    previousValue: previous,
    method: m,
    restart: action.restart,
    steps: action.steps.filter((s) => !s.startsWith("Roll out replica by replica")),
    snippets: action.snippets.map((s) => ({ language: s.language, text: s.text })),
    expect: {
      restart: action.restart,
      ...(mode ? { doublewriteMode: mode } : {}),
      ...(variable === "innodb_doublewrite_pages" && /^\d+$/.test(previous)
        ? { doublewritePages: Number(previous) }
        : {}),
      ...(variable !== "innodb_doublewrite" && variable !== "innodb_doublewrite_pages"
        ? { configInfo: configInfoExpect(variable, previous) }
        : {}),
    },
  };
}

function rdsVariableStep(
  facts: InstanceFacts,
  caps: Capabilities,
  variable: string,
  value: string,
  dynamic: boolean,
): StepResult {
  const current =
    variable === "innodb_doublewrite_pages"
      ? facts.config.doublewritePages == null
        ? null
        : String(facts.config.doublewritePages)
      : variable === "innodb_flush_method"
        ? (facts.config.flushMethod ?? null)
        : null;
  const action = rdsParameterAction(variable, value, current, dynamic);
  const label = (CONFIG_INFO_LABELS as Record<string, string>)[variable];
  return {
    ok: true,
    step: fromAction(
      facts,
      caps,
      action,
      { variable, target: value, current, method: "parameter-group-reboot" },
      {
        restart: action.restart,
        ...(variable === "innodb_doublewrite_pages" && /^\d+$/.test(value)
          ? { doublewritePages: Number(value) }
          : {}),
        ...(label ? { configInfo: { [label]: value } } : {}),
      },
      variableRevert(facts, caps, variable, current, dynamic),
      [SRC_RDS_PG],
    ),
  };
}

/** What the facts say a custom variable reads now; null when the facts do not carry it. */
function currentVariable(facts: InstanceFacts, variable: string): string | null {
  if (variable === "innodb_doublewrite") return currentDoublewrite(facts);
  if (variable === "innodb_doublewrite_pages")
    return facts.config.doublewritePages == null ? null : String(facts.config.doublewritePages);
  if (variable === "innodb_flush_method") return facts.config.flushMethod ?? null;
  return null;
}

/** The current value of what the change sets, as the facts show it; null when unknown. */
export function currentValueOf(change: Change, facts: InstanceFacts): string | null {
  switch (change.kind) {
    case "doublewrite-off":
    case "doublewrite-on":
    case "doublewrite-detect-only":
      return currentDoublewrite(facts);
    case "doublewrite-pages":
      return facts.config.doublewritePages == null ? null : String(facts.config.doublewritePages);
    case "flush-method":
      return facts.config.flushMethod ?? null;
    case "custom-variable":
      return currentVariable(facts, change.variable);
    case "atomic-storage":
      return change.platform === "rds-blue-green"
        ? (facts.platform?.rdsOptimizedWrites?.toUpperCase() ?? null)
        : change.platform === "alibaba-16k"
          ? facts.platform?.alibaba16kAtomicWrite == null
            ? null
            : facts.platform.alibaba16kAtomicWrite
              ? "ON"
              : "OFF"
          : (facts.storage?.device ?? null);
  }
}

function ineligible(reason: IneligibleReason, detail: string): StepResult {
  return { ok: false, ineligible: { reason, detail } };
}

const READ_ONLY = ineligible(
  "read-only-server",
  "innodb_read_only=ON: the doublewrite buffer is not used, the change has no effect (MDEV-34455).",
);

/**
 * innodb_doublewrite back to ON. It restores torn-page protection, so no safety gate is asked for. The
 * advisor's builder decides how: MySQL / Percona SET GLOBAL between the enabled modes from 8.0.30 (so
 * from DETECT_ONLY without a restart), the option file and a restart from OFF or before 8.0.30
 * (docs/reference/mysql.md §1.4); MariaDB SET GLOBAL from 11.0.6, the option file and a restart before
 * (docs/reference/mariadb.md §2.2).
 */
function doublewriteOnStep(facts: InstanceFacts, caps: Capabilities): StepResult {
  const managed = facts.platform?.managed ?? null;
  if (managed === "rds" || managed === "aurora" || managed === "alibaba-rds")
    return ineligible(
      "provider-managed",
      `${managed} manages innodb_doublewrite itself: turn its atomic-write feature off in the provider's console instead.`,
    );
  if (facts.config.readOnly === true) return READ_ONLY;
  const cur = facts.config.doublewrite ?? null;
  if (cur === "on" || cur === "detect_and_recover")
    return ineligible("already-at-target", `innodb_doublewrite already reads ${currentDoublewrite(facts)}.`);
  return doublewriteModeStep(facts, caps, "ON", {});
}

/** The step that sets innodb_doublewrite to `to`, read back as that mode (plus `expect`). */
function doublewriteModeStep(
  facts: InstanceFacts,
  caps: Capabilities,
  to: "ON" | "OFF" | "DETECT_ONLY",
  expect: { doublewriteFlat?: true },
): StepResult {
  const action = doublewriteActions(facts, caps, to)[0]!;
  const current = currentDoublewrite(facts);
  return {
    ok: true,
    step: fromAction(
      facts,
      caps,
      action,
      { variable: "innodb_doublewrite", target: to, current, method: methodOf(action) },
      { restart: action.restart, doublewriteMode: parseDoublewriteMode(to)!, ...expect },
      variableRevert(facts, caps, "innodb_doublewrite", current, !action.restart),
      caps.flavor === "mariadb" ? [SRC_MARIADB_DBLWR] : [SRC_MYSQL_DBLWR],
    ),
  };
}

/** What every step builder needs besides the change. */
interface StepContext {
  readonly facts: InstanceFacts;
  readonly caps: Capabilities;
  /** The managed service, null when unknown. */
  readonly managed: NonNullable<InstanceFacts["platform"]>["managed"] | null;
  readonly name: string;
}

type ChangeOf<K extends Change["kind"]> = Extract<Change, { kind: K }>;

function doublewriteOffStep(
  change: ChangeOf<"doublewrite-off" | "doublewrite-detect-only">,
  { facts, caps, managed, name }: StepContext,
): StepResult {
  const to = change.kind === "doublewrite-off" ? "OFF" : "DETECT_ONLY";
  if (managed === "rds" || managed === "aurora" || managed === "alibaba-rds")
    return ineligible(
      "provider-managed",
      `${managed} manages innodb_doublewrite itself; use the atomic-storage change (RDS Optimized Writes, Alibaba 16K atomic write) instead.`,
    );
  if (to === "DETECT_ONLY" && !caps.detectOnly)
    return ineligible(
      "version-without-setting",
      `${name} has no DETECT_ONLY: it needs MySQL or Percona Server 8.0.30+ (${SRC_MYSQL_DBLWR}).`,
    );
  if (facts.config.readOnly === true) return READ_ONLY;
  const cur = facts.config.doublewrite ?? null;
  if ((to === "OFF" && cur === "off") || (to === "DETECT_ONLY" && cur === "detect_only"))
    return ineligible("already-at-target", `innodb_doublewrite already reads ${currentDoublewrite(facts)}.`);
  // DETECT_ONLY still writes page metadata to the doublewrite files, so the page rate need not be 0.
  return doublewriteModeStep(facts, caps, to, to === "OFF" ? { doublewriteFlat: true } : {});
}

function doublewritePagesStep(
  change: ChangeOf<"doublewrite-pages">,
  { facts, caps, managed, name }: StepContext,
): StepResult {
  if (!caps.doublewritePagesVariable)
    return ineligible(
      "version-without-setting",
      `${name} has no innodb_doublewrite_pages: it exists on MySQL and Percona Server 8.0.20+ only.`,
    );
  if (managed && managed !== "none" && managed !== "other" && managed !== "rds")
    return ineligible("provider-managed", `${managed} does not let innodb_doublewrite_pages be set.`);
  if (facts.config.doublewritePages === change.pages)
    return ineligible("already-at-target", `innodb_doublewrite_pages already reads ${change.pages}.`);
  if (managed === "rds")
    return rdsVariableStep(facts, caps, "innodb_doublewrite_pages", String(change.pages), false);
  const action = doublewritePagesAction(facts, change.pages);
  const current = facts.config.doublewritePages == null ? null : String(facts.config.doublewritePages);
  const { action: persist } = variableAction(
    caps,
    "innodb_doublewrite_pages",
    String(change.pages),
    current,
    false,
  );
  return {
    ok: true,
    step: {
      ...fromAction(
        facts,
        caps,
        persist,
        {
          variable: "innodb_doublewrite_pages",
          target: String(change.pages),
          current,
          method: "set-persist-only-restart",
        },
        { restart: true, doublewritePages: change.pages },
        variableRevert(facts, caps, "innodb_doublewrite_pages", current, false),
        [SRC_MYSQL_DBLWR, SRC_MYSQL_PERSIST],
      ),
      // Keep the advisor's explanation of the effect (the doublewrite files grow accordingly).
      steps: [...persist.steps, ...action.steps.filter((s) => s.startsWith("The doublewrite files"))],
    },
  };
}

function flushMethodStep(
  change: ChangeOf<"flush-method">,
  { facts, caps, managed }: StepContext,
): StepResult {
  if (managed && managed !== "none" && managed !== "other")
    return ineligible("provider-managed", `${managed} manages innodb_flush_method.`);
  const current = facts.config.flushMethod ?? null;
  if (current !== null && current.toLowerCase() === change.method.toLowerCase())
    return ineligible("already-at-target", `innodb_flush_method already reads ${current}.`);
  const { action, method } = variableAction(caps, "innodb_flush_method", change.method, current, false);
  const steps = caps.dataFileBufferingVariable
    ? [
        ...action.steps,
        "MariaDB 11.0+ deprecates innodb_flush_method and maps it at startup onto innodb_data_file_buffering and innodb_data_file_write_through; the read-back checks innodb_flush_method as the server prints it.",
      ]
    : action.steps;
  return {
    ok: true,
    step: fromAction(
      facts,
      caps,
      { ...action, steps },
      { variable: "innodb_flush_method", target: change.method, current, method },
      { restart: true, configInfo: { flush_method: change.method } },
      variableRevert(facts, caps, "innodb_flush_method", current, false),
      caps.flavor === "mariadb" ? [SRC_MARIADB_FLUSH] : [SRC_MYSQL_PERSIST],
    ),
  };
}

function customVariableStep(
  change: ChangeOf<"custom-variable">,
  { facts, caps, managed, name }: StepContext,
): StepResult {
  const rdsParameter = managed === "rds" && change.variable !== "innodb_doublewrite";
  if (managed && managed !== "none" && managed !== "other" && !rdsParameter)
    return ineligible("provider-managed", `${managed} manages ${change.variable} itself.`);
  if (change.variable === "innodb_doublewrite_pages" && !caps.doublewritePagesVariable)
    return ineligible("version-without-setting", `${name} has no innodb_doublewrite_pages.`);
  if (
    change.variable === "innodb_data_file_buffering" ||
    change.variable === "innodb_data_file_write_through"
  )
    if (!caps.dataFileBufferingVariable)
      return ineligible("version-without-setting", `${name} has no ${change.variable} (MariaDB 11.0.1+).`);
  const label = (CONFIG_INFO_LABELS as Record<string, string>)[change.variable];
  const current = currentVariable(facts, change.variable);
  if (current !== null && current.toLowerCase() === change.value.toLowerCase())
    return ineligible("already-at-target", `${change.variable} already reads ${current}.`);
  if (rdsParameter) return rdsVariableStep(facts, caps, change.variable, change.value, change.dynamic);
  const { action, method } = variableAction(caps, change.variable, change.value, current, change.dynamic);
  const mode = change.variable === "innodb_doublewrite" ? parseDoublewriteMode(change.value) : undefined;
  const removes = removesProtection(change);
  return {
    ok: true,
    step: {
      ...fromAction(
        facts,
        caps,
        action,
        { variable: change.variable, target: change.value, current, method },
        {
          restart: action.restart,
          ...(mode ? { doublewriteMode: mode } : {}),
          ...(change.variable === "innodb_doublewrite_pages" && /^\d+$/.test(change.value)
            ? { doublewritePages: Number(change.value) }
            : {}),
          ...(label && change.variable !== "innodb_doublewrite"
            ? { configInfo: { [label]: change.value } }
            : {}),
        },
        variableRevert(facts, caps, change.variable, current, change.dynamic),
        [SRC_MYSQL_PERSIST],
      ),
      removesTornPageProtection: removes,
    },
  };
}

/**
 * The step that turns on a provider's atomic-write feature (RDS Optimized Writes, Alibaba's 16K atomic
 * write): the server restarts with doublewrite OFF and its page counter flat; the revert, by the same
 * method, turns the feature off, which brings doublewrite back ON.
 */
function atomicWriteFeatureStep(
  { facts, caps }: StepContext,
  action: Action,
  base: { variable: string; target: string; current: string | null; method: StepMethod },
  revert: { previousValue: string | null; steps: string[] },
  sources: string[],
  switchover: boolean,
): StepResult {
  return {
    ok: true,
    step: {
      ...fromAction(
        facts,
        caps,
        action,
        base,
        { restart: true, doublewriteMode: "off", doublewriteFlat: true },
        {
          previousValue: revert.previousValue,
          method: base.method,
          restart: true,
          steps: revert.steps,
          snippets: [],
          expect: { restart: true, doublewriteMode: "on" },
        },
        sources,
      ),
      switchover,
    },
  };
}

/** RDS Optimized Writes through a Blue/Green deployment. */
function rdsBlueGreenStep(ctx: StepContext): StepResult {
  const { facts, caps, managed, name } = ctx;
  if (managed !== "rds")
    return ineligible(
      "platform-mismatch",
      `RDS Optimized Writes applies to RDS instances; this one is ${managed ?? "of unknown platform"}.`,
    );
  if (!caps.rdsOptimizedWritesVersion)
    return ineligible(
      "version-without-setting",
      `${name} has no Optimized Writes (MySQL 8.0.30+, MariaDB 10.6.10+/10.11.4+/11.4.3+/11.8+; ${SRC_RDS_OW}).`,
    );
  if (facts.config.doublewrite === "off")
    return ineligible(
      "already-at-target",
      "innodb_doublewrite already reads OFF: Optimized Writes is active.",
    );
  return atomicWriteFeatureStep(
    ctx,
    rdsOptimizedWritesAction(facts),
    {
      variable: "rds.optimized_writes",
      target: "AUTO",
      current: facts.platform?.rdsOptimizedWrites?.toUpperCase() ?? null,
      method: "blue-green-switchover",
    },
    {
      previousValue: currentDoublewrite(facts),
      steps: [
        "A Blue/Green switchover is one-way: to go back, create a new Blue/Green deployment whose green parameter group sets rds.optimized_writes = OFF, then switch over (RDS turns doublewrite back on).",
        "Until the old blue environment is deleted it can serve as the fallback: point the application back at it (its data stops at the switchover).",
      ],
    },
    [SRC_RDS_OW, SRC_RDS_PG],
    // The endpoint moves to green: a switchover for every role, with RDS's guardrails.
    true,
  );
}

/** ApsaraDB RDS's 16K atomic write, toggled in its console. */
function alibabaStep(ctx: StepContext): StepResult {
  const { facts, managed } = ctx;
  if (managed !== "alibaba-rds")
    return ineligible(
      "platform-mismatch",
      `Alibaba 16K atomic write applies to ApsaraDB RDS; this one is ${managed ?? "of unknown platform"}.`,
    );
  if (facts.platform?.alibaba16kAtomicWrite === true)
    return ineligible("already-at-target", "16K atomic write is already enabled.");
  if (facts.identity.role === "replica")
    return ineligible(
      "inherits-setting",
      "Read-only instances inherit 16K atomic write from their primary and cannot toggle it alone; it is verified with the primary's wave.",
    );
  return atomicWriteFeatureStep(
    ctx,
    alibabaAtomicWriteAction(),
    { variable: "alibaba.16k_atomic_write", target: "ON", current: "OFF", method: "console-toggle" },
    {
      previousValue: "OFF",
      steps: [
        "Disable 16K atomic write in the ApsaraDB RDS console (the instance restarts); read-only instances follow their primary.",
      ],
    },
    [SRC_ALIBABA],
    false,
  );
}

/** Self-managed migration to a volume with torn-write protection: doublewrite stays on; the proof is the safety gate verified afterwards. */
function storageMigrationStep({ facts, managed, name }: StepContext): StepResult {
  if (managed && managed !== "none" && managed !== "other")
    return ineligible("platform-mismatch", `${managed} is managed: use its own atomic-write feature.`);
  const primary = facts.identity.role === "primary";
  return {
    ok: true,
    step: {
      instance: facts.identity.instance,
      server: name,
      variable: "storage",
      current: facts.storage?.device ?? null,
      target: "volume with torn-write protection",
      method: "storage-migration",
      restart: true,
      switchover: primary,
      removesTornPageProtection: false,
      title: "Move the datadir to a volume with torn-write protection (doublewrite stays on)",
      steps: [
        ...(primary ? [SWITCHOVER] : []),
        "Prepare the volume: AWS EBS/instance store on Nitro: ext4 with bigalloc and a 16 KiB cluster (mkfs.ext4 -O bigalloc -C 16384), data start offset a multiple of 16 KiB under LVM (pvcreate --dataalignmentoffset).",
        "Set innodb_flush_method = O_DIRECT: hardware atomicity needs the page cache out of the way.",
        "Stop mysqld, copy the datadir (or rebuild the replica from a backup onto the new volume), start it.",
        "Declare the storage's torn-write protection in the fleet metadata (provider, unit) or let the exporter detect it.",
        "This step keeps innodb_doublewrite as it is: turn it off in a second rollout once the safety gate reads verified.",
      ],
      snippets: [
        { language: "shell", text: "mkfs.ext4 -O bigalloc -C 16384 /dev/<device>" },
        { language: "ini", text: "[mysqld]\ninnodb_flush_method = O_DIRECT" },
      ],
      expect: { restart: true, gateVerified: true },
      revert: {
        previousValue: facts.storage?.device ?? null,
        method: "storage-migration",
        restart: true,
        steps: ["Move the datadir back to the previous volume (or rebuild the replica from a backup there)."],
        snippets: [],
        expect: { restart: true },
      },
      sources: [SRC_EBS_TWP],
    },
  };
}

const ATOMIC_STORAGE_STEPS: Record<AtomicStoragePlatform, (ctx: StepContext) => StepResult> = {
  "rds-blue-green": rdsBlueGreenStep,
  "alibaba-16k": alibabaStep,
  "self-managed-migration": storageMigrationStep,
};

/**
 * The step for one instance, or why it cannot take the change. The safety gate is not checked here
 * (the plan and the pre-wave gate do, with the advisor's gate); everything that depends only on the
 * server's flavor, version, platform and current value is.
 */
export function stepFor(change: Change, facts: InstanceFacts): StepResult {
  const caps = capabilitiesFor(facts);
  const ctx: StepContext = { facts, caps, managed: facts.platform?.managed ?? null, name: serverName(caps) };
  switch (change.kind) {
    case "doublewrite-off":
    case "doublewrite-detect-only":
      return doublewriteOffStep(change, ctx);
    case "doublewrite-on":
      return doublewriteOnStep(facts, caps);
    case "doublewrite-pages":
      return doublewritePagesStep(change, ctx);
    case "flush-method":
      return flushMethodStep(change, ctx);
    case "custom-variable":
      return customVariableStep(change, ctx);
    case "atomic-storage":
      return ATOMIC_STORAGE_STEPS[change.platform](ctx);
  }
}
