/** The top of an instance's page, and what the page says when the instance has no view. */
import Link from "next/link";
import { serverLabel, utc } from "../../lib/format.js";
import type { InstanceLookup, InstanceView } from "../../server/fleet/instance.js";
import { GateBadge, VerdictBadge } from "../badges.js";
import { StatusBanner } from "../status-banner.js";

/** Server, cluster, role and window; the verdict and gate badges; links to Grafana and the JSON. */
export function InstanceHead({
  instance,
  view: v,
  grafana,
}: {
  instance: string;
  view: InstanceView;
  grafana: string | null;
}) {
  const a = v.advice;
  return (
    <div className="page-head">
      <div>
        <p className="subtle" style={{ margin: 0 }}>
          <Link href="/">Fleet</Link> / instance
        </p>
        <h1>{instance}</h1>
        <p className="subtle" style={{ margin: 0 }}>
          {serverLabel(a.server.flavor, v.facts.server.version)}
          {v.facts.identity.cluster ? ` · cluster ${v.facts.identity.cluster}` : ""}
          {v.facts.identity.role ? ` · ${v.facts.identity.role}` : ""} · window {v.window} ending {utc(v.at)}
          {v.source.kind === "recorded" ? " · recorded data" : ""}
        </p>
      </div>
      <div style={{ display: "flex", gap: "0.5rem", flexWrap: "wrap", alignItems: "center" }}>
        <VerdictBadge verdict={a.verdict.verdict} confidence={a.verdict.confidence} />
        <GateBadge status={a.safetyGate.status} demoOnly={a.safetyGate.demoOnly} />
        {grafana ? (
          <a className="button" href={grafana} rel="noopener">
            Open in Grafana
          </a>
        ) : (
          <span
            className="subtle"
            title="Set GRAFANA_URL to link the Grafana instance dashboard (uid untorn-instance)"
          >
            Grafana link: set GRAFANA_URL
          </span>
        )}
        <a className="button" href={`/api/v1/instances/${encodeURIComponent(instance)}`}>
          JSON
        </a>
      </div>
    </div>
  );
}

/** No view of the instance: the source's status, and why (not in the fleet, or no usable facts). */
export function InstanceMissing({
  instance,
  lookup,
}: {
  instance: string;
  lookup: Exclude<InstanceLookup, { kind: "found" }>;
}) {
  return (
    <>
      <h1>{instance}</h1>
      <StatusBanner source={lookup.source} status={lookup.status} />
      {lookup.kind === "not-found" && (
        <div className="empty" role="alert">
          <h2>No instance “{instance}” in the fleet</h2>
          <p>
            The {lookup.source.kind === "recorded" ? "recording" : "fleet"} has no series with{" "}
            <code>instance="{instance}"</code>. Check the spelling, or go{" "}
            <Link href="/">back to the fleet</Link> and search for it.
          </p>
        </div>
      )}
      {lookup.kind === "skipped" && (
        <div className="empty" role="alert">
          <h2>No usable facts for this instance</h2>
          <p>Its series exist, but {lookup.reason}.</p>
          <p>
            <Link href="/">Back to the fleet</Link>
          </p>
        </div>
      )}
    </>
  );
}
