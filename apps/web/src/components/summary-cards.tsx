import Link from "next/link";
import { DEFAULT_QUERY, type FleetQuery, fleetQueryToParams } from "../lib/fleet-query.js";
import type { FleetSummary } from "../lib/fleet-row.js";
import { bytes, num, pct } from "../lib/format.js";

/**
 * The fleet page filtered to the rows a card counts (the count equals the rows that filter keeps), over
 * the same time range.
 */
function filterHref(range: string | null, patch: Partial<FleetQuery>): string {
  const p = fleetQueryToParams({ ...DEFAULT_QUERY, range, ...patch }).toString();
  return p ? `/?${p}` : "/";
}

function Card({
  title,
  href,
  value,
  note,
}: {
  title: string;
  href: string | null;
  value: string;
  note: string;
}) {
  return (
    <div className="card">
      <dt>{href ? <Link href={href}>{title}</Link> : title}</dt>
      <dd>
        {value}
        <span className="card-note">{note}</span>
      </dd>
    </div>
  );
}

/**
 * The fleet at a glance: write-bound count, safe doublewrite removals, the write I/O they save. Each
 * count links to the table filtered to the rows it counts.
 */
export function SummaryCards({
  summary,
  stale,
  range = null,
}: {
  summary: FleetSummary;
  stale: boolean;
  range?: string | null;
}) {
  const wb = summary.verdicts["write-bound"];
  return (
    <section aria-label="Fleet summary">
      <dl className="cards">
        <Card
          title="Instances"
          href={filterHref(range, {})}
          value={num(summary.instances)}
          note={`${summary.skipped > 0 ? `${num(summary.skipped)} seen without usable facts` : "all with facts"}${stale ? " · stale" : ""}`}
        />
        <Card
          title="Write-bound"
          href={filterHref(range, { verdict: "write-bound" })}
          value={num(wb)}
          note={`${num(summary.verdicts.likely)} more likely write-bound`}
        />
        <Card
          title="Could safely drop doublewrite"
          href={filterHref(range, { only: "can-drop" })}
          value={num(summary.canDropDoublewrite)}
          note="safety gate verified, doublewrite still on"
        />
        <Card
          title="Waiting for the safety gate"
          href={filterHref(range, { only: "waiting-for-gate" })}
          value={num(summary.blockedByGate)}
          note="a gain needs storage verified atomic first"
        />
        <Card
          title="Estimated write I/O saved"
          href={null}
          value={`${bytes(summary.savedBytesPerSecond)}/s`}
          note={
            summary.savedShare !== null
              ? `${pct(summary.savedShare)} of the fleet's ${bytes(summary.fleetWriteBytesPerSecond)}/s of writes`
              : "fleet write volume unknown"
          }
        />
        <Card
          title="At risk"
          href={filterHref(range, { only: "at-risk" })}
          value={num(summary.atRisk)}
          note="critical or error findings"
        />
      </dl>
    </section>
  );
}
