import { utc } from "../lib/format.js";
import { getSourceInfo } from "../server/fleet/data.js";

/** Says where the numbers come from; recorded data is always labelled as such. */
export function SourceBadge() {
  const s = getSourceInfo();
  switch (s.kind) {
    case "live":
      return (
        <span className="badge badge-info" title={`Live from Prometheus at ${s.url}`}>
          Live · {new URL(s.url).host}
        </span>
      );
    case "recorded":
      return (
        <span
          className="badge badge-warn"
          title={`Replay of ${s.recordedFrom}, recorded ${utc(s.recordedAt)} (file ${s.file})`}
          data-testid="source-badge"
        >
          Recorded data · {utc(s.end)}
        </span>
      );
    case "reading":
      return (
        <span className="badge badge-outline" title={`Reading ${s.file}`} data-testid="source-badge">
          Reading the recording…
        </span>
      );
    case "invalid":
      return <span className="badge badge-bad">Replay file unreadable</span>;
    default:
      return <span className="badge badge-outline">No data source</span>;
  }
}
