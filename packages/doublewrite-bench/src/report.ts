/** The bench result as a terminal table and as Markdown (the layout of docs/reference/iops-metering.md §11). */
import { formatNumber, table } from "@untorn/cli/io";
import type { BenchResult, Change, Group, Range, SummaryMetric, SummaryRow } from "./result.js";

const pct = (x: number) => {
  const p = x * 100;
  const text = Math.abs(p) >= 10 ? p.toFixed(0) : p.toFixed(1);
  return `${p > 0 ? "+" : ""}${text}%`;
};

export function changeText(c: Change | null): string {
  if (!c) return "-";
  if (c.call === "single run") return `${pct(c.estimate)} (single run)`;
  const spread = `${pct(c.low)} to ${pct(c.high)}`;
  return c.call === "within noise"
    ? `${pct(c.estimate)} (noise: ${spread})`
    : `${pct(c.estimate)} (${spread})`;
}

type Unit = "tps" | "ms" | "count" | "kib";

function value(r: Range | null | undefined, unit: Unit): string {
  if (!r) return "-";
  const v = unit === "kib" ? r.median / 1024 : r.median;
  if (unit === "count" && v < 10) return v.toFixed(2);
  return formatNumber(unit === "tps" || unit === "kib" || unit === "ms" ? Math.round(v * 10) / 10 : v);
}

function pair(row: SummaryRow, m: SummaryMetric, unit: Unit): string {
  return `${value(row.on?.metrics[m], unit)} → ${value(row.off?.metrics[m], unit)}`;
}

function spreadOf(g: Group | null, m: SummaryMetric, unit: Unit): string {
  const r = g?.metrics[m];
  if (!r) return "-";
  if (g.runs < 2) return value(r, unit);
  return `${value(r, unit)} (${value({ ...r, median: r.min }, unit)}–${value({ ...r, median: r.max }, unit)})`;
}

const COLUMNS: readonly { metric: SummaryMetric; title: string; unit: Unit }[] = [
  { metric: "latencyP95Ms", title: "p95 ms", unit: "ms" },
  { metric: "writeOpsPerTrx", title: "write ops/trx", unit: "count" },
  { metric: "writeBytesPerTrx", title: "KiB/trx", unit: "kib" },
  { metric: "fsyncsPerTrx", title: "fsyncs/trx", unit: "count" },
  { metric: "deviceWritesPerTrx", title: "device writes/trx", unit: "count" },
];

const bothSettings = (r: BenchResult) =>
  r.runs.some((x) => x.doublewrite === "on") && r.runs.some((x) => x.doublewrite === "off");

/** Rows of the table: ON → OFF pairs when both settings were measured, else the one measured. */
function rows(r: BenchResult): { headers: string[]; cells: string[][] } {
  if (bothSettings(r)) {
    return {
      headers: [
        "threads",
        "TPS ON → OFF",
        "TPS change (range)",
        ...COLUMNS.map((c) => `${c.title} ON → OFF`),
      ],
      cells: r.summary.map((row) => [
        String(row.threads),
        pair(row, "tps", "tps"),
        changeText(row.changes.tps),
        ...COLUMNS.map((c) => pair(row, c.metric, c.unit)),
      ]),
    };
  }
  const setting = r.runs[0]?.doublewrite ?? "on";
  const g = (row: SummaryRow) => (setting === "on" ? row.on : row.off);
  return {
    headers: [
      "threads",
      `TPS (doublewrite ${setting.toUpperCase()})`,
      ...COLUMNS.map((c) => c.title),
      "dblwr pages/trx",
    ],
    cells: r.summary.map((row) => [
      String(row.threads),
      spreadOf(g(row), "tps", "tps"),
      ...COLUMNS.map((c) => spreadOf(g(row), c.metric, c.unit)),
      spreadOf(g(row), "dblwrPagesPerTrx", "count"),
    ]),
  };
}

export function setupLine(r: BenchResult): string {
  const s = r.server;
  const w = r.workload;
  const parts = [
    `${s.flavor === "mariadb" ? "MariaDB" : s.flavor === "percona" ? "Percona Server" : "MySQL"} ${s.version.replace(/-.*/, "")}`,
    s.kind === "throwaway" ? "throwaway server" : s.label,
    `${Math.round(s.bufferPoolBytes / 1048576)} MiB buffer pool`,
    `flush_log_at_trx_commit=${s.flushLogAtTrxCommit}`,
    `sysbench ${w.test}, ${w.tables} tables x ${w.tableSize} rows, --rand-type=${w.randType}${w.rate ? `, --rate=${w.rate}` : ""}`,
    `${w.seconds} s runs after ${w.warmupSeconds} s warm-up`,
    `${w.repeats} repeat${w.repeats === 1 ? "" : "s"}${s.restartsBetweenRepeats ? " across restarts" : " (no restarts)"}`,
  ];
  if (r.volume) {
    parts.push(
      `volume: ${r.volume.writeIops} write IOPS, ${r.volume.meterKiB === 16 ? "every 16 KiB counted" : `I/Os up to ${r.volume.meterKiB} KiB counted as one`} (emulated: loop device, cgroup v1 blkio)`,
    );
  }
  return parts.join("; ");
}

export function textReport(r: BenchResult): string {
  const { headers, cells } = rows(r);
  const out = [`untorn-bench: ${setupLine(r)}`, "", table(headers, cells).trimEnd()];
  if (r.notes.length) out.push("", ...r.notes.map((n) => `note: ${n}`));
  return `${out.join("\n")}\n`;
}

const escapeMd = (s: string) => s.replace(/\|/g, "\\|");

export function markdownReport(r: BenchResult, chartFile?: string): string {
  const { headers, cells } = rows(r);
  const out = [
    "# Doublewrite ON vs OFF (untorn-bench)",
    "",
    escapeMd(setupLine(r)),
    "",
    `| ${headers.map(escapeMd).join(" | ")} |`,
    `|${headers.map((_, i) => (i === 0 ? "---:" : "---")).join("|")}|`,
    ...cells.map((c) => `| ${c.map(escapeMd).join(" | ")} |`),
    "",
    'Values are medians over the repeats; the TPS change is OFF ÷ ON − 1 of the medians, with the noise range min OFF ÷ max ON to max OFF ÷ min ON ("noise" when it includes no change or the change is smaller than the run-to-run spread of either setting).',
  ];
  if (chartFile) out.push("", `![TPS vs threads](${chartFile})`);
  if (r.notes.length) out.push("", ...r.notes.map((n) => `- ${escapeMd(n)}`));
  out.push(
    "",
    `Started ${r.startedAt}, finished ${r.finishedAt}; ${r.machine.cpus} CPUs, Linux ${r.machine.kernel}.`,
  );
  return `${out.join("\n")}\n`;
}
