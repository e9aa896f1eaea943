import type { InstanceFacts } from "@untorn/advisor/facts";
import { bytes, num, pct, seconds } from "../lib/format.js";

type Item = readonly [string, string | null];

const b = (x: number | null | undefined) => (x == null ? null : bytes(x));
const flag = (x: boolean | null | undefined) => (x == null ? null : x ? "yes" : "no");
const n = (x: number | null | undefined) => (x == null ? null : num(x));

function List({ items }: { items: readonly Item[] }) {
  const shown = items.filter(([, v]) => v !== null);
  if (shown.length === 0) return <p className="subtle">Nothing known.</p>;
  return (
    <dl className="facts">
      {shown.map(([k, v]) => (
        <div key={k} style={{ display: "contents" }}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

type Storage = NonNullable<InstanceFacts["storage"]>;
type Exporters = { untorn: boolean; mysqldExporter: boolean };

const configItems = (c: InstanceFacts["config"]): Item[] => [
  ["innodb_doublewrite", c.doublewriteRaw ?? c.doublewrite ?? null],
  ["innodb_doublewrite_pages", n(c.doublewritePages)],
  ["innodb_doublewrite_files", n(c.doublewriteFiles)],
  ["innodb_page_size", b(c.pageSizeBytes)],
  ["innodb_flush_method", c.flushMethod ?? null],
  ["innodb_data_file_buffering", flag(c.dataFileBuffering)],
  ["innodb_use_atomic_writes", flag(c.useAtomicWrites)],
  ["innodb_write_io_threads", n(c.writeIoThreads)],
  ["innodb_buffer_pool_size", b(c.bufferPoolSizeBytes)],
  [
    "innodb_io_capacity / max",
    c.ioCapacity == null ? null : `${num(c.ioCapacity)} / ${n(c.ioCapacityMax) ?? "–"}`,
  ],
  ["innodb_flush_log_at_trx_commit", n(c.flushLogAtTrxCommit)],
  ["redo capacity", b(c.redoLogCapacityBytes)],
  ["performance_schema", flag(c.perfSchemaEnabled)],
];

const platformItems = (p: InstanceFacts["platform"]): Item[] => [
  ["managed service", p?.managed ?? null],
  ["cloud", p?.cloud ?? null],
  ["instance class", p?.instanceClass ?? null],
  ["RDS Optimized Writes", p?.rdsOptimizedWrites ?? null],
  ["Alibaba 16K atomic write", flag(p?.alibaba16kAtomicWrite)],
];

function atomicWriteText(aw: Storage["atomicWrite"]): string | null {
  if (aw == null) return null;
  if (aw.attributesPresent === false) return "unknown (kernel without atomic-write attributes)";
  if (aw.unitMaxBytes == null) return null;
  return aw.unitMaxBytes === 0 ? "0 (no atomic writes)" : bytes(aw.unitMaxBytes);
}

// The declaration's note says where it was checked, or that it is declared for the demo.
const tornWriteText = (twp: Storage["tornWriteProtection"]) =>
  twp
    ? `${twp.provider}, ${bytes(twp.unitBytes)} (${twp.demoOnly ? `${twp.source} for a demo only` : twp.source})${twp.note ? `: ${twp.note}` : ""}`
    : null;

function storageItems(s: InstanceFacts["storage"]): Item[] {
  const lim = s?.limits;
  return [
    ["device", s?.device ? `${s.device}${s.disks?.length ? ` on ${s.disks.join(", ")}` : ""}` : null],
    ["model", s?.model ?? null],
    [
      "layers",
      s?.layers ? (s.layers.length ? s.layers.join(" → ") : "none (file system on the disk)") : null,
    ],
    ["file system", s?.fsType ?? null],
    [
      "block / cluster",
      s?.fsBlockSizeBytes == null ? null : `${bytes(s.fsBlockSizeBytes)} / ${b(s.fsClusterSizeBytes) ?? "–"}`,
    ],
    ["ZFS recordsize", b(s?.zfsRecordsizeBytes)],
    [
      "logical / physical block",
      s?.logicalBlockSizeBytes == null
        ? null
        : `${bytes(s.logicalBlockSizeBytes)} / ${b(s.physicalBlockSizeBytes) ?? "–"}`,
    ],
    ["rotational", flag(s?.rotational)],
    ["volatile write cache", flag(s?.writeCacheVolatile)],
    ["atomic write unit", atomicWriteText(s?.atomicWrite)],
    ["torn-write protection", tornWriteText(s?.tornWriteProtection)],
    [
      "IOPS limit",
      lim?.iops == null ? (lim?.metered === false ? "none (local device)" : null) : num(lim.iops),
    ],
    [
      "bandwidth limit",
      lim?.bandwidthBytesPerSecond == null ? null : `${bytes(lim.bandwidthBytesPerSecond)}/s`,
    ],
    ["metering unit", b(lim?.ioUnitBytes)],
  ];
}

const dataItems = (w: InstanceFacts["workload"], exporters: Exporters): Item[] => [
  [
    "exporters",
    [exporters.untorn && "untorn-exporter", exporters.mysqldExporter && "mysqld_exporter"]
      .filter(Boolean)
      .join(", ") || "none seen",
  ],
  ["window", w ? seconds(w.windowSeconds) : null],
  ["restarts in window", n(w?.restarts)],
  ["gaps in window", w?.gapRatio == null ? null : pct(w.gapRatio)],
];

/** Configuration, storage and platform facts the advisor used, and what it lacked. */
export function FactsSection({
  facts,
  missing,
  declared,
  conflicts,
  exporters,
}: {
  facts: InstanceFacts;
  missing: readonly string[];
  declared: readonly string[];
  conflicts: readonly string[];
  exporters: Exporters;
}) {
  return (
    <section className="section" aria-labelledby="facts-title">
      <h2 id="facts-title">Configuration and storage</h2>
      <div className="grid-2">
        <div>
          <h3>InnoDB configuration</h3>
          <List items={configItems(facts.config)} />
          <h3>Platform</h3>
          <List items={platformItems(facts.platform)} />
        </div>
        <div>
          <h3>Datadir storage</h3>
          <List items={storageItems(facts.storage)} />
          <h3>Data</h3>
          <List items={dataItems(facts.workload, exporters)} />
        </div>
      </div>
      {declared.length > 0 && (
        <p>
          <span className="badge badge-info">declared</span> From the fleet metadata: {declared.join(", ")}.
        </p>
      )}
      {conflicts.length > 0 && (
        <div className="banner banner-warn" role="status">
          <strong>Declared facts that disagree with measured ones</strong>
          <ul>
            {conflicts.map((x) => (
              <li key={x}>{x}</li>
            ))}
          </ul>
        </div>
      )}
      {missing.length > 0 && (
        <details>
          <summary>{missing.length} facts without data in the window</summary>
          <p className="subtle">Unknown, not zero: {missing.join(", ")}.</p>
        </details>
      )}
    </section>
  );
}
