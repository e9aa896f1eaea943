import { seconds, utc } from "../lib/format.js";
import type { SourceInfo, Status } from "../server/fleet/data.js";

/** Prometheus failing or slow, a stale snapshot, an unreadable store: said once, above the data. */
export function StatusBanner({
  source,
  status,
  fetchedAt,
  storeProblem,
  declaredProblem,
}: {
  source: SourceInfo;
  status: Status;
  fetchedAt?: number | null;
  storeProblem?: string | null;
  /** Why the declared metadata file (UNTORN_METADATA_FILE or a recording's sidecar) was not used. */
  declaredProblem?: string | null;
}) {
  const what = source.kind === "live" ? `Prometheus at ${source.url}` : "The data source";
  const kept = status.kept;
  return (
    <>
      {status.state === "stale" && status.error !== null && (
        <div className="banner banner-bad" role="alert">
          <strong>{what} is failing: showing the last good data (stale).</strong>
          {status.error}
          {fetchedAt ? ` Data shown was read at ${utc(new Date(fetchedAt))}.` : ""}
          {kept ? " It is the read kept from before the restart; each page load tries a fresh read." : ""}
        </div>
      )}
      {kept?.origin === "live" && status.error === null && (
        <div className="banner banner-warn" role="status" data-testid="kept-read">
          <strong>
            Last read, as of {utc(kept.readAt)} ({seconds((Date.now() - Date.parse(kept.readAt)) / 1000)}{" "}
            ago): kept from before the restart.
          </strong>
          {kept.refreshing
            ? `A fresh read of ${what} is running; reload the page to see it when it is done.`
            : `A fresh read of ${what} starts with the next page load.`}
        </div>
      )}
      {kept?.origin === "replay" && source.kind === "recorded" && (
        <div className="banner" role="status" data-testid="kept-read">
          <strong>Read from the kept read of {source.file}.</strong>
          The facts this replay file gives, read from it at {utc(kept.readAt)} by this build and kept across
          the restart: the file has not changed since, so it is not read again.
        </div>
      )}
      {status.state === "unavailable" && (
        <div className="banner banner-bad" role="alert">
          <strong>
            {source.kind === "live"
              ? `${what} is unreachable or failing.`
              : "The recorded fleet cannot be read."}
          </strong>
          {status.error}
          {source.kind === "live" && (
            <p>
              Check that Prometheus is up and that <code>PROMETHEUS_URL</code> points at it; this page retries
              on every load.
            </p>
          )}
        </div>
      )}
      {status.state === "ok" && status.slowMs !== null && (
        <div className="banner banner-warn" role="status">
          <strong>{what} is slow.</strong>
          Reading the fleet took {seconds(status.slowMs / 1000)}. Large fleets read faster with the recording
          rules loaded.
        </div>
      )}
      {declaredProblem && (
        <div className="banner banner-warn" role="status">
          <strong>The declared metadata file is not used: advice is computed without it.</strong>
          {declaredProblem}
        </div>
      )}
      {storeProblem && (
        <div className="banner banner-warn" role="status">
          <strong>Fleet metadata is unavailable: advice is computed without it.</strong>
          {storeProblem}
        </div>
      )}
    </>
  );
}
