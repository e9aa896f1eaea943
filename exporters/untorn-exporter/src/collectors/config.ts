// Source: SHOW GLOBAL VARIABLES (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2, §2.3, §2.5, docs/reference/atomic-storage.md §8.1).
import { metrics } from "@untorn/catalog/metrics";
import { DOUBLEWRITE_MODES, parseDoublewriteMode } from "@untorn/vocabulary/words";
import { type Collector, nameValueMap, parseNumeric, type ServerFacts } from "../collector.js";

const VARIABLES = [
  "aurora_version",
  "basedir",
  "innodb_buffer_pool_instances",
  "innodb_buffer_pool_size",
  "innodb_data_file_buffering",
  "innodb_data_file_write_through",
  "innodb_doublewrite",
  "innodb_doublewrite_dir",
  "innodb_doublewrite_files",
  "innodb_doublewrite_pages",
  "innodb_flush_log_at_trx_commit",
  "innodb_flush_method",
  "innodb_io_capacity",
  "innodb_io_capacity_max",
  "innodb_log_file_size",
  "innodb_log_files_in_group",
  "innodb_page_size",
  "innodb_read_only",
  "innodb_redo_log_capacity",
  "innodb_use_atomic_writes",
  "innodb_use_fdatasync",
  "innodb_write_io_threads",
  "performance_schema",
] as const;

const SQL = `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${VARIABLES.map((v) => `'${v}'`).join(", ")})`;

/** RDS runs from /rdsdbbin; Aurora MySQL has @@aurora_version (best effort: neither is documented as a contract). */
export function managedService(vars: Map<string, string>): "rds" | "aurora" | "none" {
  if (vars.has("aurora_version")) return "aurora";
  if ((vars.get("basedir") ?? "").startsWith("/rdsdbbin")) return "rds";
  return "none";
}

function emitServerInfo(
  emit: Parameters<Collector["collect"]>[0]["emit"],
  server: ServerFacts,
  managed: string,
) {
  emit.set(metrics.serverInfo, 1, {
    flavor: server.flavor,
    version: server.version,
    version_comment: server.versionComment,
    managed,
  });
}

export const config: Collector = {
  name: "config",
  description:
    "Doublewrite, flush and I/O configuration as info labels and gauges; server flavor and version.",
  defaultEnabled: true,
  async collect({ db, emit, server }) {
    const vars = nameValueMap(await db.query(SQL));
    const raw = (name: string) => vars.get(name) ?? "";
    const num = (name: string) => parseNumeric(vars.get(name));

    emitServerInfo(emit, server, managedService(vars));
    emit.set(metrics.innodbConfigInfo, 1, {
      doublewrite: raw("innodb_doublewrite"),
      doublewrite_dir: raw("innodb_doublewrite_dir"),
      flush_method: raw("innodb_flush_method"),
      use_atomic_writes: raw("innodb_use_atomic_writes"),
      data_file_buffering: raw("innodb_data_file_buffering"),
      data_file_write_through: raw("innodb_data_file_write_through"),
      use_fdatasync: raw("innodb_use_fdatasync"),
      page_size: raw("innodb_page_size"),
    });

    const mode = parseDoublewriteMode(vars.get("innodb_doublewrite"));
    if (mode !== undefined) {
      for (const m of DOUBLEWRITE_MODES) emit.set(metrics.doublewriteMode, m === mode ? 1 : 0, { mode: m });
      emit.set(metrics.doublewriteEnabled, mode === "off" || mode === "detect_only" ? 0 : 1);
    }

    emit.set(metrics.pageSizeBytes, num("innodb_page_size"));
    emit.set(metrics.doublewritePages, num("innodb_doublewrite_pages"));
    emit.set(metrics.doublewriteFiles, num("innodb_doublewrite_files"));
    emit.set(metrics.bufferPoolSizeBytes, num("innodb_buffer_pool_size"));
    emit.set(metrics.bufferPoolInstances, num("innodb_buffer_pool_instances"));
    emit.set(metrics.writeIoThreads, num("innodb_write_io_threads"));
    emit.set(metrics.ioCapacity, num("innodb_io_capacity"));
    emit.set(metrics.ioCapacityMax, num("innodb_io_capacity_max"));
    emit.set(metrics.flushLogAtTrxCommit, num("innodb_flush_log_at_trx_commit"));
    emit.set(metrics.useAtomicWrites, num("innodb_use_atomic_writes"));
    emit.set(metrics.readOnly, num("innodb_read_only"));
    emit.set(metrics.perfSchemaEnabled, num("performance_schema"));

    const capacity = num("innodb_redo_log_capacity");
    const fileSize = num("innodb_log_file_size");
    // MariaDB 10.5+ has one redo file and no innodb_log_files_in_group.
    const files = num("innodb_log_files_in_group") ?? 1;
    emit.set(
      metrics.redoLogCapacityBytes,
      capacity ?? (fileSize !== undefined ? fileSize * files : undefined),
    );
  },
};
