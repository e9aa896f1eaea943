/**
 * Exact steps per platform for the changes the rules recommend. Version rules (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2, docs/reference/atomic-storage.md §8.1, §8.3):
 * - MySQL/Percona: innodb_doublewrite is read-only before 8.0.30; from 8.0.30 SET GLOBAL moves only
 *   between ON / DETECT_AND_RECOVER / DETECT_ONLY, never to or from OFF, and SET PERSIST is refused.
 * - MariaDB: read-only before 11.0.6; dynamic from 11.0.6 in the 11.0 series and from 11.6; for 11.1-11.5
 *   minors it is not established, so the steps read it off information_schema.SYSTEM_VARIABLES.
 * - RDS: Optimized Writes via Blue/Green; never set innodb_doublewrite by hand.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { InstanceFacts } from "./facts.js";
import type { Action, ConfigChange } from "./rule.js";

export type DoublewriteTarget = "ON" | "OFF" | "DETECT_ONLY";

const RESTART_STEP =
  "Restart mysqld (systemctl restart mysql, mysqld or mariadb, per your packaging); on a primary, switch over to a replica first.";

const ROLL_OUT =
  "Roll out replica by replica, an untouched sibling replica as control, primaries last via switchover (see the rollout guide).";

function change(
  variable: string,
  from: string | null,
  to: string,
  via: ConfigChange["via"],
  restart: boolean,
): ConfigChange {
  const removes =
    variable === "innodb_doublewrite" && (to.toUpperCase() === "OFF" || to.toUpperCase() === "DETECT_ONLY");
  return { variable, from, to, via, restart, removesTornPageProtection: removes };
}

/** The current innodb_doublewrite as printed by the server, for "from". */
export function currentDoublewrite(facts: InstanceFacts): string | null {
  return facts.config.doublewriteRaw ?? facts.config.doublewrite?.toUpperCase() ?? null;
}

/** Steps to set innodb_doublewrite on a self-managed server. */
export function doublewriteActions(
  facts: InstanceFacts,
  caps: Capabilities,
  to: DoublewriteTarget,
): Action[] {
  const from = currentDoublewrite(facts);
  const cur = facts.config.doublewrite ?? null;
  const ini: Action["snippets"][number] = { language: "ini", text: `[mysqld]\ninnodb_doublewrite = ${to}` };
  if (caps.flavor === "mariadb") {
    if (caps.runtimeOff) {
      return [
        {
          platform: "mariadb-runtime",
          title: `SET GLOBAL innodb_doublewrite=${to} (MariaDB 11.0.6+, no restart)`,
          steps: [
            `Run SET GLOBAL innodb_doublewrite = ${to}; (ignored with innodb_read_only=ON or innodb_force_recovery=6).`,
            "Read it back with SELECT @@GLOBAL.innodb_doublewrite.",
            `Add innodb_doublewrite = ${to} to the option file so a restart keeps it.`,
            ROLL_OUT,
          ],
          snippets: [
            {
              language: "sql",
              text: `SET GLOBAL innodb_doublewrite = ${to};\nSELECT @@GLOBAL.innodb_doublewrite;`,
            },
            ini,
          ],
          restart: false,
          changes: [change("innodb_doublewrite", from, to, "runtime", false)],
        },
      ];
    }
    const check = caps.runtimeOffUnknown
      ? [
          "Which 11.1-11.5 releases made innodb_doublewrite dynamic is not established: if the query below prints READ_ONLY = NO (VARIABLE_TYPE ENUM), SET GLOBAL innodb_doublewrite works without the restart; keep the option-file line either way.",
        ]
      : [];
    return [
      {
        platform: "mariadb-option-file",
        title: caps.runtimeOffUnknown
          ? `innodb_doublewrite=${to} in my.cnf and restart (check first whether this release has it dynamic)`
          : `innodb_doublewrite=${to} in my.cnf and restart (read-only before MariaDB 11.0.6)`,
        steps: [
          `Set innodb_doublewrite = ${to} under [mysqld] or [mariadb].`,
          ...check,
          RESTART_STEP,
          ROLL_OUT,
        ],
        snippets: caps.runtimeOffUnknown
          ? [
              ini,
              {
                language: "sql",
                text: "SELECT VARIABLE_TYPE, READ_ONLY, ENUM_VALUE_LIST FROM information_schema.SYSTEM_VARIABLES\n  WHERE VARIABLE_NAME = 'innodb_doublewrite';",
              },
            ]
          : [ini],
        restart: true,
        changes: [change("innodb_doublewrite", from, to, "option-file", true)],
      },
    ];
  }
  // MySQL / Percona.
  const runtime = caps.runtimeBetweenEnabledModes && to !== "OFF" && cur !== "off";
  if (runtime) {
    return [
      {
        platform: "mysql-runtime",
        title: `SET GLOBAL innodb_doublewrite='${to}' (8.0.30+, no restart)`,
        steps: [
          `Run SET GLOBAL innodb_doublewrite = '${to}'; it force-flushes the open batches.`,
          `Add innodb_doublewrite = ${to} to my.cnf: the variable is NOPERSIST, SET PERSIST is refused.`,
          ROLL_OUT,
        ],
        snippets: [
          {
            language: "sql",
            text: `SET GLOBAL innodb_doublewrite = '${to}';\nSELECT @@GLOBAL.innodb_doublewrite;`,
          },
          ini,
        ],
        restart: false,
        changes: [change("innodb_doublewrite", from, to, "runtime", false)],
      },
    ];
  }
  const why = !caps.runtimeBetweenEnabledModes
    ? "innodb_doublewrite is read-only before 8.0.30"
    : "SET GLOBAL cannot move innodb_doublewrite to or from OFF";
  return [
    {
      platform: "mysql-option-file",
      title: `innodb_doublewrite=${to} in my.cnf and restart (${why})`,
      steps: [
        `Set innodb_doublewrite = ${to} under [mysqld]${caps.persistRefused ? " (SET PERSIST is refused: NOPERSIST)" : ""}.`,
        RESTART_STEP,
        ROLL_OUT,
      ],
      snippets: [ini],
      restart: true,
      changes: [change("innodb_doublewrite", from, to, "option-file", true)],
    },
  ];
}

/** Steps for innodb_doublewrite_pages (read-only, MySQL/Percona 8.0.20+, docs/reference/mysql.md §1.4). */
export function doublewritePagesAction(facts: InstanceFacts, pages: number): Action {
  const from = facts.config.doublewritePages == null ? null : String(facts.config.doublewritePages);
  return {
    platform: "mysql-option-file",
    title: `innodb_doublewrite_pages=${pages} in my.cnf and restart (read-only variable)`,
    steps: [
      `Set innodb_doublewrite_pages = ${pages} under [mysqld] (the MySQL 8.4 default).`,
      RESTART_STEP,
      "The doublewrite files grow accordingly; no other change is needed.",
      ROLL_OUT,
    ],
    snippets: [{ language: "ini", text: `[mysqld]\ninnodb_doublewrite_pages = ${pages}` }],
    restart: true,
    changes: [change("innodb_doublewrite_pages", from, String(pages), "option-file", true)],
  };
}

/** RDS Optimized Writes through Blue/Green (docs/reference/atomic-storage.md §8.1). */
export function rdsOptimizedWritesAction(facts: InstanceFacts): Action {
  const upgrade = facts.platform?.rdsStorageConfigUpgradeNeeded !== false;
  return {
    platform: "aws-rds",
    title: "Enable RDS Optimized Writes with a Blue/Green deployment",
    steps: [
      "Check the live AWS list of engine versions and instance classes that support Optimized Writes in your Region.",
      "Use a DB parameter group with rds.optimized_writes = AUTO (the default) for the green environment.",
      upgrade
        ? "Create a Blue/Green deployment with 'Enable Optimized Writes on green database' and 'Upgrade storage file system configuration' (databases created before the launch need the new file-system layout)."
        : "Create a Blue/Green deployment with 'Enable Optimized Writes on green database'.",
      "Confirm on green: SHOW GLOBAL VARIABLES LIKE 'innodb_doublewrite' reads OFF/0 and Innodb_dblwr_pages_written stays flat.",
      "Compare green vs blue under the same replicated writes, then switch over.",
      "Never set innodb_doublewrite yourself on RDS: RDS manages it.",
    ],
    snippets: [
      {
        language: "shell",
        text: [
          "aws rds create-blue-green-deployment \\",
          "  --blue-green-deployment-name dblwr-optimized-writes \\",
          "  --source arn:aws:rds:<region>:<account>:db:<instance> \\",
          upgrade
            ? "  --target-db-parameter-group-name <group-with-rds.optimized_writes=AUTO> \\"
            : "  --target-db-parameter-group-name <group-with-rds.optimized_writes=AUTO>",
          ...(upgrade ? ["  --upgrade-target-storage-config"] : []),
          "aws rds switchover-blue-green-deployment --blue-green-deployment-identifier <id>",
        ].join("\n"),
      },
    ],
    restart: false,
    changes: [
      {
        variable: "rds.optimized_writes",
        from: facts.platform?.rdsOptimizedWrites?.toUpperCase() ?? null,
        to: "AUTO",
        via: "blue-green",
        restart: false,
        removesTornPageProtection: false,
      },
    ],
  };
}

/** Alibaba ApsaraDB RDS 16K atomic write (docs/reference/atomic-storage.md §8.3). */
export function alibabaAtomicWriteAction(): Action {
  return {
    platform: "alibaba-rds",
    title: "Enable 16K atomic write in the ApsaraDB RDS console",
    steps: [
      "Requires ApsaraDB RDS for MySQL 5.7/8.0 on standard SSD or Premium ESSD.",
      "Enable the 16K atomic write feature in the console; the instance restarts, so schedule a window.",
      "Read-only instances inherit the setting and cannot disable it on their own.",
      "The service disables innodb_doublewrite itself; do not change it by hand.",
    ],
    snippets: [],
    restart: true,
    changes: [
      {
        variable: "alibaba.16k_atomic_write",
        from: "OFF",
        to: "ON",
        via: "console",
        restart: true,
        removesTornPageProtection: false,
      },
    ],
  };
}
