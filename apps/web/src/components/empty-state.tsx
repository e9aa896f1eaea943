import type { SourceInfo } from "../server/fleet/data.js";

const SCRAPE = `scrape_configs:
  - job_name: untorn
    static_configs:
      - targets: ["db1:9105", "db2:9105"]   # untorn-exporter beside each database`;

const RECORD = `untorn record --prometheus http://prometheus:9090 --span 3h --every 5m \\
  --out lab/recordings/fleet.json.gz`;

/** What to do when there is nothing to show: connect Prometheus, add an exporter, or record a fleet. */
export function EmptyState({ source, skipped = 0 }: { source: SourceInfo; skipped?: number }) {
  if (source.kind === "live")
    return (
      <section className="empty" aria-labelledby="empty-title">
        <h2 id="empty-title">No untorn-exporter series found</h2>
        <p>
          Prometheus at <code>{source.url}</code> answered, but has no <code>untorn_mysql_up</code> or{" "}
          <code>mysql_up</code> series
          {skipped > 0 ? ` with usable facts (${skipped} instances were skipped)` : ""}. Here is how to add
          one:
        </p>
        <ol>
          <li>
            Run <code>untorn-exporter</code> beside each database (it listens on <code>:9105</code>; see{" "}
            <a href="/docs/exporter">docs/exporter.md</a> for the least-privilege user and the{" "}
            <code>/probe</code> setup for managed databases).
          </li>
          <li>
            Let Prometheus scrape it, in <code>prometheus.yml</code>:<pre>{SCRAPE}</pre>
          </li>
          <li>Reload Prometheus and this page: instances appear after the first scrapes.</li>
        </ol>
      </section>
    );
  return (
    <section className="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">No data: connect Prometheus or add a recorded fleet</h2>
      {source.kind === "none" && <p className="subtle">{source.reason}.</p>}
      {source.kind === "invalid" && (
        <p className="subtle">
          The replay file <code>{source.file}</code> cannot be read: {source.error}
        </p>
      )}
      {source.kind === "recorded" && (
        <p className="subtle">
          The recording <code>{source.file}</code> holds no instance with usable facts.
        </p>
      )}
      <h3>Profile a live fleet</h3>
      <p>
        Start the console with <code>PROMETHEUS_URL=http://prometheus:9090</code>. Prometheus needs to scrape{" "}
        <code>untorn-exporter</code> (or mysqld_exporter and node_exporter) for each database:
      </p>
      <pre>{SCRAPE}</pre>
      <h3>Or record a fleet and replay it here</h3>
      <p>
        Record from any Prometheus that has the series, then put the file in <code>lab/recordings/</code> (the
        newest one is shown) or point <code>UNTORN_REPLAY</code> at it:
      </p>
      <pre>{RECORD}</pre>
    </section>
  );
}
