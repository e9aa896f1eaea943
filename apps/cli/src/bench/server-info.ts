/** What the bench records about the server, read with one SELECT of system variables. */

export type Flavor = "mysql" | "mariadb" | "percona";

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

export function detectFlavor(version: string, comment: string): Flavor {
  if (/mariadb/i.test(version) || /mariadb/i.test(comment)) return "mariadb";
  if (/percona/i.test(comment) || /percona/i.test(version)) return "percona";
  return "mysql";
}

/**
 * MDEV-31124: from 10.5.7 until 10.5.20 / 10.6.13 / 10.8.8 / 10.9.6 / 10.10.4 / 10.11.3 MariaDB added
 * doublewrite writes to Innodb_data_written without multiplying by the page size (docs/reference/status-counters.md §4; the
 * advisor's capabilities use the same table). The bench reads the counter itself, so it corrects it.
 */
export function hasMdev31124(flavor: Flavor, version: string): boolean {
  if (flavor !== "mariadb") return false;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 10) return false;
  if (minor === 5) return patch >= 7 && patch < 20;
  const fixedIn: Record<number, number> = { 6: 13, 7: Number.POSITIVE_INFINITY, 8: 8, 9: 6, 10: 4, 11: 3 };
  const fix = fixedIn[minor];
  return fix !== undefined && patch < fix;
}

/** MariaDB reports ON/OFF as 1/0 through some drivers; MySQL 8.0.30+ has DETECT_* values. */
export function normaliseDoublewrite(v: unknown): string {
  const s = String(v).toLowerCase();
  if (s === "1" || s === "on") return "on";
  if (s === "0" || s === "off") return "off";
  return s;
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
