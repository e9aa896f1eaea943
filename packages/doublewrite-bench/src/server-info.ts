/** What the bench records about the server, read with one SELECT of system variables. */
import { capabilitiesOf } from "@untorn/vocabulary/capabilities";
import { parseServerVersion } from "@untorn/vocabulary/server-version";
import { type Flavor, parseDoublewriteMode } from "@untorn/vocabulary/words";

export type { Flavor };

export interface ServerInfo {
  flavor: Flavor;
  version: string;
  /** Normalised innodb_doublewrite: on, off, detect_only, detect_and_recover, fast. */
  doublewrite: string;
  pageSize: number;
  bufferPoolBytes: number;
  flushLogAtTrxCommit: number;
  flushMethod: string;
  datadir: string;
  /** Innodb_data_written undercounts doublewrite bytes on this version (MDEV-31124, docs/reference/status-counters.md §4). */
  mdev31124: boolean;
}

export const SERVER_INFO_SQL =
  "SELECT @@version AS version, @@version_comment AS comment, @@innodb_doublewrite AS dw, @@innodb_page_size AS page, @@innodb_buffer_pool_size AS bp, @@innodb_flush_log_at_trx_commit AS flog, @@innodb_flush_method AS fm, @@datadir AS datadir";

export interface ServerInfoRow {
  version: unknown;
  comment: unknown;
  dw: unknown;
  page: unknown;
  bp: unknown;
  flog: unknown;
  fm: unknown;
  datadir: unknown;
}

/** MariaDB says so in @@version; Percona Server in @@version_comment (and a "-NN" build suffix). */
export function detectFlavor(version: string, comment: string): Flavor {
  return parseServerVersion(version, comment)?.flavor ?? "mysql";
}

/**
 * MDEV-31124: Innodb_data_written counts a doublewrite page as 1 byte (docs/reference/status-counters.md §4). The bench
 * reads the counter itself, so it corrects it; the table is the vocabulary's capability table.
 */
export function hasMdev31124(flavor: Flavor, version: string): boolean {
  const v = parseServerVersion(version)?.version;
  return v ? capabilitiesOf(flavor, v).dataWrittenUndercountsDoublewrite : false;
}

/**
 * innodb_doublewrite as the driver returned it (MariaDB's ON/OFF arrive as 1/0 through some drivers), one
 * of the vocabulary's modes; anything else lower-cased as it came.
 */
export function normaliseDoublewrite(v: unknown): string {
  return parseDoublewriteMode(String(v)) ?? String(v).toLowerCase();
}

export function serverInfo(row: ServerInfoRow): ServerInfo {
  const version = String(row.version);
  const flavor = detectFlavor(version, String(row.comment ?? ""));
  return {
    flavor,
    version,
    doublewrite: normaliseDoublewrite(row.dw),
    pageSize: Number(row.page),
    bufferPoolBytes: Number(row.bp),
    flushLogAtTrxCommit: Number(row.flog),
    flushMethod: String(row.fm ?? ""),
    datadir: String(row.datadir ?? ""),
    mdev31124: hasMdev31124(flavor, version),
  };
}
